// A worker waiting for the next fork while the head runs sequential code
// for 400 ms blocks on its fork bell (HCRT_FORK_BELL, base/bell.h) instead
// of napping 0.5 ms at most between polls: its main thread (the worker's
// only thread here, which runs logical thread 1) counts its voluntary
// context switches from the end of one region to the start of the next.
// Napping takes ~800 of them in 400 ms on a quiet machine; blocking on the
// bell, whose naps grow to 10 ms, ~50. The fork after the spell still
// starts: the head rang the bell. HCRT_SCHED_PLACE=0 keeps both regions on
// all nodes.
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_CLUSTER=1 OMP_NUM_THREADS=1 HCRT_SCHED_PLACE=0 %mpirun -x HCRT_CLUSTER -x OMP_NUM_THREADS -x HCRT_SCHED_PLACE -np 2 %t | FileCheck %s
// CHECK: worker thread 1 on rank 1
// CHECK: bell ok
#include <hcrt/hcrt.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static long switches[2];
static int ranks[2];

static long voluntary(void)
{
    char line[256];
    long v = -1;
    FILE *f = fopen("/proc/thread-self/status", "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
            sscanf(line + 24, "%ld", &v);
    fclose(f);
    return v;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        ranks[1] = hcrt_node_id();
        switches[0] = voluntary();
    }
    printf("worker thread 1 on rank %d\n", ranks[1]);
    /* the head computes alone; spinning, so its own core stays busy */
    volatile double x = 0;
    for (double t0 = now(); now() - t0 < 0.4;)
        x += 1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        switches[1] = voluntary();
    long d = switches[1] - switches[0];
    printf("worker main thread: %ld voluntary switches while the head ran "
           "alone for 400 ms\n",
           d);
    printf(d >= 0 && d < 200 ? "bell ok\n" : "FAIL: bell not used\n");
    return 0;
}
