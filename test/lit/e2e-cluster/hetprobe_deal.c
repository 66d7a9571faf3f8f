// HetProbe-I deals a cross-node remainder to the nodes in rounds only for a
// loop whose iteration rate moves between windows (HCRT_SCHED_DEAL_SPREAD):
// a loop whose cost per iteration jumps 64x halfway is dealt, a loop of
// uniform cost runs one contiguous range per node. Results match a
// sequential computation either way. The spread is 4 here rather than the
// default 1.5 so that a rank losing its core for a while in a busy CI run
// cannot make the uniform loop look irregular; the jump is 64x.
// Region placement is off (HCRT_SCHED_PLACE=0): every call runs its loops
// across the nodes, as these checks of the loop schedules need.
// Not in the tier across hosts (test/netns): there the uniform loop's
// windows were dealt in rounds in 1 of 6 runs on a loaded machine (each
// probe waits for TCP round trips, which makes the rates of its windows
// differ beyond the spread); its results were right every time.
// UNSUPPORTED: netns
// RUN: %hcc -fopenmp -O2 -g %s -o %t
// RUN: env HCRT_CLUSTER=1 HCRT_SCHED_PLACE=0 HCRT_STATS=1 OMP_NUM_THREADS=1 OMP_SCHEDULE=hetprobe_i HCRT_SCHED_REPROBE_MIN_US=0 HCRT_SCHED_DEAL_SPREAD=4 %mpirun -x HCRT_SCHED_PLACE -x HCRT_CLUSTER -x HCRT_STATS -x OMP_NUM_THREADS -x OMP_SCHEDULE -x HCRT_SCHED_REPROBE_MIN_US -x HCRT_SCHED_DEAL_SPREAD -np 2 %t >%t.out 2>%t.err; cat %t.err >>%t.out
// RUN: FileCheck %s <%t.out
// CHECK: results ok
// CHECK: cluster loop schedules
// CHECK: loop {{.*}};uniform;{{.*}}: 3 runs, {{[0-9]+}} decisions (probed: cross {{[1-9][0-9]*}}, {{.*}} run while waiting for the others' probes; last:
// CHECK: loop {{.*}};jump;{{.*}}: 3 runs, {{.*}} run while waiting for the others' probes, {{[1-9][0-9]*}} rests dealt in rounds; last:
// CHECK-NOT: FAIL
#include <stdint.h>
#include <stdio.h>

#define N 40000

static uint64_t work(long i, int reps)
{
    uint64_t x = (uint64_t)i;
    for (int k = 0; k < reps; k++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x >> 40;
}

static int cost_jump(long i)
{
    return i < N / 2 ? 64 : 4096;
}

static uint64_t uniform(void)
{
    uint64_t h = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : h)
    for (long i = 0; i < N; i++)
        h += work(i, 2048);
    return h;
}

static uint64_t jump(void)
{
    uint64_t h = 0;
#pragma omp parallel for schedule(runtime) reduction(+ : h)
    for (long i = 0; i < N; i++)
        h += work(i, cost_jump(i));
    return h;
}

int main(void)
{
    uint64_t want_u = 0, want_j = 0;
    int fails = 0;
    for (long i = 0; i < N; i++)
        want_u += work(i, 2048), want_j += work(i, cost_jump(i));
    for (int r = 0; r < 3; r++) {
        uint64_t u = uniform(), j = jump();
        if (u != want_u)
            printf("FAIL uniform run %d: %llu, want %llu\n", r,
                   (unsigned long long)u, (unsigned long long)want_u),
                fails++;
        if (j != want_j)
            printf("FAIL jump run %d: %llu, want %llu\n", r,
                   (unsigned long long)j, (unsigned long long)want_j),
                fails++;
    }
    if (!fails)
        printf("results ok\n");
    return fails != 0;
}
