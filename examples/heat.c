/*
 * heat.c - 2-D heat diffusion: the first program to run with hcc.
 *
 * A plate starts cold with a hot spot; each step averages every cell with
 * its four neighbours (an explicit stencil). It is plain OpenMP: one
 * `parallel for` per step with a max reduction for the largest change.
 *
 *   hcc -O2 heat.c -o heat
 *   ./heat                          # one node, like any OpenMP program
 *   HCRT_STATS=1 hcrun -n 2 ./heat  # two nodes, with the statistics table
 *
 * The printed result is the same at any thread or node count: each cell's
 * new value depends only on the old field, the max reduction is exact in
 * any order, and the checksum is summed sequentially.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 512
#define NY 512
#define STEPS 200

/* Sequential sum and FNV hash of the field, so the result is exact. */
static void report(const double *u, double last_change)
{
    double sum = 0;
    unsigned long long h = 14695981039346656037ull;
    for (long k = 0; k < (long)NX * NY; k++) {
        sum += u[k];
        union {
            double d;
            unsigned long long b;
        } c = {u[k]};
        h = (h ^ c.b) * 1099511628211ull;
    }
    printf("heat: %dx%d grid, %d steps\n", NX, NY, STEPS);
    printf("heat: total heat %.6f, centre %.9f, last max change %.9f\n", sum,
           u[(NX / 2) * NY + NY / 2], last_change);
    printf("heat: checksum %016llx\n", h);
}

int main(void)
{
    double *u = calloc((size_t)NX * NY, sizeof(double));
    double *next = calloc((size_t)NX * NY, sizeof(double));
    if (!u || !next) {
        fprintf(stderr, "heat: out of memory\n");
        return 1;
    }
    /* a hot square in the middle */
    for (int i = NX / 2 - 20; i < NX / 2 + 20; i++)
        for (int j = NY / 2 - 20; j < NY / 2 + 20; j++)
            u[i * NY + j] = 1000.0;

    double change = 0;
    for (int step = 0; step < STEPS; step++) {
        change = 0;
#pragma omp parallel for reduction(max : change) schedule(static)
        for (int i = 1; i < NX - 1; i++)
            for (int j = 1; j < NY - 1; j++) {
                long k = (long)i * NY + j;
                double v = u[k] + 0.2 * (u[k - NY] + u[k + NY] + u[k - 1] +
                                         u[k + 1] - 4 * u[k]);
                next[k] = v;
                change = fmax(change, fabs(v - u[k]));
            }
        double *t = u;
        u = next;
        next = t;
    }
    report(u, change);
    free(u);
    free(next);
    return 0;
}
