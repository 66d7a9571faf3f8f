/*
 * awave.c - multi-shot 2-D acoustic reverse-time migration (RTM), one
 * offloaded task per shot, in the style of OMPC's Awave benchmark.
 *
 * For every shot a `target nowait` task propagates a Ricker wavelet through
 * a layered velocity model (2nd order in time, 8th order in space, a sponge
 * border), records the pressure at a line of receivers, then propagates the
 * recorded traces backwards in time and correlates the two wavefields into
 * the shot's image. A second task per shot adds that image to the stacked
 * image; `depend(inout:)` on the stack keeps the sum in shot order, so the
 * result does not depend on where or when the shots ran. With hcc each
 * worker node is a device: shots are placed by HEFT and the velocity model,
 * mapped once with `target enter data`, is spread to the workers.
 *
 *   hcc -O2 awave.c -o awave -lm
 *   hcrun -n 4 ./awave [shots=4] [n=96] [steps=400]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R 4        /* stencil radius: 8th order in space */
#define SPONGE 16  /* absorbing border width (points) */
#define SNAP 4     /* keep every SNAP-th forward wavefield for imaging */
#define H 10.0     /* grid spacing (m) */
#define DT 0.001   /* time step (s); v*DT/H <= 0.3 keeps the scheme stable */
#define FPEAK 15.0 /* Ricker peak frequency (Hz) */

#pragma omp declare target
/* Second-derivative weights, 8th order: c0 + 2 * sum(ck) = 0. */
static const double C[R + 1] = {-205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315,
                                -1.0 / 560};

/* One time step of p_next = 2 p - p_prev + (v dt/h)^2 lap(p), written over
 * prev (which then holds the new field). vv holds (v dt/h)^2. */
static void step(int n, const double *vv, const double *p, double *prev)
{
    for (int z = R; z < n - R; z++)
        for (int x = R; x < n - R; x++) {
            int i = z * n + x;
            double lap = 2 * C[0] * p[i];
            for (int k = 1; k <= R; k++)
                lap +=
                    C[k] * (p[i - k] + p[i + k] + p[i - k * n] + p[i + k * n]);
            prev[i] = 2 * p[i] - prev[i] + vv[i] * lap;
        }
}

/* Sponge: damp both time levels near the sides and the bottom. */
static void damp(int n, double *a, double *b)
{
    for (int z = 0; z < n; z++)
        for (int x = 0; x < n; x++) {
            int d = x < n - 1 - x ? x : n - 1 - x;
            d = d < n - 1 - z ? d : n - 1 - z;
            if (d >= SPONGE)
                continue;
            double g = 0.015 * (SPONGE - d);
            double f = exp(-g * g);
            a[z * n + x] *= f;
            b[z * n + x] *= f;
        }
}

/* Forward then backward propagation of one shot; img = sum over imaging
 * times of source field x receiver field; rec = the recorded traces. */
