/*
 * kernels.c - the HetProbe benchmark kernels (bench/hetprobe/run.sh).
 *
 *   kernels KERNEL SCALE REPS
 *
 * Every kernel is a worksharing loop with schedule(runtime), so the script
 * picks the schedule with OMP_SCHEDULE (static, dynamic, hetprobe,
 * hetprobe_i) and the static node split with HCRT_SCHED_CSR. Shared data
 * is written by the head between calls (as an application's serial phase
 * would), so other nodes' copies are stale at every call: the DSM-bound
 * kernels move data every time. Prints "KERNEL seconds checksum"; only the
 * parallel loops are timed. SCALE multiplies the problem size (1 = quick).
 * BENCH_CALLS=1 also prints each call's time ("call SECONDS") to stderr.
 *
 * compute-bound: ep, bs (Black-Scholes), kmeans (assignment), nbody
 * DSM-bound:     triad, stencil (rows then columns), spmv (CG-like), lu
 * irregular:     irreg (cost varies along the loop and between calls)
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double secs;

/* A timed block: TIMED_BEGIN ... TIMED_END (pragmas cannot sit in macro
 * arguments). */
#define TIMED_BEGIN                                                            \
    {                                                                          \
        double t0_ = omp_get_wtime();
#define TIMED_END                                                              \
    secs += omp_get_wtime() - t0_;                                             \
    if (getenv("BENCH_CALLS"))                                                 \
        fprintf(stderr, "call %.6f\n", omp_get_wtime() - t0_);                 \
    }

static double ep(long n, int reps)
{
    double total = 0;
    for (int r = 0; r < reps; r++) {
        long in = 0;
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime) reduction(+ : in)
            for (long i = 0; i < n; i++) {
                uint64_t x = (uint64_t)i * 2654435761u + (uint64_t)r;
                for (int k = 0; k < 64; k++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    double a = (double)(x >> 11) / 9007199254740992.0;
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    double b = (double)(x >> 11) / 9007199254740992.0;
                    in += a * a + b * b <= 1.0;
                }
            }
        TIMED_END
        total += (double)in;
    }
    return total;
}

static double cnd(double d)
{
    return 0.5 * erfc(-d / sqrt(2.0));
}

static double bs(long n, int reps)
{
    double *s = malloc(sizeof(double) * n), *k = malloc(sizeof(double) * n);
    double *t = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    double sum = 0;
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++)
            s[i] = 90 + (i % 21) + r, k[i] = 100, t[i] = 0.25 + (i % 7) * 0.25;
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime)
            for (long i = 0; i < n; i++) {
                double v = 0;
                for (int rep = 0; rep < 16; rep++) { /* a volatility scan */
                    double sig = 0.1 + 0.02 * rep, st = sig * sqrt(t[i]);
                    double d1 = (log(s[i] / k[i]) + (0.02 + sig * sig / 2) *
                                                        t[i]) / st;
                    v += s[i] * cnd(d1) -
                         k[i] * exp(-0.02 * t[i]) * cnd(d1 - st);
                }
                out[i] = v;
            }
        TIMED_END
        for (long i = 0; i < n; i += 97)
            sum += out[i];
    }
    free(s), free(k), free(t), free(out);
    return sum;
}

#define KM_K 32
#define KM_D 4
static double kmeans(long n, int reps)
{
    float *pt = malloc(sizeof(float) * n * KM_D);
    int *asg = malloc(sizeof(int) * n);
    static float cen[KM_K][KM_D];
    double sum = 0;
    for (long i = 0; i < n * KM_D; i++)
        pt[i] = (float)((i * 7919) % 1000) / 10.0f;
    for (int r = 0; r < reps; r++) {
        for (int c = 0; c < KM_K; c++)
            for (int d = 0; d < KM_D; d++)
                cen[c][d] = (float)((c * 37 + d * 11 + r) % 100);
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime)
            for (long i = 0; i < n; i++) {
                int best = 0;
                float bd = 1e30f;
                for (int it = 0; it < 8; it++) /* several distance passes */
                    for (int c = 0; c < KM_K; c++) {
                        float d2 = 0;
                        for (int d = 0; d < KM_D; d++) {
                            float x = pt[i * KM_D + d] - cen[c][d] - it * 1e-3f;
                            d2 += x * x;
                        }
                        if (d2 < bd)
                            bd = d2, best = c;
                    }
                asg[i] = best;
            }
        TIMED_END
        for (long i = 0; i < n; i += 13)
            sum += asg[i];
    }
    free(pt), free(asg);
    return sum;
}

static double nbody(long n, int reps)
{
    double *x = malloc(sizeof(double) * n * 3), *f = malloc(sizeof(double) * n);
    double sum = 0;
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n * 3; i++)
            x[i] = (double)((i * 7) % 1013) + r * 0.5;
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime)
            for (long i = 0; i < n; i++) {
                double acc = 0;
                for (long j = 0; j < n; j++) {
                    double dx = x[3 * j] - x[3 * i], dy = x[3 * j + 1] - x[3 * i + 1];
                    double dz = x[3 * j + 2] - x[3 * i + 2];
                    double d2 = dx * dx + dy * dy + dz * dz + 0.01;
                    acc += 1.0 / (d2 * sqrt(d2));
                }
                f[i] = acc;
            }
        TIMED_END
        for (long i = 0; i < n; i++)
            sum += f[i];
    }
    free(x), free(f);
    return sum;
}

