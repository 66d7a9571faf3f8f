// A region whose only loop HetProbe runs on the head ends up on the head
// alone by region placement (docs/placement.md): at 2 ranks, a DSM-bound
// loop (the head has just rewritten its input, node 1 would fetch every
// page) that also writes every 4096th b[] is called 12 times; after it a
// cross-node static loop sums b[], so a node must see what the head wrote
// in the calls it ran alone. The threshold is fixed (2 ms between page
// transfers), the DSM runs over messages as between hosts, the placement
// budget is lifted (tries at once on a loaded machine). With
// HCRT_SCHED_PLACE=0 every call goes to all nodes. Results are exact
// (integer-valued) and checked at every call; at 4 ranks nodes 1-3 read
// what the head wrote alone.
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=0 HCRT_SCHED_FAULT_PERIOD_US=2000 HCRT_SCHED_PROBE_DRIFT=10 HCRT_SCHED_PROBE_STABLE_RUNS=2 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x HCRT_SCHED_FAULT_PERIOD_US -x HCRT_SCHED_PROBE_DRIFT -x HCRT_SCHED_PROBE_STABLE_RUNS -x HCRT_SCHED_PLACE_BUDGET -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s --check-prefix=LOCAL <%t.out
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=0 HCRT_SCHED_FAULT_PERIOD_US=2000 HCRT_SCHED_PROBE_DRIFT=10 HCRT_SCHED_PROBE_STABLE_RUNS=2 HCRT_SCHED_PLACE=0 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x HCRT_SCHED_FAULT_PERIOD_US -x HCRT_SCHED_PROBE_DRIFT -x HCRT_SCHED_PROBE_STABLE_RUNS -x HCRT_SCHED_PLACE -np 2 %t >%t.off 2>%t.err; cat %t.err >>%t.off
// RUN: FileCheck %s --check-prefix=OFF <%t.off
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=0 HCRT_SCHED_FAULT_PERIOD_US=2000 HCRT_SCHED_PROBE_DRIFT=10 HCRT_SCHED_PROBE_STABLE_RUNS=2 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x HCRT_SCHED_FAULT_PERIOD_US -x HCRT_SCHED_PROBE_DRIFT -x HCRT_SCHED_PROBE_STABLE_RUNS -x HCRT_SCHED_PLACE_BUDGET -np 4 %t >%t.np4 2>%t.err; cat %t.err >>%t.np4
// RUN: FileCheck %s --check-prefix=NP4 <%t.np4
// LOCAL: results ok
// LOCAL: cluster regions {{[0-9]+}} on 2 nodes (2 threads), kept on the head [[N:[1-9][0-9]*]] ([[N]] placed there,
// LOCAL-DAG: {{.*}}dsm_bound{{.*}} on all nodes {{[0-9]+}}, on the head only {{[1-9]}}
// LOCAL-NOT: FAIL
// NP4: results ok
// NP4: cluster regions {{[0-9]+}} on 4 nodes (4 threads), kept on the head [[N:[1-9][0-9]*]] ([[N]] placed there,
// NP4-NOT: FAIL
// OFF: results ok
// OFF: kept on the head 0 (0 placed there,
// OFF-NOT: FAIL
#include <stdint.h>
#include <stdio.h>

#include "Inputs/hetprobe_hash.h"

#define N (512 * 1024)

static double a[N], b[N];

/* Reads a[] (rewritten by the head), writes every STRIDE-th b[]: runs on
 * the head. The writes are sparse so that the head's probe is not slowed
 * by write faults on pages node 1 holds copies of (with every b[] written,
 * a loaded run once measured node 1, fetching a[], faster than the head). */
#define STRIDE 4096
static double dsm_bound(int r)
{
    double s = 0;
#pragma omp parallel for schedule(hetprobe) reduction(+ : s)
    for (long i = 0; i < N; i++) {
        if (i % STRIDE == 0)
            b[i] = a[i] + r;
        s += a[i] + r;
    }
    return s;
}

/* Both nodes read b[]: node 1 must see the head's writes. */
static double check_b(void)
{
    double t = 0;
#pragma omp parallel for schedule(static) reduction(+ : t)
    for (long i = 0; i < N; i++)
        t += b[i];
    return t;
}

static uint64_t compute_bound(void)
{
    uint64_t h = 0;
#pragma omp parallel for schedule(hetprobe, 30) reduction(+ : h)
    for (long i = 0; i < HASH_ITERS; i++)
        h += hash_of(i);
    return h;
}

int main(void)
{
    int fails = 0;
    for (int r = 0; r < 12; r++) {
        for (long i = 0; i < N; i++)
            a[i] = (double)(i + r);
        double w = (double)N * (double)(N - 1) / 2 + 2.0 * N * r, wb = 0;
        for (long i = 0; i < N; i += STRIDE)
            wb += (double)(i + 2 * r);
        double s = dsm_bound(r), t = check_b();
        if (s != w || t != wb)
            printf("FAIL call %d: sum %.0f (want %.0f), node sum %.0f (want "
                   "%.0f)\n",
                   r, s, w, t, wb),
                fails++;
    }
    uint64_t want = compute_bound_want();
    for (int r = 0; r < 8; r++)
        if (compute_bound() != want)
            printf("FAIL hash run %d\n", r), fails++;
    if (!fails)
        printf("results ok\n");
    return fails != 0;
}