static void shot(int n, int nt, int sx, const double *vv, const double *wav,
                 double *rec, double *img)
{
    int nn = n * n, rz = R + 2, nsnap = nt / SNAP + 1;
    double *p = calloc(nn, sizeof(double)), *q = calloc(nn, sizeof(double));
    float *snap = malloc((size_t)nsnap * nn * sizeof(float));
    for (int t = 0; t < nt; t++) {
        step(n, vv, p, q); /* q := new field; swap */
        double *tmp = p;
        p = q;
        q = tmp;
        p[rz * n + sx] += wav[t];
        damp(n, p, q);
        memcpy(rec + (size_t)t * n, p + rz * n, n * sizeof(double));
        if (t % SNAP == 0)
            for (int i = 0; i < nn; i++)
                snap[(size_t)(t / SNAP) * nn + i] = (float)p[i];
    }
    memset(p, 0, nn * sizeof(double));
    memset(q, 0, nn * sizeof(double));
    memset(img, 0, nn * sizeof(double));
    for (int t = nt - 1; t >= 0; t--) {
        step(n, vv, p, q);
        double *tmp = p;
        p = q;
        q = tmp;
        for (int x = R; x < n - R; x++) /* inject the traces reversed */
            p[rz * n + x] += rec[(size_t)t * n + x];
        damp(n, p, q);
        if (t % SNAP == 0)
            for (int i = 0; i < nn; i++)
                img[i] += snap[(size_t)(t / SNAP) * nn + i] * p[i];
    }
    free(p);
    free(q);
    free(snap);
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
                "awave: argument %d ('%s') must be an integer in [%d, %d]\n"
                "usage: awave [shots=4] [n=96] [steps=400]\n",
                i, argv[i], lo, hi);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int ns = arg(argc, argv, 1, 4, 1, 256);
    int n = arg(argc, argv, 2, 96, 2 * SPONGE + 2 * R + 8, 2048);
    int nt = arg(argc, argv, 3, 400, 1, 100000);
    int nn = n * n;
    double *vv = malloc(nn * sizeof(double)),
           *wav = malloc(nt * sizeof(double));
    double *stack = calloc(nn, sizeof(double));
    double **img = malloc(ns * sizeof(double *)),
           **rec = malloc(ns * sizeof(double *));
    /* Three layers and a fast lens; stored as (v dt / h)^2. */
    for (int z = 0; z < n; z++)
        for (int x = 0; x < n; x++) {
            double v = z < n / 3 ? 1500 : z < 2 * n / 3 ? 2200 : 2800;
            double dx = x - n / 2.0, dz = z - n / 2.0;
            if (dx * dx + dz * dz < n * n / 64.0)
                v = 3000;
            vv[z * n + x] = (v * DT / H) * (v * DT / H);
        }
    for (int t = 0; t < nt; t++) { /* Ricker wavelet, delayed 1/FPEAK */
        double a = M_PI * FPEAK * (t * DT - 1.0 / FPEAK);
        wav[t] = (1 - 2 * a * a) * exp(-a * a);
    }
    for (int s = 0; s < ns; s++) {
        img[s] = malloc(nn * sizeof(double));
        rec[s] = malloc((size_t)nt * n * sizeof(double));
    }

#pragma omp parallel
#pragma omp single
    {
#pragma omp target enter data map(to : vv[0 : nn], wav[0 : nt])
        for (int s = 0; s < ns; s++) {
            int sx = SPONGE + (int)((n - 2 * SPONGE) * (s + 0.5) / ns);
            double *im = img[s], *rc = rec[s];
#pragma omp target map(to : vv[0 : nn], wav[0 : nt])                           \
    map(from : im[0 : nn], rc[0 : nt * n]) depend(out : im[0]) nowait
            shot(n, nt, sx, vv, wav, rc, im);
#pragma omp target map(to : im[0 : nn]) map(tofrom : stack[0 : nn])            \
    depend(in : im[0]) depend(inout : stack[0]) nowait
            for (int i = 0; i < nn; i++)
                stack[i] += im[i];
        }
#pragma omp taskwait
#pragma omp target exit data map(release : vv[0 : nn], wav[0 : nt])
    }

    for (int s = 0; s < ns; s++) {
        double e = 0;
        for (size_t i = 0; i < (size_t)nt * n; i++)
            e += rec[s][i] * rec[s][i];
        printf("awave: shot %d traces energy %.9e\n", s, e);
    }
    double sum = 0, peak = 0;
    for (int i = 0; i < nn; i++) {
        sum += stack[i];
        peak = fabs(stack[i]) > peak ? fabs(stack[i]) : peak;
    }
    printf("awave: %d shots, %dx%d grid, %d steps: image sum %.9e max %.9e\n",
           ns, n, n, nt, sum, peak);
    for (int s = 0; s < ns; s++) {
        free(img[s]);
        free(rec[s]);
    }
    free(img);
    free(rec);
    free(vv);
    free(wav);
    free(stack);
    return 0;
}
