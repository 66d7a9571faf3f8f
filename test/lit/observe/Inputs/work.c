/* A cluster region with a static and a dynamic loop, run three times:
 * the observation tests count its calls, iterations and events. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 6000

int main(void)
{
    double *a = malloc(N * sizeof(*a)), sum = 0;

    for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                a[i] = i + rep;
#pragma omp for schedule(dynamic, 100) reduction(+ : sum)
            for (int i = 0; i < N; i++)
                sum += a[i];
        }
    }
    printf("sum=%.0f max_threads=%d\n", sum, omp_get_max_threads());
    free(a);
    return 0;
}
