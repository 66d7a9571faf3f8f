// HetProbe counts the write-back a probe's iterations owe (2 ranks, the
// DSM over messages as between hosts): a loop that only writes a global
// array homed on the head (an initialisation: every rank holds a seeded
// copy, so node 1 fetches nothing, but each page it writes becomes a diff
// sent to the head at the join) runs on the head alone; before, its probe
// on node 1 saw no fault ("faults rare on every node") and split it, and
// between hosts its write-back cost more than the loop (NPB MG's zero3, FT's
// init_ui). Node 1's speed is charged for the diffs its pages owe, so it
// does not win the single-node choice either (the head, whose writes go
// straight to its master pages, took its home write faults in the probe
// and measured slower). A compute-bound loop (an integer hash per
// iteration, results in a reduction) is still split. The threshold is
// fixed (2 ms between page transfers) so the test does not depend on a
// calibration file; region placement is off so that every call runs its
// loops across the nodes. Results are exact and checked.
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE=0 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=0 HCRT_SCHED_FAULT_PERIOD_US=2000 %mpirun -x HCRT_SCHED_PLACE -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x HCRT_SCHED_FAULT_PERIOD_US -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s <%t.out
// CHECK: results ok
// CHECK: threshold 2000.0 us (HCRT_SCHED_FAULT_PERIOD_US)
// CHECK: loop {{.*}};init_pages;{{.*}}: 1 runs, 1 decisions (probed: cross 0, single 1;
// CHECK-NEXT: window 0, iterations from
// CHECK-NEXT: single node 0: faults too frequent
// CHECK: loop {{.*}};hash_sum;{{.*}}: 1 runs, 1 decisions (probed: cross 1, single 0;
// CHECK-NOT: FAIL
#include <stdint.h>
#include <stdio.h>

#define PAGES 4096
#define PER_PAGE (4096 / sizeof(double))

static double w[PAGES * PER_PAGE] __attribute__((aligned(4096)));

static void init_pages(void)
{
#pragma omp parallel for
    for (long p = 0; p < PAGES; p++)
        for (long j = 0; j < (long)PER_PAGE; j++)
            w[p * PER_PAGE + j] = (double)(p + j);
}

static uint64_t hash(uint64_t x)
{
    for (int k = 0; k < 2000; k++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x >> 40;
}

static uint64_t hash_sum(long n)
{
    uint64_t s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += hash((uint64_t)i);
    return s;
}

int main(void)
{
    init_pages();
    double sum = 0, want = 0;
    for (long p = 0; p < PAGES; p++)
        for (long j = 0; j < (long)PER_PAGE; j++) {
            sum += w[p * PER_PAGE + j];
            want += (double)(p + j);
        }
    uint64_t h = hash_sum(20000), hw = 0;
    for (long i = 0; i < 20000; i++)
        hw += hash((uint64_t)i);
    if (sum != want || h != hw) {
        printf("FAIL: sum %.17g want %.17g, hash %llu want %llu\n", sum, want,
               (unsigned long long)h, (unsigned long long)hw);
        return 1;
    }
    printf("results ok\n");
    return 0;
}
