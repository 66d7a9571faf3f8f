// collapse(2) and collapse(3) over rectangular and triangular nests, with
// lastprivate of every loop variable, under several schedules.
// RUN: %e2e --O0 %s %t
#include <string.h>

#include "e2e.h"

#define NI 37
#define NJ 29
#define NK 11

static int grid[NI][NJ][NK];
static int tri[NI][NI];

static void check_grid(const char *what, int depth)
{
    long sum = 0;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++) {
                int want = depth == 3 || k == 0 ? i * 10000 + j * 100 + k + 1 : 0;
                CHECK(grid[i][j][k] == want, "%s [%d][%d][%d] = %d", what, i, j,
                      k, grid[i][j][k]);
                sum += grid[i][j][k];
            }
    printf("%-24s sum=%ld hash=%016llx\n", what, sum,
           (unsigned long long)e2e_hash_ints(&grid[0][0][0], NI * NJ * NK));
    memset(grid, 0, sizeof grid);
}

int main(void)
{
    int li, lj, lk;
    long s;

#pragma omp parallel for collapse(2) schedule(static) lastprivate(li, lj)
    for (li = 0; li < NI; li++)
        for (lj = 0; lj < NJ; lj++)
            grid[li][lj][0] = li * 10000 + lj * 100 + 1;
    CHECK(li == NI && lj == NJ, "collapse(2) lastprivate %d %d", li, lj);
    check_grid("collapse(2) static", 2);

#pragma omp parallel for collapse(2) schedule(monotonic : dynamic, 5) lastprivate(li, lj)
    for (li = 0; li < NI; li++)
        for (lj = 0; lj < NJ; lj++)
            grid[li][lj][0] = li * 10000 + lj * 100 + 1;
    CHECK(li == NI && lj == NJ, "collapse(2) dynamic lastprivate %d %d", li, lj);
    check_grid("collapse(2) dynamic,5", 2);

#pragma omp parallel for collapse(3) schedule(static, 7) lastprivate(li, lj, lk)
    for (li = 0; li < NI; li++)
        for (lj = 0; lj < NJ; lj++)
            for (lk = 0; lk < NK; lk++)
                grid[li][lj][lk] = li * 10000 + lj * 100 + lk + 1;
    CHECK(li == NI && lj == NJ && lk == NK, "collapse(3) lastprivate %d %d %d",
          li, lj, lk);
    printf("collapse(3) last: %d %d %d\n", li, lj, lk);
    check_grid("collapse(3) static,7", 3);

    s = 0;
#pragma omp parallel for collapse(3) schedule(guided) reduction(+ : s)
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NJ; j++)
            for (int k = 0; k < NK; k++) {
                grid[i][j][k] = i * 10000 + j * 100 + k + 1;
                s += grid[i][j][k];
            }
    printf("collapse(3) guided reduction %ld\n", s);
    check_grid("collapse(3) guided", 3);

    /* Collapsed loops with negative steps and a non-unit stride. */
    s = 0;
#pragma omp parallel for collapse(2) schedule(dynamic, 3) reduction(+ : s)
    for (int i = NI - 1; i >= 0; i -= 2)
        for (int j = NJ; j > 0; j--)
            s += (long)i * j;
    long want = 0;
    for (int i = NI - 1; i >= 0; i -= 2)
        for (int j = NJ; j > 0; j--)
            want += (long)i * j;
    CHECK(s == want, "negative-step collapse %ld want %ld", s, want);
    printf("collapse(2) negative steps %ld\n", s);

    /* A triangular (non-rectangular, OpenMP 5.0) nest. */
#pragma omp parallel for collapse(2) schedule(static, 3)
    for (int i = 0; i < NI; i++)
        for (int j = i; j < NI; j++)
            tri[i][j] = i * NI + j + 1;
    long tsum = 0;
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NI; j++) {
            CHECK(tri[i][j] == (j >= i ? i * NI + j + 1 : 0), "tri[%d][%d]", i, j);
            tsum += tri[i][j];
        }
    printf("triangular collapse sum=%ld\n", tsum);
    return e2e_finish("loop_collapse");
}
