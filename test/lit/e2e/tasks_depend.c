// Task dependences: a chain of order-sensitive updates, a diamond, a 2-D
// wavefront over array sections, inoutset and mutexinoutset groups, depobj
// objects and taskwait with depend. Any ordering violation changes a value.
// RUN: %e2e --O0 %s %t
#include <omp.h>

#include "e2e.h"

#define P 1000003L
#define B 12

int main(void)
{
    /* chain: x = x * 31 + i, order matters at every step */
    long x = 1, want = 1;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 500; i++) {
#pragma omp task depend(inout : x) firstprivate(i) shared(x)
        x = (x * 31 + i) % P;
    }
    for (int i = 0; i < 500; i++)
        want = (want * 31 + i) % P;
    CHECK(x == want, "chain %ld want %ld", x, want);

    /* diamond: a -> (b, c) -> d, repeated */
    long a = 0, b = 0, c = 0, d = 0, wd = 0;
#pragma omp parallel
#pragma omp single
    for (int r = 1; r <= 50; r++) {
#pragma omp task depend(out : a) depend(in : d) shared(a, d) firstprivate(r)
        a = d + r;
#pragma omp task depend(in : a) depend(out : b) shared(a, b)
        b = a * 2;
#pragma omp task depend(in : a) depend(out : c) shared(a, c)
        c = a * 3 + 1;
#pragma omp task depend(in : b, c) depend(out : d) shared(b, c, d)
        d = (b * 5 + c) % P;
    }
    for (int r = 1; r <= 50; r++) {
        long wa = wd + r;
        wd = (wa * 2 * 5 + wa * 3 + 1) % P;
    }
    CHECK(d == wd, "diamond %ld want %ld", d, wd);

    /* wavefront: block (i,j) after (i-1,j) and (i,j-1), array-section deps */
    static long grid[B][B];
    long wgrid[B][B];
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < B; i++)
        for (int j = 0; j < B; j++) {
#pragma omp task firstprivate(i, j) depend(in : grid[i > 0 ? i - 1 : i][j : 1], grid[i][j > 0 ? j - 1 : j : 1]) depend(out : grid[i][j : 1])
            {
                long up = i > 0 ? grid[i - 1][j] : 1;
                long left = j > 0 ? grid[i][j - 1] : 2;
                grid[i][j] = (up * 3 + left * 7 + i * B + j) % P;
            }
        }
    for (int i = 0; i < B; i++)
        for (int j = 0; j < B; j++) {
            long up = i > 0 ? wgrid[i - 1][j] : 1;
            long left = j > 0 ? wgrid[i][j - 1] : 2;
            wgrid[i][j] = (up * 3 + left * 7 + i * B + j) % P;
        }
    CHECK(grid[B - 1][B - 1] == wgrid[B - 1][B - 1], "wavefront %ld want %ld",
          grid[B - 1][B - 1], wgrid[B - 1][B - 1]);

    /* inoutset: the set's tasks may overlap each other, but not the writer
     * before or the reader after; mutexinoutset: one at a time. */
    long s = 0, seen_by_reader = -1, mutex_acc = 0, final_s = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task depend(out : s) shared(s)
        s = 1000;
        for (int i = 1; i <= 20; i++) {
#pragma omp task depend(inoutset : s) shared(s) firstprivate(i)
#pragma omp atomic
            s += i;
        }
#pragma omp task depend(in : s) shared(s, seen_by_reader)
        seen_by_reader = s;
#pragma omp task depend(out : s) shared(s, final_s)
        final_s = s = s * 2;
        for (int i = 1; i <= 30; i++) {
#pragma omp task depend(mutexinoutset : mutex_acc) shared(mutex_acc) firstprivate(i)
            mutex_acc = mutex_acc + i; /* not atomic: exclusion is the point */
        }
    }
    CHECK(seen_by_reader == 1210 && final_s == 2420 && mutex_acc == 465,
          "inoutset %ld %ld mutexinoutset %ld", seen_by_reader, final_s,
          mutex_acc);

    /* depobj and taskwait depend */
    long y = 5, z = 0;
#pragma omp parallel
#pragma omp single
    {
        omp_depend_t obj;
#pragma omp depobj(obj) depend(inout : y)
#pragma omp task depend(depobj : obj) shared(y)
        y = y * 7;
#pragma omp task depend(depobj : obj) shared(y)
        y = y + 1;
#pragma omp depobj(obj) destroy
#pragma omp task depend(in : y) depend(out : z) shared(y, z)
        z = y * 100;
#pragma omp taskwait depend(in : z)
        /* z is final here: the task writing it finished */
        y = z + 1;
    }
    CHECK(y == 3601 && z == 3600, "depobj/taskwait depend %ld %ld", y, z);
    printf("chain=%ld diamond=%ld wavefront=%ld inoutset=%ld,%ld mutex=%ld "
           "depobj=%ld\n",
           x, d, grid[B - 1][B - 1], seen_by_reader, final_s, mutex_acc, y);
    return e2e_finish("tasks_depend");
}
