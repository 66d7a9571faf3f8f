// threadprivate and _Thread_local values before any call on all nodes
// (docs/placement.md "threadprivate"): regions start on the head alone
// (HCRT_SCHED_PLACE_HEAD_FIRST=1), where the head runs the workers'
// logical threads too. Their threads never ran the program's code, so
// each starts with the executable's initial values (.tdata, .tbss: zero),
// which the head takes from the executable without asking the workers.
// Every thread checks its initial values in the first region, then the
// values persist from call to call whichever node runs them (the budget
// is lifted so that placement tries all nodes too).
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_HEAD_FIRST=1 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_HEAD_FIRST -x HCRT_SCHED_PLACE_BUDGET -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s <%t.out
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=2 HCRT_SCHED_PLACE_HEAD_FIRST=1 HCRT_SCHED_PLACE_BUDGET=1 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_HEAD_FIRST -x HCRT_SCHED_PLACE_BUDGET -np 4 %t >%t.np4 2>%t.err; cat %t.err >>%t.np4
// RUN: FileCheck %s <%t.np4
// CHECK: initial values ok in {{[0-9]+}} threads
// CHECK: persistence ok over 40 calls
// CHECK: region {{.*}}step.omp_outlined{{.*}} ran on
// CHECK-NOT: FAIL
#include <omp.h>
#include <stdio.h>
#include <string.h>

static int seven = 7;
#pragma omp threadprivate(seven)
static long zeros[8];
#pragma omp threadprivate(zeros)
static _Thread_local char tag[16] = "initial";
static long bad;

static void step(int call, long *sum)
{
    long s = 0;
#pragma omp parallel reduction(+ : s)
    {
        int t = omp_get_thread_num();
        if (call == 0) {
            int z = 1;
            for (int i = 0; i < 8; i++)
                z &= zeros[i] == 0;
            if (seven != 7 || !z || strcmp(tag, "initial")) {
                printf("FAIL: thread %d started with %d, zeros %d, tag %s\n",
                       t, seven, z, tag);
#pragma omp atomic
                bad++;
            }
            seven = 100 * t;
            snprintf(tag, sizeof tag, "t%d", t);
        } else {
            char want[16];
            snprintf(want, sizeof want, "t%d", t);
            if (seven != 100 * t + call - 1 || strcmp(tag, want)) {
                printf("FAIL: call %d thread %d has %d, tag %s\n", call, t,
                       seven, tag);
#pragma omp atomic
                bad++;
            }
            seven++;
        }
        zeros[call % 8] += t;
        s += seven;
    }
    *sum += s;
}

int main(void)
{
    long sum = 0;
    int n = omp_get_max_threads();
    step(0, &sum);
    if (!bad)
        printf("initial values ok in %d threads\n", n);
    for (int c = 1; c < 40; c++)
        step(c, &sum);
    if (!bad)
        printf("persistence ok over 40 calls\n");
    return bad != 0;
}
