/* MPI_Barrier latency at the job's rank count (the baseline of fork.c).
 * Usage: mpirun -np N mpi_barrier [iterations]. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < 20; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < n; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    if (rank == 0)
        printf("barrier_us=%.2f\n", (t1 - t0) * 1e6 / n);
    MPI_Finalize();
    return 0;
}
