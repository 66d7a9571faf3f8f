/*
 * pipeline.c - a task graph of offloaded kernels.
 *
 * A signal is cut into blocks; each block goes through three stages
 * (smooth, scale, square) as `target nowait` tasks whose `depend` clauses
 * chain the stages of one block while different blocks run concurrently.
 * With hcc the tasks become a graph that is placed on nodes (HEFT) and the
 * mapped buffers move between nodes as the dependences require.
 *
 *   hcc -O2 pipeline.c -o pipeline && HCRT_STATS=1 hcrun -n 2 ./pipeline
 */
#include <stdio.h>
#include <stdlib.h>

#define BLOCKS 8
#define LEN 65536

static void stage_smooth(double *x, double *y)
{
#pragma omp target map(to : x[0 : LEN]) map(from : y[0 : LEN])                 \
    depend(in : x[0]) depend(out : y[0]) nowait
    for (int i = 0; i < LEN; i++) {
        double l = x[i > 0 ? i - 1 : i], r = x[i < LEN - 1 ? i + 1 : i];
        y[i] = (l + 2 * x[i] + r) * 0.25;
    }
}

static void stage_scale(double *y, double k)
{
#pragma omp target map(tofrom : y[0 : LEN]) depend(inout : y[0]) nowait
    for (int i = 0; i < LEN; i++)
        y[i] *= k;
}

static void stage_square(double *y, double *out)
{
#pragma omp target map(to : y[0 : LEN]) map(tofrom : out[0 : 1])               \
    depend(in : y[0]) depend(inout : out[0]) nowait
    {
        double s = 0;
        for (int i = 0; i < LEN; i++)
            s += y[i] * y[i];
        out[0] = s;
    }
}

int main(void)
{
    double *in[BLOCKS], *mid[BLOCKS], energy[BLOCKS];
    for (int b = 0; b < BLOCKS; b++) {
        in[b] = malloc(LEN * sizeof(double));
        mid[b] = malloc(LEN * sizeof(double));
        for (int i = 0; i < LEN; i++)
            in[b][i] = (double)((i * 37 + b * 11) % 64) / 8.0; /* exact */
        energy[b] = 0;
    }
#pragma omp parallel
#pragma omp single
    {
        for (int b = 0; b < BLOCKS; b++) {
            stage_smooth(in[b], mid[b]);
            stage_scale(mid[b], 0.5 + b);
            stage_square(mid[b], &energy[b]);
        }
#pragma omp taskwait
    }
    double total = 0;
    for (int b = 0; b < BLOCKS; b++) {
        printf("pipeline: block %d energy %.6f\n", b, energy[b]);
        total += energy[b];
        free(in[b]);
        free(mid[b]);
    }
    printf("pipeline: %d blocks x %d samples, total energy %.6f\n", BLOCKS, LEN,
           total);
    return 0;
}
