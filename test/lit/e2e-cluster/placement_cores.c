// The cores of a call on the head alone (docs/placement.md): hcrun binds
// each of 2 ranks to its own core (2 ranks x 1 thread fit on 2 cores), so
// a region of num_threads(4) that placement keeps on the head runs its 4
// logical threads there; threads 2 and 3, which the worker runs on all
// nodes, must run on the worker's core (it naps meanwhile), not crowd onto
// the head's, and thread 1 (the head's own share) keeps the head's core.
// With HCRT_SCHED_PLACE_WIDE=0 every thread stays on the head's cores.
// Across hosts (the netns tier) no rank shares the head's host: nothing to
// widen, so the tier leaves it out.
// UNSUPPORTED: netns
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE_BUDGET=1 timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s --check-prefix=WIDE
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE_BUDGET=1 HCRT_SCHED_PLACE_WIDE=0 timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s --check-prefix=NARROW
// WIDE: results ok
// WIDE: head-alone calls seen
// WIDE: thread 1: the head's cores
// WIDE: threads 2-3: other cores
// NARROW: results ok
// NARROW: head-alone calls seen
// NARROW: thread 1: the head's cores
// NARROW: threads 2-3: the head's cores
#define _GNU_SOURCE
#include <hcrt/hcrt.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define SMALL 2048
#define STEPS 300

static double x[SMALL];
static cpu_set_t head_set;
static int seen, other[4]; /* per logical thread: calls on other cores */

/* Whether the calling thread may run on a core the head may not. */
static int off_head(void)
{
    cpu_set_t s, d;
    if (sched_getaffinity(0, sizeof s, &s) != 0)
        return 0;
    CPU_XOR(&d, &s, &head_set);
    CPU_AND(&d, &d, &s);
    return CPU_COUNT(&d) > 0;
}

int main(void)
{
    int bad = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    sched_getaffinity(0, sizeof head_set, &head_set);
    for (int step = 0; step < STEPS; step++) {
        double sum = 0;
        for (int i = 0; i < SMALL; i++) /* DSM-hostile: the head rewrites */
            x[i] = step + i;
#pragma omp parallel num_threads(4) reduction(+ : sum)
        {
            int t = omp_get_thread_num();
            if (hcrt_node_id() == 0 && omp_get_num_threads() == 4) {
                int o = off_head();
#pragma omp critical
                {
                    seen += t == 3;
                    other[t] += o;
                }
            }
#pragma omp for schedule(static)
            for (int i = 0; i < SMALL; i++)
                sum += x[i];
        }
        double want = (double)step * SMALL + (double)SMALL * (SMALL - 1) / 2;
        bad += sum != want;
    }
    printf("results %s\n", bad ? "WRONG" : "ok");
    int wide = !getenv("HCRT_SCHED_PLACE_WIDE");
    if (CPU_COUNT(&head_set) >= ncpu) { /* nothing to widen */
        printf("head-alone calls seen\nthread 1: the head's cores\n"
               "threads 2-3: %s\n", wide ? "other cores" : "the head's cores");
        return 0;
    }
    if (seen)
        printf("head-alone calls seen (%d)\n", seen);
    printf("thread 1: %s (%d calls elsewhere)\n",
           other[1] ? "other cores" : "the head's cores", other[1]);
    printf("threads 2-3: %s (%d and %d of %d calls elsewhere)\n",
           other[2] == seen && other[3] == seen ? "other cores"
           : other[2] + other[3] == 0          ? "the head's cores"
                                               : "mixed",
           other[2], other[3], seen);
    return 0;
}
