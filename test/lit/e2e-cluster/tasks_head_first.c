// A TASKS region (its only work is creating tasks) with every rank on the
// head's host starts on the head alone, whose team then has every rank's
// cores, as one node with that many threads (docs/tasks.md): BOTS spread
// on 2 ranks x 1 thread took up to 2x one rank x 2 threads. After
// HCRT_TASKS_REFRESH more calls on the head, one call spreads and is judged
// against them. The region is called 6 times with HCRT_TASKS_REFRESH=3 and
// HCRT_TASKS_FACTOR=0 (every task may travel): calls 1-4 on the head, the
// 5th spreads, the 6th too if the 5th paid (other nodes ran some of its
// tasks and it was not slower than the calls on the head).
// Results are checked at every call; the team is the whole logical team
// wherever the call runs. Tasks also count with atomics on a global and on
// the heap, and so does the serial code between calls: on the head alone
// those are CPU atomics, in spread calls the DSM's at the page's home
// (atomics.c), and the counts must carry over between the two.
// Only on one host: between hosts a TASKS region's first call spreads.
// UNSUPPORTED: netns
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE_HEAD_FIRST=1 HCRT_TASKS_REFRESH=3 HCRT_TASKS_FACTOR=0 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE_HEAD_FIRST -x HCRT_TASKS_REFRESH -x HCRT_TASKS_FACTOR -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s <%t.out
// CHECK: call 1 threads 2 sum ok counts ok
// CHECK: call 5 threads 2 sum ok counts ok
// CHECK: call 6 threads 2 sum ok counts ok
// CHECK: task regions spread on all nodes {{1, on the head alone 5|2, on the head alone 4}}
// CHECK: first calls on the head alone: every rank runs on the head's host
// CHECK: region {{.*}} calls 6, spread {{[12]}}
// CHECK-NOT: FAIL
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 400
#define P 1000003L

static long out[N];
static long count;

static long spin(long x, int n)
{
    for (int i = 0; i < n; i++)
        x = (x * 1103515245 + 12345) % P;
    return x;
}

int main(void)
{
    long want = 0;
    long *hcount = calloc(1, sizeof *hcount);
    for (int i = 0; i < N; i++)
        want += spin(i, 20000);
    for (int call = 1; call <= 6; call++) {
        int threads = 0;
#pragma omp atomic
        count += 1000;
#pragma omp atomic
        *hcount += 2000;
#pragma omp parallel
#pragma omp single
        {
            threads = omp_get_num_threads();
            for (int i = 0; i < N; i++) {
#pragma omp task firstprivate(i)
                {
                    out[i] = spin(i, 20000);
#pragma omp atomic
                    count++;
#pragma omp atomic
                    *hcount += 2;
                }
            }
        }
        long sum = 0;
        for (int i = 0; i < N; i++)
            sum += out[i];
        long c;
#pragma omp atomic read
        c = count;
        printf("call %d threads %d sum %s counts %s\n", call, threads,
               sum == want ? "ok" : "FAIL",
               c == call * (1000L + N) && *hcount == 2 * c ? "ok" : "FAIL");
    }
    return 0;
}