static double triad(long n, int reps)
{
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    double *c = malloc(sizeof(double) * n), sum = 0;
    for (long i = 0; i < n; i++)
        c[i] = (double)(i % 10);
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++)
            b[i] = (double)(i % 7 + r);
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime)
            for (long i = 0; i < n; i++)
                a[i] = b[i] + 3.0 * c[i];
        TIMED_END
        for (long i = 0; i < n; i += 101)
            sum += a[i];
    }
    free(a), free(b), free(c);
    return sum;
}

/* Rows then columns: whichever way a node's share is cut, one of the two
 * sweeps needs the other nodes' rows. */
static double stencil(long n, int reps)
{
    double *g = malloc(sizeof(double) * n * n), sum = 0;
    for (long i = 0; i < n * n; i++)
        g[i] = (double)(i % 17);
    for (int r = 0; r < reps; r++) {
        g[0] += 1; /* the head touches the grid between calls */
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime)
            for (long i = 1; i < n - 1; i++)
                for (long j = 1; j < n - 1; j++)
                    g[i * n + j] = 0.5 * g[i * n + j] +
                                   0.25 * (g[i * n + j - 1] + g[i * n + j + 1]);
#pragma omp parallel for schedule(runtime)
            for (long j = 1; j < n - 1; j++)
                for (long i = 1; i < n - 1; i++)
                    g[i * n + j] = 0.5 * g[i * n + j] +
                                   0.25 * (g[(i - 1) * n + j] + g[(i + 1) * n + j]);
        TIMED_END
    }
    for (long i = 0; i < n * n; i += 37)
        sum += g[i];
    free(g);
    return sum;
}

#define SP_NNZ 16
static double spmv(long n, int reps)
{
    int *col = malloc(sizeof(int) * n * SP_NNZ);
    double *val = malloc(sizeof(double) * n * SP_NNZ);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    double sum = 0;
    for (long i = 0; i < n; i++) {
        x[i] = 1.0;
        for (int k = 0; k < SP_NNZ; k++) {
            col[i * SP_NNZ + k] = (int)((i + (long)k * k * 977 + k) % n);
            val[i * SP_NNZ + k] = 1.0 / (k + 1);
        }
    }
    for (int r = 0; r < reps; r++) {
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime)
            for (long i = 0; i < n; i++) {
                double s = 0;
                for (int k = 0; k < SP_NNZ; k++)
                    s += val[i * SP_NNZ + k] * x[col[i * SP_NNZ + k]];
                y[i] = s;
            }
#pragma omp parallel for schedule(runtime)
            for (long i = 0; i < n; i++)
                x[i] = y[i] / 3.4;
        TIMED_END
    }
    for (long i = 0; i < n; i += 7)
        sum += x[i];
    free(col), free(val), free(x), free(y);
    return sum;
}

static double lu(long n, int reps)
{
    double *a = malloc(sizeof(double) * n * n), sum = 0;
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                a[i * n + j] = i == j ? n + r : 1.0 / (1.0 + (double)(i + j));
        TIMED_BEGIN
            for (long k = 0; k < n - 1; k++) {
#pragma omp parallel for schedule(runtime)
                for (long i = k + 1; i < n; i++) {
                    double l = a[i * n + k] / a[k * n + k];
                    for (long j = k; j < n; j++)
                        a[i * n + j] -= l * a[k * n + j];
                }
            }
        TIMED_END
        for (long i = 0; i < n; i++)
            sum += a[i * n + i];
    }
    free(a);
    return sum;
}

/* Cost of iteration i at call r: a heavy band that moves with r. */
static double irreg(long n, int reps)
{
    double total = 0;
    for (int r = 0; r < reps; r++) {
        long lo = (n / 8) * (r % 8), hi = lo + n / 4;
        double s = 0;
        TIMED_BEGIN
#pragma omp parallel for schedule(runtime) reduction(+ : s)
            for (long i = 0; i < n; i++) {
                int work = i >= lo && i < hi ? 1500 : 30;
                uint64_t x = (uint64_t)i;
                for (int k = 0; k < work; k++)
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                s += (double)(x >> 40);
            }
        TIMED_END
        total += s;
    }
    return total;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        double (*fn)(long, int);
        long base;
    } k[] = {{"ep", ep, 400000},        {"bs", bs, 50000},
             {"kmeans", kmeans, 60000},  {"nbody", nbody, 4000},
             {"triad", triad, 4000000},  {"stencil", stencil, 2048},
             {"spmv", spmv, 1000000},    {"lu", lu, 384},
             {"irreg", irreg, 400000}};
    if (argc < 2) {
        fprintf(stderr, "usage: %s KERNEL [SCALE [REPS]]\n", argv[0]);
        return 2;
    }
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int reps = argc > 3 ? atoi(argv[3]) : 4;
    for (unsigned i = 0; i < sizeof(k) / sizeof(k[0]); i++)
        if (strcmp(argv[1], k[i].name) == 0) {
            long n = (long)((double)k[i].base * scale);
            if (k[i].fn == stencil || k[i].fn == lu || k[i].fn == nbody)
                n = (long)((double)k[i].base * sqrt(scale));
            double c = k[i].fn(n, reps);
            printf("%s %.6f %.6g\n", k[i].name, secs, c);
            return 0;
        }
    fprintf(stderr, "unknown kernel '%s'\n", argv[1]);
    return 2;
}
