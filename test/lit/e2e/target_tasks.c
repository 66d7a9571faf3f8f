// Asynchronous offload: target nowait with depend chains and a diamond over
// separate buffers, enter/update/exit data nowait with depend, many
// independent target tasks joined by taskwait, target tasks created by
// several threads, and plain tasks depending on target tasks.
// RUN: %e2e --target %s %t
#include <stdlib.h>

#include "e2e.h"

#define N 1024
#define P 1000003L

static void kernel_scale(long *x, long mul, long add)
{
#pragma omp target map(tofrom : x[0:N]) depend(inout : x[0]) nowait
    for (int i = 0; i < N; i++)
        x[i] = (x[i] * mul + add + i) % P;
}

int main(void)
{
    long *a = malloc(N * sizeof(long)), *b = malloc(N * sizeof(long));
    long *c = malloc(N * sizeof(long)), *d = malloc(N * sizeof(long));
    long *w = malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        a[i] = w[i] = i;

    /* chain: order-sensitive updates of one buffer */
#pragma omp parallel
#pragma omp single
    {
        for (int r = 1; r <= 8; r++)
            kernel_scale(a, r + 1, r);
#pragma omp taskwait
    }
    for (int r = 1; r <= 8; r++)
        for (int i = 0; i < N; i++)
            w[i] = (w[i] * (r + 1) + r + i) % P;
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += a[i] != w[i];
    CHECK(bad == 0, "target chain: %ld wrong", bad);

    /* diamond: a -> (b, c) -> d */
#pragma omp parallel
#pragma omp single
    {
#pragma omp target map(tofrom : a[0:N]) depend(inout : a[0]) nowait
        for (int i = 0; i < N; i++)
            a[i] = a[i] % 1000;
#pragma omp target map(to : a[0:N]) map(from : b[0:N]) depend(in : a[0]) depend(out : b[0]) nowait
        for (int i = 0; i < N; i++)
            b[i] = a[i] * 2;
#pragma omp target map(to : a[0:N]) map(from : c[0:N]) depend(in : a[0]) depend(out : c[0]) nowait
        for (int i = 0; i < N; i++)
            c[i] = a[i] + 7;
#pragma omp target map(to : b[0:N], c[0:N]) map(from : d[0:N]) depend(in : b[0], c[0]) depend(out : d[0]) nowait
        for (int i = 0; i < N; i++)
            d[i] = b[i] * c[i];
        /* a host task consuming the last target's output */
#pragma omp task depend(in : d[0]) shared(bad)
        for (int i = 0; i < N; i++)
            bad += d[i] != (w[i] % 1000) * 2 * (w[i] % 1000 + 7);
#pragma omp taskwait
    }
    CHECK(bad == 0, "target diamond: %ld wrong", bad);

    /* data movement as tasks: enter, update, exit with nowait + depend */
    long *e = malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        e[i] = i;
#pragma omp parallel
#pragma omp single
    {
#pragma omp target enter data map(to : e[0:N]) depend(out : e[0]) nowait
#pragma omp target depend(inout : e[0]) nowait
        for (int i = 0; i < N; i++)
            e[i] *= 3;
#pragma omp target update from(e[0:N]) depend(inout : e[0]) nowait
#pragma omp task depend(inout : e[0])
        for (int i = 0; i < N; i++)
            e[i] += 1; /* host side */
#pragma omp target update to(e[0:N]) depend(inout : e[0]) nowait
#pragma omp target depend(inout : e[0]) nowait
        for (int i = 0; i < N; i++)
            e[i] *= 2;
#pragma omp target exit data map(from : e[0:N]) depend(inout : e[0]) nowait
#pragma omp taskwait
    }
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += e[i] != (i * 3 + 1) * 2;
    CHECK(bad == 0, "data tasks: %ld wrong", bad);

    /* many independent target tasks on disjoint slices */
    enum { SL = 16 };
    long *big = calloc(SL * N, sizeof(long));
#pragma omp parallel
#pragma omp single
    {
        for (int s = 0; s < SL; s++) {
            long *p = big + (long)s * N;
#pragma omp target map(from : p[0:N]) depend(out : p[0]) nowait firstprivate(s)
            for (int i = 0; i < N; i++)
                p[i] = (long)s * N + i;
        }
#pragma omp taskwait
    }
    bad = 0;
    for (long i = 0; i < SL * N; i++)
        bad += big[i] != i;
    CHECK(bad == 0, "independent targets: %ld wrong", bad);

    /* target tasks from every thread of a team */
    long sums[64] = {0};
#pragma omp parallel for schedule(dynamic)
    for (int t = 0; t < 64; t++) {
        long s = 0;
#pragma omp target map(to : big[t * 256 : 256]) map(tofrom : s)
        for (int i = 0; i < 256; i++)
            s += big[t * 256 + i];
        sums[t] = s;
    }
    long total = 0;
    for (int t = 0; t < 64; t++)
        total += sums[t];
    CHECK(total == 16384L * 16383 / 2, "targets from a team: %ld", total);

    printf("target_tasks: chain=%016llx d=%016llx e=%016llx big=%016llx "
           "total=%ld\n",
           (unsigned long long)e2e_hash_longs(a, N),
           (unsigned long long)e2e_hash_longs(d, N),
           (unsigned long long)e2e_hash_longs(e, N),
           (unsigned long long)e2e_hash_longs(big, SL * N), total);
    free(a), free(b), free(c), free(d), free(e), free(w), free(big);
    return e2e_finish("target_tasks");
}
