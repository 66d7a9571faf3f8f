// A thread sees its own atomic writes in its later plain reads, and so do
// the threads it synchronises with on its node (a nested team's join, a
// taskwait), on data homed on another node: the DSM performs atomics at
// the page's home, and the node's cached copy of the page, read before the
// atomics, must not keep the old value. Globals are homed on the head, so
// every worker thread's counters live on a remote home; the message path
// (HCRT_DSM_SHM=0) is the one between hosts. (The region has a worksharing
// loop: a region that only creates tasks runs on the head's threads.)
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   --env HCRT_DSM_SHM=0 %s %t.msg
#include <omp.h>
#include <stdio.h>

#define MAXT 64
#define REPS 6
/* A fresh page per round: globals start valid and exempt on every node,
 * the case where the atomic's writer was not told its copy is stale. */
long count[REPS][512] __attribute__((aligned(4096)));
double dsum[REPS][512] __attribute__((aligned(4096)));
long seen[MAXT][3] __attribute__((aligned(4096)));

int main(void)
{
    omp_set_max_active_levels(2);
    for (int rep = 0; rep < REPS; rep++) {
#pragma omp parallel
        {
            int o = omp_get_thread_num();
#pragma omp for
            for (int i = 0; i < MAXT; i++)
                seen[i][0] = seen[i][1] = seen[i][2] = -1;
            /* a write near the counters first: the run of pages around it
             * gets writers, and "no longer exempt" notices fly */
            seen[o][0] = seen[o][1] = seen[o][2] = -2;
            long before = count[rep][o]; /* the page is cached from here on */
            double dbefore = dsum[rep][o];
#pragma omp atomic
            count[rep][o] += 5;
#pragma omp atomic
            dsum[rep][o] += 0.5;
            seen[o][0] = (count[rep][o] - before) +
                         (long)(10 * (dsum[rep][o] - dbefore));
            before = count[rep][o];
#pragma omp parallel num_threads(2)
            {
#pragma omp atomic
                count[rep][o] += 1;
            }
            seen[o][1] = count[rep][o] - before;
            before = count[rep][o];
            for (int k = 0; k < 3; k++) {
#pragma omp task
                {
#pragma omp atomic
                    count[rep][o] += 100;
                }
            }
#pragma omp taskwait
            seen[o][2] = count[rep][o] - before;
        }
        int n = omp_get_max_threads(), bad = 0;
        for (int i = 0; i < n && i < MAXT; i++)
            bad += seen[i][0] != 10 || seen[i][1] != 2 || seen[i][2] != 300;
        printf("rep %d: %d of %d threads missed their own atomic writes\n", rep,
               bad, n);
    }
    return 0;
}
