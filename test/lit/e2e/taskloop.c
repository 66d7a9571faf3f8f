// taskloop: default, grainsize, num_tasks (and the 5.1 strict modifier),
// collapse, reduction, in_reduction inside a taskgroup, lastprivate,
// firstprivate, nogroup with taskwait, and taskloop simd.
// RUN: %e2e --O0 %s %t
#include "e2e.h"

#include <omp.h>

#define N 10007

static long out[N];

static void check_out(const char *what)
{
    long bad = 0;
    for (long i = 0; i < N; i++)
        bad += out[i] != i * 3 + 1;
    CHECK(bad == 0, "%s: %ld wrong elements", what, bad);
    for (long i = 0; i < N; i++)
        out[i] = 0;
}

int main(void)
{
    long sum = 0, last = -1;
    int fp = 1;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop
        for (long i = 0; i < N; i++)
            out[i] = i * 3 + 1;
    }
    check_out("default");

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(100) firstprivate(fp) lastprivate(last)
        for (long i = 0; i < N; i++) {
            out[i] = i * 3 + fp;
            last = i;
        }
    }
    check_out("grainsize");
    CHECK(last == N - 1, "taskloop lastprivate %ld", last);

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop num_tasks(7) reduction(+ : sum)
        for (long i = 0; i < N; i++) {
            out[i] = i * 3 + 1;
            sum += i;
        }
    }
    check_out("num_tasks");
    CHECK(sum == (long)N * (N - 1) / 2, "taskloop reduction %ld", sum);

#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop grainsize(strict : 64)
        for (long i = 0; i < N; i++)
            out[i] = i * 3 + 1;
#pragma omp taskloop num_tasks(strict : 5)
        for (long i = 0; i < N; i += 2)
            out[i] += 0; /* a second pass must not disturb the first */
    }
    check_out("strict");

    /* collapse over a 2-D nest, negative step outer loop */
    static int grid[100][101];
    long gsum = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop collapse(2) grainsize(50) reduction(+ : gsum)
        for (int i = 99; i >= 0; i--)
            for (int j = 0; j < 101; j++) {
                grid[i][j] = i * 1000 + j;
                gsum += grid[i][j];
            }
    }
    long want = 0;
    for (int i = 0; i < 100; i++)
        for (int j = 0; j < 101; j++)
            want += i * 1000 + j;
    CHECK(gsum == want && grid[37][55] == 37055, "collapse %ld", gsum);

    /* in_reduction: taskloops contributing to an enclosing taskgroup */
    long tg = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : tg)
        {
#pragma omp taskloop in_reduction(+ : tg) nogroup grainsize(10)
            for (int i = 0; i < 1000; i++)
                tg += i;
#pragma omp task in_reduction(+ : tg)
            tg += 1000000;
        }
    }
    CHECK(tg == 499500 + 1000000, "in_reduction %ld", tg);

    /* nogroup: completion only guaranteed after taskwait */
#pragma omp parallel
#pragma omp single
    {
#pragma omp taskloop nogroup num_tasks(16)
        for (long i = 0; i < N; i++)
            out[i] = i * 3 + 1;
#pragma omp taskwait
        long bad = 0;
        for (long i = 0; i < N; i++)
            bad += out[i] != i * 3 + 1;
        CHECK(bad == 0, "nogroup+taskwait: %ld not done", bad);
    }
    check_out("nogroup");

    /* taskloop simd with a reduction; taskloop inside parallel by all
     * threads (each thread's loop runs fully). Each thread reduces into its
     * own variable: threads' taskloops reducing into one shared variable
     * would race on it (OpenMP leaves concurrent updates of an original
     * list item unsynchronized), so the total is summed atomically. */
    double ds = 0;
    long per = 0, team = 0;
#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp taskloop simd reduction(+ : ds) grainsize(256)
            for (int i = 0; i < N; i++)
                ds += (double)(i % 17);
        }
        long mine = 0;
#pragma omp taskloop reduction(+ : mine) num_tasks(3)
        for (int i = 0; i < 10; i++)
            mine += i;
#pragma omp atomic
        per += mine;
#pragma omp single
        team = omp_get_num_threads();
    }
    long wds = 0;
    for (int i = 0; i < N; i++)
        wds += i % 17;
    CHECK(ds == (double)wds && per == 45 * team, "simd %g per %ld of %ld",
          ds, per, team);
    printf("taskloop: sum=%ld last=%ld collapse=%ld in_reduction=%ld simd=%.0f\n",
           sum, last, gsum, tg, ds);
    return e2e_finish("taskloop");
}
