// Region placement (docs/placement.md), one thread per rank. A region of
// tiny schedule(static) loops over data the head rewrites before every call
// (DSM-hostile) ends up on the head alone. A compute-bound region called
// every 30th step goes wherever its calls are faster (on this shared
// machine that depends on the other jobs; test/sched checks the policy
// that keeps such a region on all nodes). Every call checks what a program
// can observe whichever team ran it: nowait static loops that rely on the
// same mapping, omp_get_num_threads() against omp_get_max_threads() and
// per-thread slots sized in sequential code, single/copyprivate/master/
// reductions, and threadprivate values that must persist from the
// compute-bound region to the tiny one and back while they run on
// different nodes. The HCRT_TRACE timeline marks the tiny region's move
// to the head. The budget is lifted (HCRT_SCHED_PLACE_BUDGET=1) so
// that tries of all nodes happen at once on a loaded machine. With
// HCRT_SCHED_PLACE=0 no region leaves the nodes; the answers are the same.
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: rm -f %t.json
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 HCRT_TRACE=%t.json OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x HCRT_TRACE -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_BUDGET -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s --check-prefix=ON <%t.out
// RUN: python3 -m json.tool %t.json >/dev/null
// RUN: FileCheck %s --check-prefix=TRACE <%t.json
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE=0 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE -np 2 %t >%t.off 2>%t.err; cat %t.err >>%t.off
// RUN: FileCheck %s --check-prefix=OFF <%t.off
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=2 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_BUDGET -np 4 %t >%t.np4 2>%t.err; cat %t.err >>%t.np4
// RUN: FileCheck %s --check-prefix=NP4 <%t.np4
// ON: results ok
// ON: region placement on: tries lost
// ON-SAME: threadprivate data ({{[1-9][0-9]*}} bytes a thread) moved {{[1-9][0-9]*}} times
// ON-DAG: region {{.*}}placement.c:{{[0-9]+}} (tiny{{.*}}) ran on the head alone: {{[0-9]+}} us/call there vs {{[0-9]+}} us/call on 2 nodes
// ON-NOT: FAIL
// TRACE: "cat":"placement","name":"placement tiny.omp_outlined"{{.*}}"on":"the head alone","us/call on the head":{{[0-9]+}},"us/call on all nodes":{{[0-9]+}}
// OFF: results ok
// OFF-DAG: kept on the head 0 (0 placed there,
// OFF-DAG: region placement off
// OFF-NOT: FAIL
// The default (HCRT_SCHED_PLACE_HEAD_FIRST=1; the suite sets 0 to test the
// cross-node path): with every rank on one host (capacity 1.00x) each region
// starts on the head alone; between hosts (the netns tier) it changes
// nothing. The same answers either way, the tiny region on the head.
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_HEAD_FIRST=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_HEAD_FIRST -np 2 %t >%t.hf 2>%t.err; cat %t.err >>%t.hf
// RUN: FileCheck %s --check-prefix=HF <%t.hf
// HF: results ok
// HF: calls on the head alone run on {{[0-9]+}} core(s); a call on all nodes has {{[0-9.]+}}x as many
// HF-DAG: region {{.*}}placement.c:{{[0-9]+}} (tiny{{.*}}) ran on the head alone
// HF-NOT: FAIL
// NP4: results ok
// NP4: calls on the head alone run on {{[0-9]+}} core(s); a call on all nodes has {{[0-9.]+}}x as many
// NP4: cluster regions {{[0-9]+}} on 4 nodes (8 threads), kept on the head {{[1-9][0-9]*}}
// NP4-NOT: FAIL
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SMALL 2048 /* four pages of doubles */
#define STEPS 300

static double x[SMALL], y[SMALL], z[SMALL];
static long tp_val;
#pragma omp threadprivate(tp_val)
static int fails;

static void fail(const char *what, int step, long got, long want)
{
    printf("FAIL %s at step %d: %ld, want %ld\n", what, step, got, want);
    fails++;
}

/* Tiny, DSM-hostile: the head rewrote x[] just before. */
static void tiny(int step, long *slots, long *seen_tp, double *sum, int *nth,
                 long *cp)
{
    double s = 0;
#pragma omp parallel reduction(+ : s)
    {
        int me = omp_get_thread_num();
#pragma omp for schedule(static) nowait
        for (int i = 0; i < SMALL; i++)
            y[i] = 2 * x[i];
#pragma omp for schedule(static) nowait /* same mapping: y[i] is ours */
        for (int i = 0; i < SMALL; i++)
            z[i] = y[i] + 1;
#pragma omp for schedule(static)
        for (int i = 0; i < SMALL; i++)
            s += z[i];
        slots[me] = me + 1;
        seen_tp[me] = tp_val;
        long v;
#pragma omp single copyprivate(v)
        v = 1000 + step;
        if (v != 1000 + step)
            slots[me] = -1;
#pragma omp master
        *nth = omp_get_num_threads();
#pragma omp single
        *cp = v;
    }
    *sum = s;
}

/* Compute-bound: splits well; adds to each thread's threadprivate value. */
static uint64_t compute(int step)
{
    uint64_t h = 0;
#pragma omp parallel reduction(+ : h)
    {
        tp_val += step + omp_get_thread_num();
#pragma omp for schedule(static)
        for (long i = 0; i < 40000000; i++) {
            uint64_t v = (uint64_t)i * 0x9e3779b97f4a7c15ULL;
            v ^= v >> 29;
            h += v * 0xbf58476d1ce4e5b9ULL >> 40;
        }
    }
    return h;
}

int main(void)
{
    int maxt = omp_get_max_threads();
    long *slots = malloc(sizeof(long) * (size_t)maxt);
    long *seen_tp = malloc(sizeof(long) * (size_t)maxt);
    long *want_tp = calloc((size_t)maxt, sizeof(long));
    uint64_t h0 = 0;

    for (int step = 0; step < STEPS; step++) {
        for (int i = 0; i < SMALL; i++)
            x[i] = i + step;
        for (int k = 0; k < maxt; k++)
            slots[k] = 0, seen_tp[k] = -1;
        double sum;
        int nth = 0;
        long cp = 0;
        tiny(step, slots, seen_tp, &sum, &nth, &cp);
        double want = 2.0 * ((double)SMALL * (SMALL - 1) / 2 +
                             (double)SMALL * step) + SMALL;
        if (sum != want)
            fail("sum", step, (long)sum, (long)want);
        if (nth != maxt)
            fail("omp_get_num_threads", step, nth, maxt);
        if (cp != 1000 + step)
            fail("copyprivate", step, cp, 1000 + step);
        for (int k = 0; k < maxt; k++) {
            if (slots[k] != k + 1)
                fail("per-thread slot", step, slots[k], k + 1);
            if (seen_tp[k] != want_tp[k])
                fail("threadprivate", step, seen_tp[k], want_tp[k]);
        }
        if (step % 30 == 0) {
            uint64_t h = compute(step);
            if (step == 0)
                h0 = h;
            else if (h != h0)
                fail("hash", step, (long)h, (long)h0);
            for (int k = 0; k < maxt; k++)
                want_tp[k] += step + k;
        }
    }
    if (!fails)
        printf("results ok\n");
    return fails != 0;
}
