// OpenMP reductions across nodes choosing their scheme by themselves
// (HCRT_REDUCE_DYNAMIC=auto, docs/reduce.md): a site whose last run
// waited for a late rank (threads sleep in an order that changes every
// round) runs the dynamic reduction next time, and goes back to the tree
// after a quiet run; array sections (their private copies are DSM memory,
// read by the holder) and scalars. The statistics must show dynamic
// reductions and changed decisions. One thread per rank: the reference
// (clang 19 + libomp) loses updates of array-section reductions at random
// with 8 threads (its atomic method, measured).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --threads 1 --env HCRT_REDUCE_LATE_US=1000 --stats 'OpenMP reductions by it [1-9][0-9]*, site decisions changed [1-9]' %s %t
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define M 20000
#define N 40000

static double a[M];
static long b[M];

static void late(int round)
{
    int t = omp_get_thread_num();
    usleep((useconds_t)((t * 7919 + round * 3571) % 2000));
}

int main(void)
{
    long scalar = 0;
    for (int round = 0; round < 5; round++) {
#pragma omp parallel for reduction(+ : a[0:M]) reduction(max : b[0:M])
        for (int i = 0; i < N; i++) {
            if (i % 2500 == 0)
                late(round);
            a[i % M] += (double)((i + round) % 5);
            long v = (long)((i * 31 + round) % 1009);
            if (v > b[(i * 7) % M])
                b[(i * 7) % M] = v;
        }
#pragma omp parallel for reduction(+ : scalar)
        for (int i = 0; i < N; i++)
            scalar += i % 13 + round;
        double s = 0;
        long mx = 0;
        for (int j = 0; j < M; j++)
            s += a[j] * (double)(j % 11 + 1), mx += b[j];
        printf("round %d: %.1f %ld %ld\n", round, s, mx, scalar);
    }
    return 0;
}
