// MPI_Init_thread(MPI_THREAD_MULTIPLE) in main, then MPI calls from every
// OpenMP thread inside a parallel region: each thread exchanges a message
// with the same thread of the neighbouring ranks (tag = thread number)
// from a shared stack array and a heap block, which hcc's pass moves to its
// own storage. Output equal to mpicc + clang-19 alone and at 1/2/4 ranks.
// RUN: %mpiprog --build flags %s %t
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define T 2 /* threads per rank (run.sh sets OMP_NUM_THREADS=2) */

int main(int argc, char **argv)
{
    int provided = -1, rank, size;
    long got[T] = {0}; /* shared stack array: the region captures it */

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("no MPI_THREAD_MULTIPLE (%d)\n", provided);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long *sent = calloc(T, sizeof(long));
#pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num();
        int right = (rank + 1) % size, left = (rank + size - 1) % size;
        sent[t] = 1000L * rank + t;
        MPI_Sendrecv(&sent[t], 1, MPI_LONG, right, t, &got[t], 1, MPI_LONG,
                     left, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    long mine = 0, all = 0;
    for (int t = 0; t < T; t++)
        mine += got[t] * (t + 1);
    MPI_Reduce(&mine, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("ranks %d: from the left %ld %ld, checksum %ld\n", size,
               got[0], got[1], all);
    free(sent);
    MPI_Finalize();
    return 0;
}
