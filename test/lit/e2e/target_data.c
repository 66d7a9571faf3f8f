// Device data environments: target data with nested targets, target update
// to/from, enter data (to, alloc) / exit data (from, release, delete),
// presence reference counts (no copy for data already present), the
// always modifier, declare target globals and data used across functions.
// RUN: %e2e --target --O0 %s %t
#include <stdlib.h>

#include "e2e.h"

#define N 2048

#pragma omp declare target
long dt_table[64];
static long dt_lookup(int i) { return dt_table[i % 64] * 2; }
#pragma omp end declare target

/* Creates the device copy that step() finds present. (Global pointers in
 * map clauses are covered by target_global_ptr.c.) */
static long *setup(void)
{
    long *persist = malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        persist[i] = i;
#pragma omp target enter data map(to : persist[0:N])
    return persist;
}

static void step(long *persist, int r)
{
#pragma omp target map(alloc : persist[0:N]) firstprivate(r)
    for (int i = 0; i < N; i++)
        persist[i] = persist[i] * 2 + r;
}

int main(void)
{
    double *a = malloc(N * sizeof(double));
    double *b = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 0;
    }

    long bad = 0;
    double host_view = 0;
#pragma omp target data map(to : a[0:N]) map(from : b[0:N])
    {
#pragma omp target
        for (int i = 0; i < N; i++)
            b[i] = a[i] + 1;
        /* b is only guaranteed on the host after update from */
#pragma omp target update from(b[0:N])
        host_view = b[N - 1];
        for (int i = 0; i < N; i++)
            a[i] = b[i] * 10; /* host writes a, then pushes it */
#pragma omp target update to(a[0:N])
#pragma omp target
        for (int i = 0; i < N; i++)
            b[i] = a[i] - 5;
        /* a nested data region on present data: no copy in or out */
#pragma omp target data map(tofrom : b[0:N])
        {
#pragma omp target
            for (int i = 0; i < N; i++)
                b[i] += 1;
        }
    } /* b copied back here */
    for (int i = 0; i < N; i++)
        bad += b[i] != (i + 1) * 10.0 - 4;
    CHECK(bad == 0 && host_view == N, "target data/update: %ld wrong, %g", bad,
          host_view);

    /* enter/exit data across function boundaries */
    long *persist = setup();
    for (int r = 1; r <= 3; r++)
        step(persist, r);
#pragma omp target exit data map(from : persist[0:N])
    bad = 0;
    for (int i = 0; i < N; i++)
        bad += persist[i] != ((((long)i * 2 + 1) * 2 + 2) * 2 + 3);
    CHECK(bad == 0, "enter/exit data: %ld wrong", bad);

    /* reference counting: two enters need two exits; the data comes back
     * only when the count drops to zero (with from) */
    long *rc = calloc(N, sizeof(long));
#pragma omp target enter data map(to : rc[0:N])
#pragma omp target enter data map(to : rc[0:N])
#pragma omp target
    for (int i = 0; i < N; i++)
        rc[i] = i + 7;
#pragma omp target exit data map(release : rc[0:N])
#pragma omp target update from(rc[0:N])
    long seen = rc[N - 1];
#pragma omp target exit data map(from : rc[0:N])
    CHECK(seen == N + 6 && rc[0] == 7, "refcount: %ld %ld", seen, rc[0]);

    /* alloc on enter, delete on exit: device-only scratch */
    long *scr = malloc(N * sizeof(long));
    long total = 0;
#pragma omp target enter data map(alloc : scr[0:N])
#pragma omp target map(tofrom : total)
    {
        for (int i = 0; i < N; i++)
            scr[i] = i % 10;
        for (int i = 0; i < N; i++)
            total += scr[i];
    }
#pragma omp target exit data map(delete : scr[0:N])

    /* always: forces a copy even though the data is present */
    long v[4] = {1, 2, 3, 4};
#pragma omp target data map(to : v)
    {
        v[0] = 100; /* host change, pushed by always */
#pragma omp target map(always, to : v) map(from : total)
        total = v[0] + v[3];
    }
    CHECK(total == 104, "always modifier: %ld", total);

    /* declare target globals: update the device copy, use it in a target
     * calling a declare-target function */
    for (int i = 0; i < 64; i++)
        dt_table[i] = i * i;
#pragma omp target update to(dt_table)
    long lsum = 0;
#pragma omp target map(tofrom : lsum)
    for (int i = 0; i < 640; i++)
        lsum += dt_lookup(i);
    long want = 0;
    for (int i = 0; i < 640; i++)
        want += (long)(i % 64) * (i % 64) * 2;
    CHECK(lsum == want, "declare target: %ld want %ld", lsum, want);

    printf("target_data: b=%016llx host_view=%.0f persist=%016llx seen=%ld "
           "always=%ld declare=%ld\n",
           (unsigned long long)e2e_hash_doubles(b, N), host_view,
           (unsigned long long)e2e_hash_longs(persist, N), seen, total, lsum);
    free(a);
    free(b);
    free(persist);
    free(rc);
    free(scr);
    return e2e_finish("target_data");
}
