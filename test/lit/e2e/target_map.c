// target regions with map(to), map(from), map(tofrom), map(alloc), implicit
// firstprivate scalars, mapped structs, heap and stack arrays, globals,
// target if(0) and target teams distribute parallel for with reductions.
// Written to be correct under separate device memory: device writes are
// only read after they are mapped back, to-only data is never modified.
// RUN: %e2e --target --O0 %s %t
#include <stdlib.h>

#include "e2e.h"

#define N 4096

static double g_in[N], g_out[N];

typedef struct {
    int n;
    double scale;
    long acc[8];
} params_t;

int main(void)
{
    double *in = malloc(N * sizeof(double));
    double *out = malloc(N * sizeof(double));
    long stack_in[N], stack_out[N];
    for (int i = 0; i < N; i++) {
        in[i] = i % 100;
        stack_in[i] = i * 3;
        g_in[i] = i * 0.5;
        out[i] = -1;
    }

    /* to + from on heap arrays, implicit firstprivate scalar */
    double k = 3.0;
#pragma omp target map(to : in[0:N]) map(from : out[0:N])
    for (int i = 0; i < N; i++)
        out[i] = in[i] * k + 1;
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += out[i] != (i % 100) * 3.0 + 1;
    CHECK(bad == 0, "to/from: %ld wrong", bad);

    /* tofrom on a stack array and a scalar; alloc as device scratch */
    long counter = 10;
    long scratch[256];
#pragma omp target map(tofrom : stack_out[0:N], counter) map(to : stack_in[0:N]) map(alloc : scratch[0:256])
    {
        for (int j = 0; j < 256; j++)
            scratch[j] = j * j; /* alloc: contents undefined until written */
        for (int i = 0; i < N; i++)
            stack_out[i] = stack_in[i] + scratch[i % 256];
        counter += N;
    }
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += stack_out[i] != i * 3 + (long)(i % 256) * (i % 256);
    CHECK(bad == 0 && counter == 10 + N, "tofrom/alloc: %ld wrong, %ld", bad,
          counter);

    /* globals, implicitly mapped tofrom as the program uses them */
#pragma omp target
    for (int i = 0; i < N; i++)
        g_out[i] = g_in[i] * 4;
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += g_out[i] != i * 2.0;
    CHECK(bad == 0, "globals: %ld wrong", bad);

    /* a struct mapped tofrom */
    params_t p = {N, 0.5, {0}};
#pragma omp target map(tofrom : p) map(to : in[0:N])
    for (int i = 0; i < p.n; i++)
        p.acc[i % 8] += (long)(in[i] * p.scale * 2);
    long want_acc[8] = {0};
    for (int i = 0; i < N; i++)
        want_acc[i % 8] += (long)(in[i]);
    int same = 1;
    for (int j = 0; j < 8; j++)
        same &= p.acc[j] == want_acc[j];
    CHECK(same, "struct map");

    /* target if(0): runs on the host */
    long host_side = 0;
#pragma omp target if (0) map(tofrom : host_side)
    host_side = 77;
    CHECK(host_side == 77, "target if(0): %ld", host_side);

    /* combined constructs with reductions */
    double dsum = 0;
    long lmax = 0, lsum = 0;
#pragma omp target teams distribute parallel for map(to : in[0:N]) reduction(+ : dsum) reduction(max : lmax)
    for (int i = 0; i < N; i++) {
        dsum += in[i];
        lmax = (long)in[i] * i > lmax ? (long)in[i] * i : lmax;
    }
#pragma omp target parallel for map(to : stack_in[0:N]) reduction(+ : lsum)
    for (int i = 0; i < N; i++)
        lsum += stack_in[i];
    double wsum = 0;
    long wmax = 0;
    for (int i = 0; i < N; i++) {
        wsum += in[i];
        wmax = (long)in[i] * i > wmax ? (long)in[i] * i : wmax;
    }
    CHECK(dsum == wsum && lmax == wmax && lsum == 3L * N * (N - 1) / 2,
          "target reductions %g %ld %ld", dsum, lmax, lsum);

    /* target teams + distribute with a collapse */
    static int grid[64][64];
#pragma omp target teams distribute parallel for collapse(2) map(from : grid)
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++)
            grid[i][j] = i * 64 + j;
    CHECK(grid[63][63] == 4095 && grid[10][5] == 645, "teams collapse");

    printf("target_map: out=%016llx stack=%016llx g=%016llx counter=%ld\n",
           (unsigned long long)e2e_hash_doubles(out, N),
           (unsigned long long)e2e_hash_longs(stack_out, N),
           (unsigned long long)e2e_hash_doubles(g_out, N), counter);
    printf("struct=%016llx dsum=%.1f lmax=%ld lsum=%ld grid=%016llx\n",
           (unsigned long long)e2e_hash_longs(p.acc, 8), dsum, lmax, lsum,
           (unsigned long long)e2e_hash_ints(&grid[0][0], 64 * 64));
    free(in);
    free(out);
    return e2e_finish("target_map");
}
