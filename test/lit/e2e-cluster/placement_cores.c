// The cores of a call on the head alone (docs/placement.md): hcrun binds
// each of 2 ranks to its own core (2 ranks x 1 thread fit on 2 cores), so
// a region that placement keeps on the head runs its 2 logical threads
// there; the thread that a worker runs otherwise must be free to use the
// worker's core (it naps meanwhile), not crowd onto the head's. The head's
// main thread keeps its own core. With HCRT_SCHED_PLACE_WIDE=0 the extra
// thread stays on the head's cores.
// RUN: %hcc -fopenmp -O2 %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE_BUDGET=1 timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s --check-prefix=WIDE
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE_BUDGET=1 HCRT_SCHED_PLACE_WIDE=0 timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck %s --check-prefix=NARROW
// WIDE: results ok
// WIDE: head-alone calls seen
// WIDE: extra thread: wider than the head
// NARROW: results ok
// NARROW: head-alone calls seen
// NARROW: extra thread: the head's cores
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
static int extra_max, extra_seen; /* cores of threads >= 1 on the head */

static int cores(void)
{
    cpu_set_t s;
    return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : -1;
}

int main(void)
{
    int head = cores(), bad = 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

    for (int step = 0; step < STEPS; step++) {
        double sum = 0;
        for (int i = 0; i < SMALL; i++) /* DSM-hostile: the head rewrites */
            x[i] = step + i;
#pragma omp parallel reduction(+ : sum)
        {
            if (hcrt_node_id() == 0 && omp_get_thread_num() >= 1) {
                int c = cores();
#pragma omp critical
                {
                    extra_seen++;
                    if (c > extra_max)
                        extra_max = c;
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
    if (head >= ncpu) { /* nothing to widen: say what the checks want */
        printf("head-alone calls seen\nextra thread: %s\n",
               getenv("HCRT_SCHED_PLACE_WIDE") ? "the head's cores"
                                               : "wider than the head");
        return 0;
    }
    if (extra_seen)
        printf("head-alone calls seen (%d threads)\n", extra_seen);
    printf("extra thread: %s (head %d cores, extra thread up to %d)\n",
           extra_max > head ? "wider than the head" : "the head's cores", head,
           extra_max);
    return 0;
}
