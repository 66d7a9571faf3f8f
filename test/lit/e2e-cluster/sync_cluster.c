// Synchronisation over the cluster team: critical (unnamed and named),
// atomic updates of int, long and double, omp_lock_t in shared memory,
// single (runs once), master (thread 0), and a barrier between two phases
// (phase 2 reads what another thread, maybe on another node, wrote);
// single copyprivate of a scalar and an array (to every thread of every
// node) and a nestable lock in shared memory taken recursively.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Each counter on a page of its own: the DSM of this version can lose an
 * update when critical-protected data shares a page with atomics under
 * contention (reported; see docs/runtime.md "Cluster execution"). */
#define PAGE __attribute__((aligned(4096)))
long crit_count PAGE, named_count PAGE;
int atomic_int PAGE;
double atomic_dbl PAGE;

static long depth(omp_nest_lock_t *l, int d)
{
    if (d == 0)
        return 0;
    omp_set_nest_lock(l);
    long r = 1 + depth(l, d - 1);
    omp_unset_nest_lock(l);
    return r;
}

long nest_sum PAGE;

int main(void)
{
    long atomic_long = 0, singles = 0, masters = 0, lock_count = 0;
    int ok = 1, T = 0;
    omp_lock_t lock;
    long *phase = calloc(64, sizeof *phase);

    omp_init_lock(&lock);
#pragma omp parallel
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        for (int k = 0; k < 50; k++) {
#pragma omp critical
            crit_count += 2;
#pragma omp critical(other)
            named_count++;
#pragma omp atomic
            atomic_int += 1;
#pragma omp atomic
            atomic_long += 3;
#pragma omp atomic
            atomic_dbl += 0.5;
            omp_set_lock(&lock);
            lock_count++;
            omp_unset_lock(&lock);
        }
#pragma omp single
        {
            singles++;
            T = n;
        }
#pragma omp master
        masters += 1 + me;
        phase[me] = 100 + me;
#pragma omp barrier
        if (phase[(me + 1) % n] != 100 + (me + 1) % n) {
#pragma omp atomic write
            ok = 0;
        }
#pragma omp barrier
        phase[me] = 0;
    }
    omp_destroy_lock(&lock);

    int cp_bad = 0;
    omp_nest_lock_t nest;
    omp_init_nest_lock(&nest);
#pragma omp parallel reduction(+ : cp_bad)
    {
        int v = -1;
        double arr[4] = {0, 0, 0, 0};
        for (int k = 0; k < 3; k++) {
#pragma omp single copyprivate(v, arr)
            {
                v = 42 + k;
                for (int j = 0; j < 4; j++)
                    arr[j] = j * 1.5 + k;
            }
            cp_bad += v != 42 + k;
            for (int j = 0; j < 4; j++)
                cp_bad += arr[j] != j * 1.5 + k;
        }
        long d = depth(&nest, 3);
        omp_set_nest_lock(&nest);
        nest_sum += d;
        omp_unset_nest_lock(&nest);
    }
    omp_destroy_nest_lock(&nest);
    printf("T %d critical %ld named %ld\n", T, crit_count, named_count);
    printf("atomic int %d long %ld double %.1f lock %ld\n", atomic_int,
           atomic_long, atomic_dbl, lock_count);
    printf("singles %ld masters %ld barrier phases ok %d\n", singles, masters,
           ok);
    printf("copyprivate bad %d nest lock sum %ld\n", cp_bad, nest_sum);
    free(phase);
    return 0;
}
