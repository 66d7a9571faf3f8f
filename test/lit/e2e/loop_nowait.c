// nowait: two static loops with the same bounds and chunking map iterations
// to the same threads (OpenMP 5.1 2.11.4), so the second may read what the
// first wrote without a barrier. Also orphaned worksharing in a function
// called inside and outside a region, parallel if(0), num_threads, nested
// regions and single nowait.
// RUN: %e2e %s %t
#include <omp.h>

#include "e2e.h"

#define N 4099

static double a[N], b[N], c[N];

/* Orphaned: binds to the caller's team, or runs sequentially outside one. */
static void scale(double *x, long n, double k)
{
#pragma omp for schedule(static)
    for (long i = 0; i < n; i++)
        x[i] *= k;
}

int main(void)
{
    int bad = 0;
#pragma omp parallel reduction(+ : bad)
    {
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++)
            a[i] = i * 0.5;
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++)
            b[i] = a[i] + 1; /* same thread wrote a[i]: no barrier needed */
#pragma omp for schedule(static, 8) nowait
        for (int i = 0; i < N; i++)
            c[i] = i;
#pragma omp for schedule(static, 8)
        for (int i = 0; i < N; i++)
            c[i] = c[i] * 2 + 1; /* same static,8 mapping */
        /* after the barrier every value is visible to every thread */
#pragma omp for schedule(static, 1) nowait
        for (int i = 0; i < N; i++)
            bad += c[N - 1 - i] != 2.0 * (N - 1 - i) + 1 ||
                   b[N - 1 - i] != (N - 1 - i) * 0.5 + 1;
    }
    CHECK(bad == 0, "nowait mapping: %d wrong values", bad);
    printf("nowait: b=%016llx c=%016llx\n",
           (unsigned long long)e2e_hash_doubles(b, N),
           (unsigned long long)e2e_hash_doubles(c, N));

    bad = 0;
    scale(a, N, 2.0); /* outside any region */
#pragma omp parallel
    scale(a, N, 3.0); /* orphaned for binds to this team */
    for (int i = 0; i < N; i++)
        bad += a[i] != i * 0.5 * 6.0;
    CHECK(bad == 0, "orphaned for: %d wrong values", bad);

    int in_parallel = -1, team = -1;
#pragma omp parallel if (0)
    {
        in_parallel = omp_in_parallel();
        team = omp_get_num_threads();
    }
    CHECK(in_parallel == 0 && team == 1, "if(0): in_parallel %d team %d",
          in_parallel, team);

    int sized = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp single
        sized = omp_get_num_threads();
    }
    CHECK(sized >= 1 && sized <= 2, "num_threads(2): team of %d", sized);

    /* Nested regions: the inner one is inactive unless levels allow it,
     * either way each inner iteration runs once. */
    long nested = 0;
#pragma omp parallel for reduction(+ : nested) schedule(static)
    for (int i = 0; i < 8; i++) {
        long inner = 0;
#pragma omp parallel for reduction(+ : inner)
        for (int j = 0; j < 100; j++)
            inner += i * 100 + j;
        nested += inner;
    }
    CHECK(nested == 319600, "nested: %ld", nested);

    omp_set_max_active_levels(2);
    long nested2 = 0;
    int levels_ok = 1;
#pragma omp parallel num_threads(2) reduction(+ : nested2) reduction(& : levels_ok)
    {
        levels_ok &= omp_get_level() == 1;
#pragma omp parallel num_threads(2) reduction(+ : nested2) reduction(& : levels_ok)
        {
            levels_ok &= omp_get_level() == 2 && omp_get_ancestor_thread_num(0) == 0;
#pragma omp single nowait
            nested2 += 1;
        }
    }
    CHECK(levels_ok, "omp_get_level/ancestor wrong in nested regions");
    CHECK(nested2 >= 1 && nested2 <= 2, "nested singles %ld", nested2);
    printf("nested=%ld levels_ok=%d\n", nested, levels_ok);
    return e2e_finish("loop_nowait");
}
