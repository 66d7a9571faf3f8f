// Teams far larger than the threads a rank runs by default: OpenMP_VV's
// task tests call omp_set_num_threads(64) and create tasks in the region.
// Every libomp thread gets a stack in DSM memory; the rank's stack region
// must hold 64 of libomp's default 8 MiB stacks and more (it stopped the
// job with "no room for another 8 MiB OpenMP thread stack" at 2 ranks).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   --threads 1 %s %t
#include <omp.h>
#include <stdio.h>

static int count(int n)
{
    int seen[128] = {0}, sum = 0;
    omp_set_num_threads(n);
#pragma omp parallel
    {
        int t = omp_get_thread_num();
#pragma omp task firstprivate(t) shared(seen)
        seen[t] = t + 1;
    }
    for (int i = 0; i < n; i++)
        sum += seen[i];
    return sum;
}

int main(void)
{
    int ok = 1;
    for (int n = 4; n <= 64; n *= 2)
        ok &= count(n) == n * (n + 1) / 2;
    /* a region with work for every node too, after the big teams */
    double s = 0;
    omp_set_num_threads(64);
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 100000; i++)
        s += i % 7;
    printf("teams %s, sum %.0f\n", ok ? "ok" : "WRONG", s);
    return 0;
}
