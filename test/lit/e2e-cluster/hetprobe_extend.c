// HetProbe's extensions: a node done with its probe runs iterations from
// its zone of the rest while another node's probe is still out, and the
// split afterwards covers what is left. In the first calls every node but
// the head sleeps 3 ms per iteration, so the head finishes its probe long
// before their first measurement and runs on in its zone, the last and
// open-ended one (under HetProbe-I past the window's end, which moves);
// in the next ones only the head sleeps, so the others extend into their
// zones, capped, before the head's. The open zone's end must leave out
// the loop's last iteration (the thread that runs it must get no later
// chunk, or lastprivate is lost). Every iteration must run exactly once
// (a bitmap) and lastprivate must come from the last one, for HetProbe at
// 2 and 3 nodes and HetProbe-I (every window) at 3, and HCRT_STATS must
// count iterations run while waiting.
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 OMP_SCHEDULE=hetprobe %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x OMP_SCHEDULE -np 2 %t >%t.hp 2>%t.hp.err; cat %t.hp.err >>%t.hp
// RUN: FileCheck --check-prefixes=OUT,EXT %s <%t.hp
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=2 OMP_SCHEDULE=hetprobe %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x OMP_SCHEDULE -np 3 %t >%t.hp3 2>%t.hp3.err; cat %t.hp3.err >>%t.hp3
// RUN: FileCheck --check-prefixes=OUT,EXT %s <%t.hp3
// RUN: env HCRT_CLUSTER=1 HCRT_STATS=1 OMP_NUM_THREADS=1 OMP_SCHEDULE=hetprobe_i HCRT_SCHED_REPROBE_MIN_US=0 %mpirun -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x OMP_SCHEDULE -x HCRT_SCHED_REPROBE_MIN_US -np 3 %t >%t.hpi 2>%t.hpi.err; cat %t.hpi.err >>%t.hpi
// RUN: FileCheck --check-prefixes=OUT,EXT %s <%t.hpi
// OUT: coverage ok
// OUT-NOT: FAIL
// EXT: loop {{.*}}hetprobe_extend.c{{.*}} iterations probed, {{[1-9][0-9]*}} run while waiting for the others' probes
#include <hcrt/hcrt.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 6000

static unsigned char hits[N];

int main(void)
{
    static const long trips[] = {N, 4099, 997, 2000, N, 3001, N, 2000};
    int fails = 0;
    for (int call = 0; call < 8; call++) {
        long n = trips[call], last = -1;
        /* calls 0-1: the others slow; 4-5: the head slow; the rest with
         * the probe cache's prior */
        int slow_others = call < 2, slow_head = call == 4 || call == 5;
        memset(hits, 0, sizeof(hits));
#pragma omp parallel for schedule(runtime) lastprivate(last)
        for (long i = 0; i < n; i++) {
            int node = hcrt_node_id();
            if ((slow_others && node != 0) || (slow_head && node == 0))
                usleep(3000);
            hits[i]++;
            last = i;
        }
        for (long i = 0; i < n && fails < 5; i++)
            if (hits[i] != 1)
                printf("FAIL call %d n=%ld: iteration %ld ran %d times\n", call,
                       n, i, hits[i]),
                    fails++;
        if (last != n - 1)
            printf("FAIL call %d n=%ld: lastprivate %ld\n", call, n, last),
                fails++;
    }
    if (!fails)
        printf("coverage ok\n");
    return fails != 0;
}
