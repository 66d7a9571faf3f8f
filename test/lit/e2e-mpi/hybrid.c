// A hybrid MPI+OpenMP program built with hcc runs as an MPI program: every
// rank runs main with its own OpenMP threads, the program's MPI_Init (in
// another translation unit, Inputs/init*.c) works, and the output equals
// the same source built with mpicc + clang-19 -fopenmp, alone and at 1, 2
// and 4 ranks. Heap blocks, globals and a stack array that hcc's pass
// moves to its own storage reach MPI calls. Built with libhcrt.so (PIE and
// not), libhcrt.a (-static-hcrt), in one command and file by file. Rank 0 says once on stderr
// that hcc ran an MPI program (Inputs/run.sh checks every run's stderr).
// RUN: %mpiprog --with %S/Inputs/init.c --build flags %s %t.init
// RUN: %mpiprog --with %S/Inputs/init_thread.c --build wrapper %s %t.funneled
// RUN: %mpiprog --with %S/Inputs/init.c --build static %s %t.static
// RUN: %mpiprog --with %S/Inputs/init_thread.c --build separate %s %t.separate
// RUN: %mpiprog --cflags "-DHYBRID_INIT_HERE -fno-pie -no-pie" --build flags %s %t.here
//
// HCRT_STATS in an MPI program: every rank prints its own report, titled
// with its rank; HCRT_TRACE: rank 0 writes the file, rank r file.r.
// RUN: rm -f %t.json %t.json.1
// RUN: env OMP_NUM_THREADS=2 HCRT_STATS=1 HCRT_TRACE=%t.json %mpirun -x OMP_NUM_THREADS -x HCRT_STATS -x HCRT_TRACE -np 2 %t.init/hcc 2> %t.stats | FileCheck --check-prefix=OUT %s
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: python3 %S/../observe/Inputs/check_trace.py %t.json 1 region | FileCheck --check-prefix=TRACE %s
// RUN: python3 %S/../observe/Inputs/check_trace.py %t.json.1 1 region | FileCheck --check-prefix=TRACE %s
// OUT: ranks 2 threads 4 level ok
// OUT-NEXT: SIGPIPE default
// STATS-DAG: ==== rank 0 of 2 of an MPI program: the statistics of this rank alone ====
// STATS-DAG: ==== rank 1 of 2 of an MPI program: the statistics of this rank alone ====
// TRACE: ok
//
// MPI_Init in a file hcc did not compile (plain mpicc): hcc cannot see it
// and starts MPI itself, so Open MPI stops the program's second MPI_Init;
// HCRT_MPI_PROGRAM=1 runs it as an MPI program.
// RUN: env OMPI_CC=%clang mpicc -O1 -c %S/Inputs/init.c -o %t.init_plain.o
// RUN: %hcc -fopenmp -O1 %s %t.init_plain.o -o %t.unseen
// RUN: env OMP_NUM_THREADS=2 HCRT_MPI_PROGRAM=1 %mpirun -x OMP_NUM_THREADS -x HCRT_MPI_PROGRAM -np 2 %t.unseen 2> %t.unseen.err | FileCheck --check-prefix=OUT %s
// RUN: FileCheck --check-prefix=FORCED %s < %t.unseen.err
// FORCED: this program starts MPI itself (HCRT_MPI_PROGRAM=1)
// RUN: bash %S/../e2e-cluster/Inputs/status.sh %mpirun -np 2 %t.unseen > %t.unseen.out 2>&1; FileCheck --check-prefix=UNSEEN %s < %t.unseen.out
// (Open MPI's text, "attempted to initialize MPI more than once", is not
// checked: under load its help system sometimes prints only "ORTE_ERROR_LOG:
// Out of resource in file show_help.c".)
// UNSEEN-NOT: ranks 2 threads
// UNSEEN: status {{[1-9][0-9]?$}}
//
// hcrun runs it like mpirun; its options for hcc's fault handling, which
// does not run in an MPI program, are refused.
// RUN: env OMP_NUM_THREADS=2 timeout -k 5 120 %hcrun -n 2 %t.init/hcc 2> %t.hcrun | FileCheck --check-prefix=OUT %s
// RUN: not %hcrun --ft -n 2 %t.init/hcc 2>&1 | FileCheck --check-prefix=FT %s
// FT: hcrun: error: {{.*}}hcc calls MPI_Init itself (an MPI+OpenMP program): every rank runs its own main and hcc's fault handling does not run, so --ft has nothing to act on; drop it
// RUN: not %hcrun --inject-failure 1@1 -n 2 %t.init/hcc 2>&1 | FileCheck --check-prefix=INJ %s
// INJ: hcrun: error: {{.*}}so --inject-failure has nothing to act on; drop it
#include <mpi.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#define N 200000

void hybrid_init(int *argc, char ***argv, int *level_ok);

#ifdef HYBRID_INIT_HERE
void hybrid_init(int *argc, char ***argv, int *level_ok)
{
    *level_ok = MPI_Init(argc, argv) == MPI_SUCCESS;
}
#endif

static double partial[64]; /* per rank, summed by MPI_Allreduce */

static double local_sum(int rank)
{
    double *a = malloc(N * sizeof(double)), s = 0;

#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < N; i++) {
        a[i] = (double)((i * 7 + rank) % 101);
        s += a[i];
    }
    free(a);
    return s;
}

int main(int argc, char **argv)
{
    int rank = -1, size = 0, level_ok = 0, token = 0, threads = 0;
    int all_threads = 0;

    hybrid_init(&argc, &argv, &level_ok);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double s = local_sum(rank), total = 0;
    MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank < 64)
        partial[rank] = s;
    double sums[64];
    MPI_Allreduce(partial, sums, 64, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        token = 4242;
    MPI_Bcast(&token, 1, MPI_INT, 0, MPI_COMM_WORLD);
#pragma omp parallel
#pragma omp single
    threads = omp_get_num_threads();
    MPI_Reduce(&threads, &all_threads, 1, MPI_INT, MPI_SUM, 0,
               MPI_COMM_WORLD);
    int *ranks = rank == 0 ? malloc(size * sizeof(int)) : NULL;
    MPI_Gather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("sum %.1f token %d\n", total, token);
        for (int r = 0; r < size && r < 64; r++)
            printf("rank %d: %d sum %.1f\n", r, ranks[r], sums[r]);
        printf("ranks %d threads %d level %s\n", size, all_threads,
               level_ok ? "ok" : "BAD");
        /* As under clang (Open MPI leaves it alone): a write to a closed
         * pipe ends the program. */
        printf("SIGPIPE %s\n",
               signal(SIGPIPE, SIG_DFL) == SIG_DFL ? "default" : "changed");
        free(ranks);
    }
    MPI_Finalize();
    return 0;
}
