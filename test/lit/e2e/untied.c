// Untied tasks: nested in taskgroups, creating tasks with taskwait and
// taskyield inside loops, undeferred (if(0)), and untied taskloops.
// clang-19's libomp hangs on the taskgroup tree at 3+ threads (most runs)
// and aborts on an if(0) untied task that creates tasks (td_last_tied is
// NULL), so the reference drops `untied` from that one task and runs at 1
// and 2 threads only; hcc runs the program as written at every count.
// RUN: %e2e --O0 --ref-threads "1 2" --ref-flags "-DIF0_UNTIED=" %s %t
#include <omp.h>

#include "e2e.h"

#ifndef IF0_UNTIED
#define IF0_UNTIED untied
#endif

static void tree(long *acc, int depth, long id)
{
#pragma omp atomic
    *acc += id;
    if (depth == 0)
        return;
#pragma omp taskgroup
    {
#pragma omp task untied
        tree(acc, depth - 1, id * 2);
#pragma omp task untied
        tree(acc, depth - 1, id * 2 + 1);
    }
}

int main(void)
{
    long acc = 0;
    for (int r = 0; r < 8; r++) {
#pragma omp parallel
#pragma omp single nowait
        tree(&acc, 10, 1);
    }
    CHECK(acc == 8 * (2047L * 2048 / 2), "tree %ld", acc);

    long s = 0, t = 0, u = 0, v = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp task untied shared(s)
        {
            for (int i = 0; i < 1000; i++) {
#pragma omp task shared(s) firstprivate(i)
#pragma omp atomic
                s += i;
                if (i % 100 == 0) {
#pragma omp taskwait
                }
#pragma omp taskyield
            }
#pragma omp taskwait
        }
#pragma omp task IF0_UNTIED if (0) shared(t)
        {
            for (int i = 0; i < 50; i++) {
#pragma omp task shared(t) firstprivate(i)
#pragma omp atomic
                t += i;
            }
#pragma omp taskwait
        }
#pragma omp taskloop untied grainsize(7) shared(u)
        for (int i = 0; i < 1000; i++) {
#pragma omp atomic
            u += i;
        }
#pragma omp taskloop untied num_tasks(13) shared(v)
        for (int i = 0; i < 333; i++) {
#pragma omp task shared(v) firstprivate(i)
#pragma omp atomic
            v += i;
        }
    }
    CHECK(s == 499500 && t == 1225 && u == 499500 && v == 55278,
          "untied %ld %ld %ld %ld", s, t, u, v);
    printf("tree=%ld s=%ld t=%ld u=%ld v=%ld\n", acc, s, t, u, v);
    return e2e_finish("untied");
}
