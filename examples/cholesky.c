/*
 * cholesky.c - tiled Cholesky factorization as a graph of offloaded tasks.
 *
 * A symmetric positive definite matrix is stored as nt x nt tiles of bs x bs
 * doubles, each tile its own allocation (the lower triangle only). Every
 * tile kernel (potrf, trsm, syrk, gemm) is a `target nowait` task whose
 * `depend(in/inout)` items name the tiles it reads and updates, so the
 * right-looking algorithm becomes the classic DAG: with hcc the runtime
 * records it, places it on the nodes (HEFT) and moves the tiles between
 * them. The result is checked by rebuilding A = L L^T on the host.
 *
 *   hcc -O2 cholesky.c -o cholesky -lm
 *   hcrun -n 4 ./cholesky [tiles=6] [tile-size=48]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#pragma omp declare target
/* a := chol(a), lower triangle; the strict upper triangle is zeroed. */
static void potrf(int bs, double *a)
{
    for (int j = 0; j < bs; j++) {
        double d = a[j * bs + j];
        for (int k = 0; k < j; k++)
            d -= a[j * bs + k] * a[j * bs + k];
        d = sqrt(d);
        a[j * bs + j] = d;
        for (int i = j + 1; i < bs; i++) {
            double s = a[i * bs + j];
            for (int k = 0; k < j; k++)
                s -= a[i * bs + k] * a[j * bs + k];
            a[i * bs + j] = s / d;
            a[j * bs + i] = 0;
        }
    }
}

/* b := b L^-T with L = the lower triangle of l. */
static void trsm(int bs, const double *l, double *b)
{
    for (int i = 0; i < bs; i++)
        for (int j = 0; j < bs; j++) {
            double s = b[i * bs + j];
            for (int k = 0; k < j; k++)
                s -= b[i * bs + k] * l[j * bs + k];
            b[i * bs + j] = s / l[j * bs + j];
        }
}

/* c := c - a b^T (syrk when a == b: the caller passes the same tile). */
static void gemm(int bs, const double *a, const double *b, double *c)
{
    for (int i = 0; i < bs; i++)
        for (int j = 0; j < bs; j++) {
            double s = 0;
            for (int k = 0; k < bs; k++)
                s += a[i * bs + k] * b[j * bs + k];
            c[i * bs + j] -= s;
        }
}
#pragma omp end declare target

static int arg(int argc, char **argv, int i, int dflt, int lo, int hi)
{
    if (argc <= i)
        return dflt;
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end || v < lo || v > hi) {
        fprintf(stderr,
                "cholesky: argument %d ('%s') must be an integer in [%d, %d]\n"
                "usage: cholesky [tiles=6] [tile-size=48]\n",
                i, argv[i], lo, hi);
        exit(2);
    }
    return (int)v;
}

/* A(r, c) of the test matrix: diagonally dominant, symmetric, exact. */
static double aval(int r, int c, int n)
{
    if (r == c)
        return n + 1.0;
    return ((r * 7 + c * 7 + (r * c) % 5) % 11) / 16.0 - 0.25;
}

int main(int argc, char **argv)
{
    int nt = arg(argc, argv, 1, 6, 1, 64), bs = arg(argc, argv, 2, 48, 1, 1024);
    int n = nt * bs, bb = bs * bs;
    double **t = malloc((size_t)nt * nt * sizeof(double *));
#define T(i, j) t[(i) * nt + (j)]
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++) {
            T(i, j) = malloc(bb * sizeof(double));
            for (int r = 0; r < bs; r++)
                for (int c = 0; c < bs; c++)
                    T(i, j)[r * bs + c] = aval(i * bs + r, j * bs + c, n);
        }

#pragma omp parallel
#pragma omp single
    for (int k = 0; k < nt; k++) {
        double *akk = T(k, k);
#pragma omp target map(tofrom : akk[0 : bb]) depend(inout : akk[0]) nowait
        potrf(bs, akk);
        for (int i = k + 1; i < nt; i++) {
            double *aik = T(i, k);
#pragma omp target map(to : akk[0 : bb]) map(tofrom : aik[0 : bb])             \
    depend(in : akk[0]) depend(inout : aik[0]) nowait
            trsm(bs, akk, aik);
        }
        for (int i = k + 1; i < nt; i++) {
            double *aik = T(i, k), *aii = T(i, i);
#pragma omp target map(to : aik[0 : bb]) map(tofrom : aii[0 : bb])             \
    depend(in : aik[0]) depend(inout : aii[0]) nowait
            gemm(bs, aik, aik, aii);
            for (int j = k + 1; j < i; j++) {
                double *ajk = T(j, k), *aij = T(i, j);
#pragma omp target map(to : aik[0 : bb], ajk[0 : bb])                          \
    map(tofrom : aij[0 : bb]) depend(in : aik[0], ajk[0])                      \
    depend(inout : aij[0]) nowait
                gemm(bs, aik, ajk, aij);
            }
        }
    } /* the implicit barrier of single waits for every task */

    /* Residual max |A - L L^T| / max |A| over the lower triangle. */
    double res = 0, amax = 0, sum = 0;
    for (int r = 0; r < n; r++)
        for (int c = 0; c <= r; c++) {
            double s = 0;
            for (int k = 0; k <= c; k++)
                s += T(r / bs, k / bs)[(r % bs) * bs + k % bs] *
                     T(c / bs, k / bs)[(c % bs) * bs + k % bs];
            double a = aval(r, c, n);
            res = fmax(res, fabs(a - s));
            amax = fmax(amax, fabs(a));
            sum += T(r / bs, c / bs)[(r % bs) * bs + c % bs];
        }
    res /= amax;
    printf("cholesky: %dx%d tiles of %dx%d (n = %d), %d tasks\n", nt, nt, bs,
           bs, n, nt + nt * (nt - 1) / 2 * 2 + nt * (nt - 1) * (nt - 2) / 6);
    printf("cholesky: checksum of L %.12e\n", sum);
    printf("cholesky: residual |A - L L^T| / |A| %.3e: %s\n", res,
           res < 1e-12 ? "ok" : "FAILED");
    for (int i = 0; i < nt; i++)
        for (int j = 0; j <= i; j++)
            free(T(i, j));
    free(t);
    return res < 1e-12 ? 0 : 1;
}
