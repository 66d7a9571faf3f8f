/*
 * tasks.c - many small tasks: 1,000 rounds of 1,000 tasks created by one
 * thread and joined by taskwait, plus a recursive task tree. Prints the
 * kernel time and the results.
 */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 5000
#define TASKS 1000

static long work(long i)
{
    long x = i;
    for (int k = 0; k < 50; k++)
        x = (x * 1103515245 + 12345) % 2147483648L;
    return x;
}

static long tree(int depth)
{
    if (depth == 0)
        return 1;
    long l, r;
#pragma omp task shared(l)
    l = tree(depth - 1);
#pragma omp task shared(r)
    r = tree(depth - 1);
#pragma omp taskwait
    return l + r;
}

int main(void)
{
    static long out[TASKS];
    long sum = 0, leaves = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    {
        for (int r = 0; r < ROUNDS; r++) {
            for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i, r)
                out[i] = work(i + r);
            }
#pragma omp taskwait
            for (int i = 0; i < TASKS; i++)
                sum += out[i] % 1000;
        }
        leaves = tree(14);
    }
    double t = omp_get_wtime() - t0;
    printf("tasks: sum %ld leaves %ld\n", sum, leaves);
    printf("kernel_seconds %.6f\n", t);
    return 0;
}
