// A worksharing loop without a schedule clause has the implementation's
// schedule. hcc's pragma scan marks it (clang lowers it like
// schedule(static)), and libhcrt runs it static on one node -- the same
// iteration-to-thread blocks as clang -fopenmp -- and with
// HCRT_SCHED_DEFAULT (hetprobe unless set) across nodes. Here: the blocks
// on one node, then at 2 ranks a DSM-bound sum (node 1 must fetch every
// page of the head's freshly written array) that HetProbe keeps on one
// node, and the same loop with HCRT_SCHED_DEFAULT=static split evenly.
// Built without -g, where clang gives all loops of a file one ident: the
// pass gives each dynamic loop its own (file;function;0;ordinal), so the
// probe cache and the statistics tell the two loops apart.
// Region placement is off (HCRT_SCHED_PLACE=0): every call runs its loops
// across the nodes, as these checks of the loop schedules need.
// RUN: %hcc -O2 %s -o %t
// RUN: env OMP_NUM_THREADS=3 OMP_MAX_ACTIVE_LEVELS=2 OMP_CANCELLATION=true HCRT_STATS=1 %t 2>&1 | FileCheck --check-prefix=ONE %s
// ONE: T 3 static blocks 1
// ONE: nested ok
// ONE: after cancel ok
// ONE: results ok
// ONE: without a schedule clause {{[1-9][0-9]}})
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE=0 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_DSM_SHM=0 HCRT_SCHED_FAULT_PERIOD_US=2000 %mpirun -x HCRT_SCHED_PLACE -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_DSM_SHM -x HCRT_SCHED_FAULT_PERIOD_US -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck --check-prefix=HP %s <%t.out
// HP: results ok
// HP: loop ;{{.*}}default_schedule.c;sum.omp_outlined;0;1;;: 2 runs, 2 decisions (probed: cross 0, single 2;
// HP-NEXT: window 0, iterations from
// HP-NEXT: single node {{[01]}}: {{faults too frequent|the others measured nothing}}
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE=0 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_DEFAULT=static %mpirun -x HCRT_SCHED_PLACE -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_DEFAULT -np 2 %t >%t.st 2>&1
// RUN: FileCheck --check-prefix=ST %s <%t.st
// ST: T 2 static blocks 1
// ST: results ok
// ST-NOT: 2 runs, 2 decisions
#include <omp.h>
#include <stdio.h>

#define N (2 * 1024 * 1024)
#define M 1001

static double a[N];
static int owner[M];

static double sum(void)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (long i = 0; i < N; i++)
        s += a[i];
    return s;
}

/* Blocks in thread order, sizes within one of each other. */
static int static_blocks(int T)
{
    int prev = 0;
    long sz = 0, lo = M / T, hi = (M + T - 1) / T;
    for (int i = 0; i < M; i++) {
        if (owner[i] != prev) {
            if (owner[i] != prev + 1 || sz < lo || sz > hi)
                return 0;
            prev = owner[i], sz = 0;
        }
        sz++;
    }
    return prev == T - 1 && sz >= lo && sz <= hi;
}

/* On one node: marker loops nested in a marker loop's chunk, and a
 * dynamic loop after a marker loop left by cancel (no final next call). */
static void one_node_extras(void)
{
    int bad = 0, hit[64] = {0};
#pragma omp parallel for reduction(+ : bad)
    for (int i = 0; i < 8; i++) {
        int inner = 0;
#pragma omp parallel for reduction(+ : inner)
        for (int j = 0; j < 8; j++)
            inner += j;
        bad += inner != 28;
    }
    printf("nested %s\n", bad ? "FAIL" : "ok");
#pragma omp parallel
    {
#pragma omp for
        for (int i = 0; i < 64; i++) {
            if (i >= 0) {
#pragma omp cancel for
            }
        }
#pragma omp for schedule(dynamic, 1)
        for (int i = 0; i < 64; i++) {
#pragma omp atomic
            hit[i]++;
        }
    }
    for (int i = 0; i < 64; i++)
        bad += hit[i] != 1;
    printf("after cancel %s\n", bad ? "FAIL" : "ok");
}

int main(void)
{
    int T = 0, fails = 0;
#pragma omp parallel
    {
#pragma omp single
        T = omp_get_num_threads();
#pragma omp for
        for (int i = 0; i < M; i++)
            owner[i] = omp_get_thread_num();
    }
    printf("T %d static blocks %d\n", T, static_blocks(T));
    if (omp_get_cancellation())
        one_node_extras();
    for (int r = 0; r < 2; r++) {
        for (long i = 0; i < N; i++)
            a[i] = (double)(i + r);
        double s = sum();
        double w = (double)N * (double)(N - 1) / 2 + (double)N * r;
        if (s != w)
            printf("FAIL sum %.0f, want %.0f\n", s, w), fails++;
    }
    if (!fails)
        printf("results ok\n");
    return fails != 0;
}
