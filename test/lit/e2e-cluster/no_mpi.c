// `./prog` without a launcher is a job of one rank that runs without MPI:
// no MPI_Init (Open MPI's singleton start-up opens dozens of components and
// reads every PCI device: ~25 ms of CPU, ten times an empty OpenMP
// program), and no Open MPI component is loaded; nor does hwloc run unless
// the node's cores are asked for. Statistics and the trace
// still come out. A hybrid program that calls MPI_Init itself after a
// parallel region gets its own MPI, reduces over it, finalises it, and
// runs regions after that: the runtime calls no MPI after the program's
// MPI_Finalize and never finalises an MPI it did not start (such a program
// is an MPI program to hcc: it leaves MPI to it under a launcher too,
// test/lit/e2e-mpi). A program without MPI_Init of its own (%t.plain) has
// MPI up under a launcher, at one rank too.
// RUN: %hcc -fopenmp -O1 %s -o %t
// RUN: %hcc -fopenmp -O1 -DNO_OWN_MPI_INIT %s -o %t.plain
// RUN: env OMP_NUM_THREADS=3 LD_DEBUG=files %t 2> %t.ld | FileCheck --check-prefix=ALONE %s
// ALONE: threads 3 mpi 0 nodes 1
// The dynamic loader's log is real (it lists libomp), and names no Open MPI
// component, nor a hwloc plugin: hwloc runs only when the statistics ask
// for the node's cores (below).
// RUN: grep -q "file=.*libomp" %t.ld
// RUN: not grep "mca_" %t.ld
// RUN: not grep "hwloc/hwloc_" %t.ld
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 env OMP_NUM_THREADS=3 %t mpi | FileCheck --check-prefix=HYBRID %s
// HYBRID: threads 3 mpi 0 nodes 1
// HYBRID-NEXT: MPI_Init by the program: rank 0 of 1, sum 1
// HYBRID-NEXT: after MPI_Finalize: threads 3 mpi 1 nodes 1
// HYBRID-NOT: {{error|MPI_FINALIZE}}
// HYBRID: status 0
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 env OMP_NUM_THREADS=2 HCRT_STATS=1 HCRT_TRACE=%t.json %t | FileCheck --check-prefix=STATS %s
// STATS: threads 2 mpi 0 nodes 1
// STATS: ==== hcrt statistics: 1 node(s)
// STATS: ---- nodes
// STATS-NEXT: node host
// STATS-NEXT: {{^0 +[^ ]+ +2 OMP_NUM_THREADS +[1-9][0-9]*/[1-9][0-9]* }}
// STATS: ==== end of hcrt statistics ====
// STATS: status 0
// RUN: python3 %S/../observe/Inputs/check_trace.py %t.json 1 region | FileCheck --check-prefix=TRACE %s
// TRACE: node 0: region 1
// TRACE: ok
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 1 env OMP_NUM_THREADS=2 %t.plain | FileCheck --check-prefix=LAUNCHED %s
// LAUNCHED: threads 2 mpi 1 nodes 1
// LAUNCHED: status 0
// RUN: bash %S/Inputs/status.sh timeout -k 5 60 %mpirun -np 1 env OMP_NUM_THREADS=2 %t mpi | FileCheck --check-prefix=OWN %s
// OWN: threads 2 mpi 0 nodes 1
// OWN: MPI_Init by the program: rank 0 of 1, sum 1
// OWN: status 0
#include <hcrt/hcrt.h>
#include <mpi.h>
#include <stdio.h>

static void report(const char *when)
{
    int n = 0, mpi = -1;
#pragma omp parallel reduction(+ : n)
    n += 1;
    MPI_Initialized(&mpi);
    printf("%sthreads %d mpi %d nodes %d\n", when, n, mpi, hcrt_num_nodes());
    fflush(stdout);
}

int main(int argc, char **argv)
{
    report("");
#ifndef NO_OWN_MPI_INIT
    if (argc < 2)
        return 0;
    int rank = -1, size = 0, one = 1, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("MPI_Init by the program: rank %d of %d, sum %d\n", rank, size,
           sum);
    fflush(stdout);
    MPI_Finalize();
    report("after MPI_Finalize: ");
#endif
    return 0;
}
