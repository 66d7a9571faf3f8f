/* Memory-bound 5-point Jacobi stencil on an n x n grid of doubles, the
 * arrays first touched in parallel (so a first-touch DSM homes each block
 * on the node that works on it). Every sweep reads the neighbour's edge
 * rows: across nodes that is DSM traffic at each join.
 * Usage: stencil [n] [sweeps]. Prints a checksum and the sweeps' time. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int sweeps = argc > 2 ? atoi(argv[2]) : 20;
    double *a = malloc((size_t)n * n * sizeof(*a));
    double *b = malloc((size_t)n * n * sizeof(*b));

    if (!a || !b)
        return 1;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            a[(size_t)i * n + j] = (i == 0 || j == 0) ? 1.0 : 0.0;
            b[(size_t)i * n + j] = a[(size_t)i * n + j];
        }
    double t0 = omp_get_wtime();
    for (int s = 0; s < sweeps; s++) {
#pragma omp parallel for schedule(static)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                b[(size_t)i * n + j] =
                    0.25 *
                    (a[(size_t)(i - 1) * n + j] + a[(size_t)(i + 1) * n + j] +
                     a[(size_t)i * n + j - 1] + a[(size_t)i * n + j + 1]);
        double *t = a;
        a = b, b = t;
    }
    double t1 = omp_get_wtime();
    double sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            sum += a[(size_t)i * n + j];
    printf("stencil n=%d sweeps=%d sum=%.6e\n", n, sweeps, sum);
    printf("time_s=%.6f\n", t1 - t0);
    free(a), free(b);
    return 0;
}
