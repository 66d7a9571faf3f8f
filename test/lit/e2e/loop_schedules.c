// Every schedule kind of a worksharing loop: each iteration must run exactly
// once, results land where the sequential loop puts them, and the reduction
// and lastprivate values are the sequential ones.
// RUN: %e2e --O0 %s %t
// RUN: %e2e --no-mpi --env OMP_SCHEDULE=dynamic,3 %s %t.dyn
// RUN: %e2e --no-mpi --env OMP_SCHEDULE=guided %s %t.guided
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define N 10007 /* prime, so no chunk size divides it */

static long out[N];
static int hits[N];

static long f(long i) { return (i * 7919) % 10009 - 5000; }

/* Checks one loop's effects and prints its fixed results. */
static void report(const char *kind, long sum, long last)
{
    long want_sum = 0;
    int once = 1;
    for (long i = 0; i < N; i++) {
        want_sum += f(i);
        once &= hits[i] == 1;
        CHECK(out[i] == f(i), "%s: out[%ld] = %ld, want %ld", kind, i, out[i],
              f(i));
    }
    CHECK(once, "%s: some iteration did not run exactly once", kind);
    CHECK(sum == want_sum, "%s: sum %ld, want %ld", kind, sum, want_sum);
    CHECK(last == N - 1, "%s: lastprivate %ld, want %d", kind, last, N - 1);
    printf("%-22s sum=%ld last=%ld hash=%016llx\n", kind, sum, last,
           (unsigned long long)e2e_hash_longs(out, N));
    memset(out, 0, sizeof out);
    memset(hits, 0, sizeof hits);
}

#define LOOP(kind, sched)                                                     \
    do {                                                                      \
        long sum = 0, last = -1;                                              \
        _Pragma(sched) for (long i = 0; i < N; i++)                           \
        {                                                                     \
            out[i] = f(i);                                                    \
            _Pragma("omp atomic") hits[i]++;                                  \
            sum += f(i);                                                      \
            last = i;                                                         \
        }                                                                     \
        report(kind, sum, last);                                              \
    } while (0)

int main(void)
{
    LOOP("static", "omp parallel for schedule(static) reduction(+:sum) lastprivate(last)");
    LOOP("static,1", "omp parallel for schedule(static, 1) reduction(+:sum) lastprivate(last)");
    LOOP("static,13", "omp parallel for schedule(static, 13) reduction(+:sum) lastprivate(last)");
    LOOP("monotonic:dynamic", "omp parallel for schedule(monotonic: dynamic) reduction(+:sum) lastprivate(last)");
    LOOP("monotonic:dynamic,17", "omp parallel for schedule(monotonic: dynamic, 17) reduction(+:sum) lastprivate(last)");
    LOOP("monotonic:guided", "omp parallel for schedule(monotonic: guided) reduction(+:sum) lastprivate(last)");
    LOOP("monotonic:guided,5", "omp parallel for schedule(monotonic: guided, 5) reduction(+:sum) lastprivate(last)");
    LOOP("monotonic:static,4", "omp parallel for schedule(monotonic: static, 4) reduction(+:sum) lastprivate(last)");
    LOOP("runtime", "omp parallel for schedule(runtime) reduction(+:sum) lastprivate(last)");
    LOOP("auto", "omp parallel for schedule(auto) reduction(+:sum) lastprivate(last)");
    LOOP("default", "omp parallel for reduction(+:sum) lastprivate(last)");

    /* Plain and nonmonotonic dynamic/guided: no lastprivate here (libomp 19
     * loses it under work stealing; lastprivate_dynamic.c covers hcc). */
    const char *kinds[] = {"dynamic", "dynamic,7", "nonmonotonic:dynamic",
                           "guided", "guided,9", "nonmonotonic:guided,3"};
    for (int k = 0; k < 6; k++) {
        long sum = 0;
#define BODY                                                                  \
    for (long i = 0; i < N; i++) {                                            \
        out[i] = f(i);                                                        \
        _Pragma("omp atomic") hits[i]++;                                      \
        sum += f(i);                                                          \
    }
        switch (k) {
        case 0:
#pragma omp parallel for schedule(dynamic) reduction(+ : sum)
            BODY break;
        case 1:
#pragma omp parallel for schedule(dynamic, 7) reduction(+ : sum)
            BODY break;
        case 2:
#pragma omp parallel for schedule(nonmonotonic : dynamic) reduction(+ : sum)
            BODY break;
        case 3:
#pragma omp parallel for schedule(guided) reduction(+ : sum)
            BODY break;
        case 4:
#pragma omp parallel for schedule(guided, 9) reduction(+ : sum)
            BODY break;
        case 5:
#pragma omp parallel for schedule(nonmonotonic : guided, 3) reduction(+ : sum)
            BODY break;
        }
        report(kinds[k], sum, N - 1);
    }

    /* schedule(runtime) under each kind set through the API. */
    omp_sched_t api[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided,
                         omp_sched_auto};
    for (int k = 0; k < 4; k++) {
        omp_set_schedule(api[k], k == 3 ? 0 : 5);
        omp_sched_t got;
        int chunk;
        omp_get_schedule(&got, &chunk);
        CHECK(got == api[k], "omp_get_schedule kind %d, want %d", got, api[k]);
        long sum = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : sum)
        BODY
        char name[32];
        snprintf(name, sizeof name, "set_schedule(%d)", (int)api[k]);
        report(name, sum, N - 1);
    }
    return e2e_finish("loop_schedules");
}
