/* Cost of an empty parallel region (fork + join), and of one with a
 * barrier inside, averaged over many regions.
 * Usage: fork [regions]. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;

    for (int i = 0; i < 20; i++) { /* warm-up: threads, pages, pools */
#pragma omp parallel
        {
        }
    }
    double t0 = omp_get_wtime();
    for (int i = 0; i < n; i++) {
#pragma omp parallel
        {
        }
    }
    double t1 = omp_get_wtime();
    for (int i = 0; i < n; i++) {
#pragma omp parallel
        {
#pragma omp barrier
        }
    }
    double t2 = omp_get_wtime();
    printf("regions=%d threads=%d\n", n, omp_get_max_threads());
    printf("empty_us=%.2f\n", (t1 - t0) * 1e6 / n);
    printf("barrier_us=%.2f\n", (t2 - t1) * 1e6 / n);
    return 0;
}
