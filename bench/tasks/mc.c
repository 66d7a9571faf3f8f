/* mc.c - many independent Monte-Carlo tasks (estimating pi), created by one
 * thread in a single: the "10 000 independent tasks" case. Usage: mc TASKS
 * SAMPLES_PER_TASK. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int ntasks = argc > 1 ? atoi(argv[1]) : 2000;
    long samples = argc > 2 ? atol(argv[2]) : 200000;
    long *hits = calloc((size_t)ntasks, sizeof *hits);

    if (!hits)
        return 1;
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    for (int t = 0; t < ntasks; t++) {
#pragma omp task firstprivate(t)
        {
            unsigned long x = 0x9E3779B97F4A7C15UL * (unsigned long)(t + 1);
            long h = 0;
            for (long s = 0; s < samples; s++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                double u = (double)(x >> 11) * (1.0 / 9007199254740992.0);
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                double v = (double)(x >> 11) * (1.0 / 9007199254740992.0);
                h += u * u + v * v <= 1.0;
            }
            hits[t] = h;
        }
    }
    double t = omp_get_wtime() - t0;
    long total = 0;
    for (int i = 0; i < ntasks; i++)
        total += hits[i];
    printf("mc(%d x %ld) hits=%ld pi=%.6f time_s=%.4f\n", ntasks, samples,
           total, 4.0 * (double)total / ((double)ntasks * (double)samples), t);
    return 0;
}
