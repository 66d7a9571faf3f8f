/* The other file of the xfile_*.c tests (see flows.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "flows.h"

double grid[NROW];
static double *target;
static double sbuf[NROW];

void norm_atomic(double rms[5])
{
    int m;
    double loc[5];
    for (m = 0; m < 5; m++)
        rms[m] = 0.0;
#pragma omp parallel private(m, loc) shared(rms)
    {
        for (m = 0; m < 5; m++)
            loc[m] = 0.0;
#pragma omp for nowait
        for (int k = 0; k < NROW; k++)
            for (m = 0; m < 5; m++)
                loc[m] += grid[k] * (m + 1);
        for (m = 0; m < 5; m++) {
#pragma omp atomic
            rms[m] += loc[m];
        }
    }
}

void norm_reduce(double rms[5])
{
    for (int m = 0; m < 5; m++)
        rms[m] = 0.0;
#pragma omp parallel for reduction(+ : rms[:5])
    for (int k = 0; k < NROW; k++)
        for (int m = 0; m < 5; m++)
            rms[m] += grid[k] * (m + 1);
}

void norm_critical(struct work *w)
{
#pragma omp parallel
    {
        double loc[5] = {0};
#pragma omp for
        for (int k = 0; k < w->n; k++)
            for (int m = 0; m < 5; m++)
                loc[m] += grid[k] * (m + 1);
#pragma omp critical
        {
            for (int m = 0; m < 5; m++)
                w->out[m] += loc[m];
            (*w->count)++;
        }
    }
}

void set_target(double *p)
{
    target = p;
}

void fill_target(int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        target[i] = 2.0 * i;
}

void make_buffer(double **out, int n)
{
    *out = calloc((size_t)n, sizeof(double));
}

void static_buffer(double **out)
{
    *out = sbuf;
}

double sum_buffer(const double *p, int n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += p[i];
    return s;
}

void apply(cb_t cb, void *ctx, int n)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < n; i++)
        cb(ctx, i);
}

/* Each thread sorts one run with qsort (the caller's comparator), then the
 * runs are merged pairwise in serial code. */
void psort(void *base, size_t n, size_t size,
           int (*cmp)(const void *, const void *))
{
    enum { RUNS = 8 };
    size_t run = (n + RUNS - 1) / RUNS;
#pragma omp parallel for
    for (int r = 0; r < RUNS; r++) {
        size_t lo = r * run, hi = lo + run > n ? n : lo + run;
        if (lo < hi)
            qsort((char *)base + lo * size, hi - lo, size, cmp);
    }
    char *tmp = malloc(n * size), *b = base;
    for (size_t w = run; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
            while (i < mid || j < hi) {
                if (j >= hi || (i < mid && cmp(b + i * size, b + j * size) <= 0))
                    memcpy(tmp + k++ * size, b + i++ * size, size);
                else
                    memcpy(tmp + k++ * size, b + j++ * size, size);
            }
        }
        memcpy(b, tmp, n * size);
    }
    free(tmp);
}
