/*
 * loops.c - many short parallel loops: the fork/join and loop-dispatch cost
 * of a one-node run: 100,000 rounds of two `parallel for` regions over
 * 2,000 doubles each.
 * Prints the kernel time (omp_get_wtime) and a checksum of the result.
 */
#include <omp.h>
#include <stdio.h>

#define N 2000
#define REPS 500000

static double a[N], b[N];

int main(void)
{
    for (int i = 0; i < N; i++)
        a[i] = i % 10;
    double t0 = omp_get_wtime();
    for (int r = 0; r < REPS; r++) {
#pragma omp parallel for schedule(static)
        for (int i = 0; i < N; i++)
            b[i] = a[i] * 0.5 + (double)(r & 7);
#pragma omp parallel for schedule(static)
        for (int i = 0; i < N; i++)
            a[i] = b[i] - (double)(r & 7) * 0.5;
    }
    double t = omp_get_wtime() - t0;
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += a[i];
    printf("loops: checksum %.6f\n", sum);
    printf("kernel_seconds %.6f\n", t);
    return 0;
}
