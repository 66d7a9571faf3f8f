// critical (unnamed, named, with hint), single (copyprivate, nowait),
// master, masked, barrier phases, sections (firstprivate, lastprivate),
// omp_lock_t, omp_nest_lock_t, omp_test_lock and threadprivate with copyin.
// RUN: %e2e --O0 %s %t
#include <omp.h>

#include "e2e.h"

static long tp_counter = 100;
#pragma omp threadprivate(tp_counter)

static long nested_depth(omp_nest_lock_t *l, int depth)
{
    if (depth == 0)
        return 0;
    omp_set_nest_lock(l);
    long r = 1 + nested_depth(l, depth - 1);
    omp_unset_nest_lock(l);
    return r;
}

int main(void)
{
    /* critical: a non-atomic read-modify-write of several variables */
    long a = 0, b = 0, hist[8] = {0};
    double mean_num = 0;
#pragma omp parallel for
    for (int i = 0; i < 5000; i++) {
#pragma omp critical
        {
            a += i;
            b = b * 3 % 1000003 + 0 * a; /* order-free: b stays 0 */
        }
#pragma omp critical(histogram)
        hist[i % 8] += i;
#pragma omp critical(mean) hint(omp_sync_hint_contended)
        mean_num += i % 3;
    }
    CHECK(a == 12497500 && b == 0 && hist[3] == 1561875 && mean_num == 4999,
          "critical: %ld %ld %ld %g", a, b, hist[3], mean_num);
    printf("critical: %ld %ld %.0f hist=%016llx\n", a, hist[7], mean_num,
           (unsigned long long)e2e_hash_longs(hist, 8));

    /* single + copyprivate; master; masked; barrier phases */
    int singles = 0, masters = 0, maskeds = 0, cp_bad = 0, phase_bad = 0;
    long phase[3] = {0, 0, 0};
#pragma omp parallel reduction(+ : cp_bad, phase_bad)
    {
        long mine;
        double dmine;
#pragma omp single copyprivate(mine, dmine)
        {
            mine = 424242;
            dmine = 2.5;
            singles++;
        }
        cp_bad += mine != 424242 || dmine != 2.5;
#pragma omp master
        masters++;
#pragma omp masked filter(0)
        maskeds++;
#pragma omp atomic
        phase[0]++;
#pragma omp barrier
        long seen0 = phase[0];
#pragma omp barrier
#pragma omp atomic
        phase[1] += seen0;
#pragma omp barrier
        phase_bad += phase[1] != seen0 * omp_get_num_threads();
#pragma omp single nowait
        phase[2] = 1;
    }
    CHECK(singles == 1 && masters == 1 && maskeds == 1 && cp_bad == 0 &&
              phase_bad == 0 && phase[2] == 1,
          "single/master/masked/barrier: %d %d %d %d %d", singles, masters,
          maskeds, cp_bad, phase_bad);
    printf("single=%d master=%d masked=%d copyprivate_bad=%d barrier_bad=%d\n",
           singles, masters, maskeds, cp_bad, phase_bad);

    /* sections: each runs once; firstprivate and lastprivate */
    int ran[5] = {0};
    int fp = 7, lp = -1;
#pragma omp parallel sections firstprivate(fp) lastprivate(lp)
    {
#pragma omp section
        {
            ran[0] += fp;
            lp = 10;
        }
#pragma omp section
        {
            ran[1] += fp * 2;
            lp = 20;
        }
#pragma omp section
        {
            ran[2] += fp * 3;
            lp = 30;
        }
#pragma omp section
        {
            ran[3] += fp * 4;
            lp = 40;
        }
#pragma omp section
        {
            ran[4] += fp * 5;
            lp = 50;
        }
    }
    CHECK(ran[0] == 7 && ran[4] == 35 && lp == 50, "sections: %d %d lp=%d",
          ran[0], ran[4], lp);
    int orphan_sections = 0;
#pragma omp parallel
    {
#pragma omp sections nowait
        {
#pragma omp section
#pragma omp atomic
            orphan_sections += 1;
#pragma omp section
#pragma omp atomic
            orphan_sections += 10;
        }
    }
    CHECK(orphan_sections == 11, "sections nowait: %d", orphan_sections);
    printf("sections: %d %d %d %d %d lp=%d nowait=%d\n", ran[0], ran[1], ran[2],
           ran[3], ran[4], lp, orphan_sections);

    /* locks */
    omp_lock_t lock;
    omp_nest_lock_t nest;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    long locked_sum = 0, nest_sum = 0, tests = 0;
#pragma omp parallel for
    for (int i = 0; i < 3000; i++) {
        omp_set_lock(&lock);
        locked_sum += i;
        omp_unset_lock(&lock);
        long d = nested_depth(&nest, i % 4 + 1);
        omp_set_nest_lock(&nest);
        nest_sum += d;
        omp_unset_nest_lock(&nest);
        while (!omp_test_lock(&lock))
            ;
        tests++;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    CHECK(locked_sum == 4498500 && nest_sum == 7500 && tests == 3000,
          "locks: %ld %ld %ld", locked_sum, nest_sum, tests);
    printf("locks: %ld %ld %ld\n", locked_sum, nest_sum, tests);

    /* threadprivate persists across regions of the same team; copyin
     * broadcasts the master's value. */
    tp_counter = 5;
    int tp_bad = 0;
#pragma omp parallel copyin(tp_counter) reduction(+ : tp_bad)
    {
        tp_bad += tp_counter != 5;
        tp_counter = 1000 + omp_get_thread_num();
    }
#pragma omp parallel reduction(+ : tp_bad)
    tp_bad += tp_counter != 1000 + omp_get_thread_num();
    CHECK(tp_bad == 0 && tp_counter == 1000, "threadprivate: %d bad, %ld",
          tp_bad, tp_counter);
    printf("threadprivate: master=%ld bad=%d\n", tp_counter, tp_bad);
    return e2e_finish("sync");
}
