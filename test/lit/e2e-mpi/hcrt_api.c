// hcrt's public API in a program that calls MPI_Init itself: the runtime
// has no MPI there, so each rank is a job of one node to it
// (hcrt_num_nodes() 1, hcrt_node_id() 0), and hcrt_reduce, which would
// reduce only the rank's own value, refuses with a message at several
// ranks instead of answering wrongly. At one rank it reduces.
// RUN: %hcc -fopenmp -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=2 %mpirun -np 2 %t 2>&1 | FileCheck --check-prefix=NP2 %s
// NP2-DAG: rank 0: nodes 1 node 0 reduce refused (not supported)
// NP2-DAG: rank 1: nodes 1 node 0 reduce refused (not supported)
// NP2-DAG: hcrt_reduce_start in a program that calls MPI_Init itself (2 ranks): hcc's runtime does not use the program's MPI, so it cannot reduce across ranks; use MPI_Reduce
// NP2-DAG: this program starts MPI itself ({{.*}}hcrt_api.c: main calls MPI_Init)
// RUN: env OMP_NUM_THREADS=2 %mpirun -np 1 %t 2>&1 | FileCheck --check-prefix=NP1 %s
// RUN: env OMP_NUM_THREADS=2 timeout -k 5 60 %t 2>&1 | FileCheck --check-prefix=NP1 %s
// NP1: rank 0: nodes 1 node 0 reduce 3
#include <hcrt/hcrt.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank = -1, sum = 0, n = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#pragma omp parallel reduction(+ : n)
    n += 1;
    int one = n + 1;
    hcrt_status_t st = hcrt_reduce(&one, &sum, 1, HCRT_INT32, HCRT_OP_SUM, 0, NULL);
    if (st == HCRT_OK)
        printf("rank %d: nodes %d node %d reduce %d\n", rank, hcrt_num_nodes(),
               hcrt_node_id(), sum);
    else
        printf("rank %d: nodes %d node %d reduce refused (%s)\n", rank,
               hcrt_num_nodes(), hcrt_node_id(), hcrt_strerror(st));
    MPI_Finalize();
    return 0;
}
