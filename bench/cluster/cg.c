/* NPB-CG-like sparse kernel: conjugate-gradient iterations on a random
 * symmetric-pattern CSR matrix (diagonally dominant, nonzer entries per
 * row), each iteration a sparse mat-vec, two dot products and three axpys,
 * each its own parallel loop (as in NPB CG). The mat-vec gathers x[] at
 * random columns: across nodes it reads pages homed elsewhere.
 * Usage: cg [rows] [nonzeros per row] [iterations]. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 14000;
    int nz = argc > 2 ? atoi(argv[2]) : 11;
    int iters = argc > 3 ? atoi(argv[3]) : 25;
    int *rowp = malloc((size_t)(n + 1) * sizeof(int));
    int *col = malloc((size_t)n * (nz + 1) * sizeof(int));
    double *val = malloc((size_t)n * (nz + 1) * sizeof(double));
    double *x = malloc(n * sizeof(double)), *r = malloc(n * sizeof(double));
    double *p = malloc(n * sizeof(double)), *q = malloc(n * sizeof(double));
    uint64_t seed = 12345;

    if (!rowp || !col || !val || !x || !r || !p || !q)
        return 1;
    for (int i = 0, k = 0; i < n; i++) { /* serial build: reproducible */
        rowp[i] = k;
        col[k] = i, val[k++] = nz + 1.0;
        for (int j = 0; j < nz; j++) {
            col[k] = (int)(next(&seed) % (uint64_t)n);
            val[k++] = -0.5 + (double)(next(&seed) % 1000) / 2000.0;
        }
        rowp[i + 1] = k;
    }
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        x[i] = 0, r[i] = 1.0, p[i] = 1.0, q[i] = 0;
    double rho = n, t0 = omp_get_wtime();
    for (int it = 0; it < iters; it++) {
        double pq = 0, rho2 = 0;
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = rowp[i]; k < rowp[i + 1]; k++)
                s += val[k] * p[col[k]];
            q[i] = s;
        }
#pragma omp parallel for schedule(static) reduction(+ : pq)
        for (int i = 0; i < n; i++)
            pq += p[i] * q[i];
        double alpha = rho / pq;
#pragma omp parallel for schedule(static) reduction(+ : rho2)
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
            rho2 += r[i] * r[i];
        }
        double beta = rho2 / rho;
        rho = rho2;
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++)
            p[i] = r[i] + beta * p[i];
    }
    double t1 = omp_get_wtime();
    printf("cg n=%d nz=%d iters=%d rnorm=%.6e\n", n, nz, iters, sqrt(rho));
    printf("time_s=%.6f\n", t1 - t0);
    return 0;
}
