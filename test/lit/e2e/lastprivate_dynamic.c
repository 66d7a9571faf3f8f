// lastprivate and linear under plain (nonmonotonic) dynamic and guided
// schedules, with loops long enough for work stealing. libomp 19 loses the
// sequentially last value here at 2+ threads, so the reference output is
// taken at 1 thread only: hcc must give the OpenMP answer at every count.
// RUN: %e2e --ref-threads 1 %s %t
#include <omp.h>

#include "e2e.h"

#define N 200000L

int main(void)
{
    for (int rep = 0; rep < 20; rep++) {
        long last = -1, lin = 0, cond = -1;
        double dlast = 0;
#pragma omp parallel for schedule(dynamic) lastprivate(last, dlast)
        for (long i = 0; i < N; i++) {
            last = 3 * i + 1;
            dlast = (double)i / 2;
        }
        CHECK(last == 3 * (N - 1) + 1, "dynamic lastprivate %ld", last);
        CHECK(dlast == (double)(N - 1) / 2, "dynamic lastprivate %g", dlast);
#pragma omp parallel for schedule(nonmonotonic : dynamic, 3) linear(lin : 2)
        for (long i = 0; i < N; i++)
            lin += 2;
        CHECK(lin == 2 * N, "dynamic linear %ld", lin);
#pragma omp parallel for schedule(guided) lastprivate(last)
        for (long i = 0; i < N; i++)
            last = i ^ 5;
        CHECK(last == ((N - 1) ^ 5), "guided lastprivate %ld", last);
        /* lastprivate(conditional:) takes the value of the last iteration
         * that assigned it, whichever thread ran it. Static chunks only:
         * clang 19's own lowering of it loses the value under any dynamic
         * schedule (monotonic too), with libomp and with hcc alike. */
#pragma omp parallel for schedule(static, 11) lastprivate(conditional : cond)
        for (long i = 0; i < N; i++)
            if (i % 1000 == 7)
                cond = i;
        CHECK(cond == N - 1000 + 7, "conditional lastprivate %ld", cond);
        if (rep == 0)
            printf("last=%ld dlast=%.1f lin=%ld cond=%ld\n", last, dlast, lin,
                   cond);
    }
    return e2e_finish("lastprivate_dynamic");
}
