// Cancellation and region placement (docs/placement.md). A call that
// placement runs on the head alone is a plain libomp team, and libomp 19
// hangs a team that cancels its region after a dynamic loop (clang-19
// alone hangs on this program at 2 threads), so with OMP_CANCELLATION=true
// every call of a cluster region stays on all nodes, where cancellation is
// hcc's (cancel.c). A tiny DSM-hostile region (the head rewrites its data
// before every call, placement's favourite for the head) searches with
// `cancel for` in dynamic and guided loops, counts a full dynamic loop
// after them, and cancels itself every other call; every answer is exact.
// With OMP_CANCELLATION unset (cancel is a no-op) placement runs as usual
// and the program gives the uncancelled answers.
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_CANCELLATION=true OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_CANCELLATION -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_BUDGET -np 2 %t >%t.on 2>%t.err; cat %t.err >>%t.on
// RUN: FileCheck %s --check-prefix=ON <%t.on
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_CANCELLATION=true OMP_NUM_THREADS=2 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_CANCELLATION -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_BUDGET -np 2 %t >%t.on2 2>%t.err; cat %t.err >>%t.on2
// RUN: FileCheck %s --check-prefix=ON <%t.on2
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_BUDGET -np 2 %t >%t.off 2>%t.err; cat %t.err >>%t.off
// RUN: FileCheck %s --check-prefix=OFF <%t.off
// ON: cancellation on: results ok
// ON-DAG: kept on the head 0 (0 placed there,
// ON-DAG: cancellation across nodes: {{[1-9][0-9]*}} cancel requests
// ON-NOT: FAIL
// OFF: cancellation off: results ok
// OFF-NOT: FAIL
#include <omp.h>
#include <stdio.h>

#define SMALL 2048
#define STEPS 300
#define NOT_FOUND (-1)

static long x[SMALL];
static int fails;

static void fail(const char *what, int step, long got, long want)
{
    printf("FAIL %s at step %d: %ld, want %ld\n", what, step, got, want);
    fails++;
}

typedef struct answers {
    int found[3]; /* index of the key of each search */
    long counted; /* iterations of the full loop after the searches */
    long after;   /* threads that ran past the barrier after the cancel */
} answers_t;

/* Tiny, DSM-hostile: the head rewrote x[] just before. */
static void tiny(int step, answers_t *a)
{
    long counted = 0, after = 0;
    int f0 = NOT_FOUND, f1 = NOT_FOUND, f2 = NOT_FOUND;
#pragma omp parallel
    {
#pragma omp for schedule(monotonic : dynamic, 16)
        for (int i = 0; i < SMALL; i++) {
            if (x[i] == step) {
#pragma omp atomic write
                f0 = i;
#pragma omp cancel for
            }
#pragma omp cancellation point for
        }
#pragma omp for schedule(monotonic : dynamic, 7)
        for (int i = 0; i < SMALL; i++) {
            if (x[i] == step + 1) {
#pragma omp atomic write
                f1 = i;
#pragma omp cancel for
            }
        }
#pragma omp for schedule(guided)
        for (int i = 0; i < SMALL; i++) {
            if (x[i] == step + 2) {
#pragma omp atomic write
                f2 = i;
#pragma omp cancel for
            }
        }
#pragma omp for schedule(monotonic : dynamic, 5)
        for (int i = 0; i < SMALL; i++) {
#pragma omp atomic
            counted++;
        }
#pragma omp cancel parallel if (step % 2)
#pragma omp barrier
#pragma omp atomic
        after++;
    }
    a->found[0] = f0, a->found[1] = f1, a->found[2] = f2;
    a->counted = counted, a->after = after;
}

int main(void)
{
    int on = omp_get_cancellation(), maxt = omp_get_max_threads();

    for (int step = 0; step < STEPS; step++) {
        /* the keys step, step + 1, step + 2 at places that move */
        for (int i = 0; i < SMALL; i++)
            x[i] = -1 - i;
        int k0 = (step * 37) % SMALL, k1 = (step * 91 + 5) % SMALL;
        int k2 = (step * 13 + 1000) % SMALL;
        if (k1 == k0)
            k1 = (k1 + 1) % SMALL;
        while (k2 == k0 || k2 == k1)
            k2 = (k2 + 1) % SMALL;
        x[k0] = step, x[k1] = step + 1, x[k2] = step + 2;
        answers_t a;
        tiny(step, &a);
        if (a.found[0] != k0)
            fail("search 1", step, a.found[0], k0);
        if (a.found[1] != k1)
            fail("search 2", step, a.found[1], k1);
        if (a.found[2] != k2)
            fail("search 3", step, a.found[2], k2);
        if (a.counted != SMALL)
            fail("dynamic loop after cancelled ones", step, a.counted, SMALL);
        long want_after = on && step % 2 ? 0 : maxt;
        if (a.after != want_after)
            fail("threads past a cancelled region's barrier", step, a.after,
                 want_after);
    }
    if (!fails)
        printf("cancellation %s: results ok\n", on ? "on" : "off");
    return fails != 0;
}
