// ordered loops over the cluster team (schedule static, static,c, dynamic,
// guided): the ordered regions run in iteration order across the nodes
// (each appends its iteration to a shared log), an iteration may skip its
// ordered region, and the parts outside ordered still run once each.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <stdio.h>

#define N 300

static int log_[N], hits[N];
static int pos;

static void check(const char *what, int skip)
{
    int in_order = 1, n = 0, once = 1;
    for (int i = 0; i < N; i++) {
        once &= hits[i] == 1;
        hits[i] = 0;
        if (skip && i % 5 == 0)
            continue;
        in_order &= log_[n++] == i;
    }
    printf("%-12s in order %d once %d logged %d (want %d)\n", what, in_order,
           once, pos, n);
    pos = 0;
}

#define ORDERED_LOOP(sched, skip)                                              \
    _Pragma(sched) for (int i = 0; i < N; i++)                                 \
    {                                                                          \
        hits[i]++;                                                             \
        if (!(skip) || i % 5 != 0) {                                           \
            _Pragma("omp ordered") log_[pos++] = i;                            \
        }                                                                      \
    }

int main(void)
{
    ORDERED_LOOP("omp parallel for ordered schedule(static)", 0)
    check("static", 0);
    ORDERED_LOOP("omp parallel for ordered schedule(static, 3)", 1)
    check("static,3", 1);
    ORDERED_LOOP("omp parallel for ordered schedule(dynamic, 2)", 0)
    check("dynamic,2", 0);
    ORDERED_LOOP("omp parallel for ordered schedule(guided)", 1)
    check("guided", 1);
    return 0;
}
