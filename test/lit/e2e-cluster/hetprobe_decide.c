// HetProbe's decision at 2 ranks on two synthetic loops (HCRT_CLUSTER=1):
// a DSM-bound loop (a sum over 16 MiB the head has just rewritten: node 1
// must fetch every page of its part, with one addition per 8 bytes) runs
// on a single node; a compute-bound loop (an integer hash per iteration, no
// shared data) is split across both nodes. The threshold is fixed here
// (2 ms between page transfers) so the test does not depend on a
// calibration file, and the DSM runs over messages (HCRT_DSM_SHM=0) as
// between hosts: on one host its shared-memory path moves no pages. The
// compute loop runs 8 times with the widest drift band: 3 consistent probed
// runs make it stable, then the probe cache decides without a probe (at
// least once even if a loaded machine stalls a probe). Results are exact
// (integer-valued) and checked. HetProbe-I on the DSM-bound loop decides
// once per call: a loop found fault-bound runs the rest of the call on
// its node without more windows (each would probe the slow node again).
// Region placement is off (HCRT_SCHED_PLACE=0): every call runs its loops
// across the nodes, as these checks of the loop schedules need.
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE=0 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=0 HCRT_SCHED_FAULT_PERIOD_US=2000 HCRT_SCHED_PROBE_DRIFT=10 %mpirun -x HCRT_SCHED_PLACE -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x HCRT_SCHED_FAULT_PERIOD_US -x HCRT_SCHED_PROBE_DRIFT -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s <%t.out
// CHECK: results ok
// CHECK: threshold 2000.0 us (HCRT_SCHED_FAULT_PERIOD_US)
// CHECK: loop {{.*}};dsm_bound;{{.*}}: 2 runs, 2 decisions (probed: cross 0, single 2;
// CHECK-NEXT: window 0, iterations from
// (the second run: the node that crawled in the first rests and measures
// nothing; the account says so)
// CHECK-NEXT: single node {{[01]}}: {{faults too frequent|the others measured nothing}}
// CHECK: loop {{.*}};dsm_bound_i;{{.*}}: 2 runs, 2 decisions (probed: cross 0, single 2;
// CHECK: loop {{.*}}compute_bound{{.*}}: 8 runs, 8 decisions (probed: cross {{[3-7]}}, single 0; from the probe cache {{[1-5]}};
// CHECK-NOT: FAIL
#include <stdint.h>
#include <stdio.h>

#include "Inputs/hetprobe_hash.h"

#define N (2 * 1024 * 1024)

static double a[N];

static double dsm_bound(void)
{
    double s = 0;
#pragma omp parallel for schedule(hetprobe) reduction(+ : s)
    for (long i = 0; i < N; i++)
        s += a[i];
    return s;
}

static double dsm_bound_i(void)
{
    double s = 0;
#pragma omp parallel for schedule(hetprobe_i) reduction(+ : s)
    for (long i = 0; i < N; i++)
        s += a[i];
    return s;
}

static uint64_t compute_bound(void)
{
    uint64_t h = 0;
#pragma omp parallel for schedule(hetprobe, 30) reduction(+ : h)
    for (long i = 0; i < HASH_ITERS; i++)
        h += hash_of(i);
    return h;
}

/* Two calls of a sum loop, the head rewriting the array before each. */
static int sum_runs(double (*loop)(void), const char *what)
{
    int fails = 0;
    for (int r = 0; r < 2; r++) {
        for (long i = 0; i < N; i++)
            a[i] = (double)(i + r);
        double s = loop();
        double w = (double)N * (double)(N - 1) / 2 + (double)N * r;
        if (s != w)
            printf("FAIL %s sum %.0f, want %.0f\n", what, s, w), fails++;
    }
    return fails;
}

int main(void)
{
    int fails = 0;
    uint64_t want = compute_bound_want();
    fails += sum_runs(dsm_bound, "hetprobe");
    fails += sum_runs(dsm_bound_i, "hetprobe_i");
    for (int r = 0; r < 8; r++)
        if (compute_bound() != want)
            printf("FAIL hash run %d\n", r), fails++;
    if (!fails)
        printf("results ok\n");
    return fails != 0;
}
