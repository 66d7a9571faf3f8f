/*
 * rt_hybrid.c - a hybrid MPI+OpenMP program in lazy mode: a parallel region
 * first (the runtime starts), then the program's own MPI.
 *
 * Alone (`./rt_hybrid`, no launcher) the runtime runs without MPI, so the
 * program finds MPI down, brings it up itself, reduces, finalises it, and
 * runs another region afterwards: the runtime must call no MPI after the
 * program's MPI_Finalize (Open MPI aborts then), nor finalise MPI again.
 * Under mpirun the runtime brought MPI up at its start, so the program
 * finds it up and uses it as it is (a program may not initialise MPI
 * twice). Prints "hybrid ok" lines that expect.sh checks.
 */
#include <mpi.h>

#include "rt_test.h"

RT_REGION(count, 0x7101, 1);
static void count_body(int32_t gtid, int32_t btid, void **args)
{
    (void)gtid, (void)btid;
    __atomic_fetch_add((int *)args[0], 1, __ATOMIC_RELAXED);
}

static int region(void)
{
    int n = 0;
    void *args[1] = {&n};
    rt_fork(&count_region, 2, args);
    return n;
}

int main(int argc, char **argv)
{
    int before = -1, provided = 0, rank = -1, size = 0, sum = 0;
    int threads = region();

    MPI_Initialized(&before);
    if (!before && MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED,
                                   &provided) != MPI_SUCCESS)
        return 10;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank + 1;
    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("hybrid ok rank %d of %d: mpi up before=%d, threads=%d, sum=%d, "
           "nodes=%d\n",
           rank, size, before, threads, sum, hcrt_num_nodes());
    fflush(stdout);
    if (sum != size * (size + 1) / 2 || threads != 2 ||
        hcrt_num_nodes() != size)
        return 11;
    if (!before) {
        MPI_Finalize();
        printf("hybrid ok after MPI_Finalize: threads=%d\n", region());
    }
    return 0;
}
