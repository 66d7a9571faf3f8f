/*
 * offload_rtt.c - the cost of an empty target region on a worker node, as
 * the user sees it (built by hcc; run with 2 ranks:
 * bench/events/run_offload.sh):
 *   - undeferred `target` with no data: head -> worker -> head round trip;
 *   - the same with one 8-byte `tofrom` scalar (two copies + alloc/free);
 *   - N empty `target nowait` regions then taskwait: time per region.
 * Each figure is the median of 7 trials.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define TRIALS 7

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v)
{
    qsort(v, TRIALS, sizeof(double), cmp);
    return v[TRIALS / 2];
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 2000;
    double e[TRIALS], m[TRIALS], w[TRIALS];
    long x = 0;

    for (int i = 0; i < 50; i++) { /* warm up: kernels get learned times */
#pragma omp target
        {
        }
#pragma omp target map(tofrom : x)
        x++;
    }
    for (int t = 0; t < TRIALS; t++) {
        double t0 = omp_get_wtime();
        for (int i = 0; i < reps; i++) {
#pragma omp target
            {
            }
        }
        double t1 = omp_get_wtime();
        for (int i = 0; i < reps / 4; i++) {
#pragma omp target map(tofrom : x)
            x++;
        }
        double t2 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
        {
            for (int i = 0; i < reps; i++) {
#pragma omp target nowait
                {
                }
            }
#pragma omp taskwait
        }
        double t3 = omp_get_wtime();
        e[t] = (t1 - t0) / reps * 1e6;
        m[t] = (t2 - t1) / (reps / 4) * 1e6;
        w[t] = (t3 - t2) / reps * 1e6;
    }
    printf("| empty target, undeferred (us) | %.1f |\n", median(e));
    printf("| target map(tofrom: 8 B) (us) | %.1f |\n", median(m));
    printf("| empty target nowait, per region (us) | %.1f |\n", median(w));
    printf("devices %d, x %ld\n", omp_get_num_devices(), x);
    return 0;
}
