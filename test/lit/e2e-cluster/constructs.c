// Constructs across nodes: sections (each section exactly once in the whole
// team, with lastprivate), tasks created in a cluster region (taskwait,
// taskgroup, and the barrier completing them), omp_test_lock (never waits:
// it fails while another thread holds the lock), omp_test_nest_lock,
// flush with a flag, and named critical sections that exclude each other
// only by name. Everything is counted in shared memory and checked.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PAGE __attribute__((aligned(4096)))
int sec_runs[8] PAGE;
long task_sum PAGE, group_sum PAGE, bar_sum PAGE;
long crit_a PAGE, crit_b PAGE;
int test_fail PAGE, test_ok PAGE;
volatile int flag PAGE;
long payload PAGE;
int nest_bad PAGE;

static void spawn(long *sum, int n)
{
    for (int i = 1; i <= n; i++) {
#pragma omp task firstprivate(i) shared(sum)
        {
#pragma omp atomic
            *sum += i;
        }
    }
}

int main(void)
{
    int bad = 0, last = -1, T = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest;

    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
#pragma omp parallel sections lastprivate(last)
    {
#pragma omp section
        {
#pragma omp atomic
            sec_runs[0]++;
            last = 0;
        }
#pragma omp section
        {
#pragma omp atomic
            sec_runs[1]++;
            last = 1;
        }
#pragma omp section
        {
#pragma omp atomic
            sec_runs[2]++;
            last = 2;
        }
#pragma omp section
        {
#pragma omp atomic
            sec_runs[3]++;
            last = 3;
        }
#pragma omp section
        {
#pragma omp atomic
            sec_runs[4]++;
            last = 4;
        }
    }
    for (int s = 0; s < 5; s++)
        bad += sec_runs[s] != 1;
    printf("sections: each once %s, lastprivate %d\n", bad ? "NO" : "yes",
           last);

    long iters = 0;
#pragma omp parallel reduction(+ : bad)
    {
        /* A worksharing loop makes this a cluster region (a region that
         * only creates tasks stays on the head, docs/runtime.md). */
#pragma omp for reduction(+ : iters)
        for (int i = 0; i < 100; i++)
            iters++;
#pragma omp single
        T = omp_get_num_threads();
        /* Every thread creates tasks; taskwait waits for its children. */
        long mine = 0;
        spawn(&mine, 10);
#pragma omp taskwait
        bad += mine != 55;
#pragma omp atomic
        task_sum += mine;
#pragma omp taskgroup
        spawn(&group_sum, 20);
        /* group_sum holds at least this thread's 210 now. */
        spawn(&bar_sum, 4);
#pragma omp barrier
        /* The barrier completed every thread's tasks, on every node. */
        bad += bar_sum != 10L * T;
    }
    bad += iters != 100;
    printf("tasks: taskwait %s, taskgroup %s, barrier %s\n",
           task_sum == 55L * T ? "ok" : "WRONG",
           group_sum == 210L * T ? "ok" : "WRONG",
           bar_sum == 10L * T ? "ok" : "WRONG");

    /* omp_test_lock never waits: while thread 0 holds the lock across a
     * barrier, every other thread's test fails. */
#pragma omp parallel
    {
        int me = omp_get_thread_num();
        if (me == 0)
            omp_set_lock(&lock);
#pragma omp barrier
        if (me != 0 && omp_test_lock(&lock)) {
#pragma omp atomic
            test_fail++;
            omp_unset_lock(&lock);
        }
#pragma omp barrier
        if (me == 0)
            omp_unset_lock(&lock);
#pragma omp barrier
        while (!omp_test_lock(&lock))
            ;
        test_ok++; /* protected by the lock */
        omp_unset_lock(&lock);
        /* Nestable: the owner re-enters through test, others fail. */
#pragma omp barrier
        if (me == 0) {
            omp_set_nest_lock(&nest);
            nest_bad += omp_test_nest_lock(&nest) != 2;
        }
#pragma omp barrier
        if (me != 0 && omp_test_nest_lock(&nest)) {
#pragma omp atomic
            nest_bad++;
            omp_unset_nest_lock(&nest);
        }
#pragma omp barrier
        if (me == 0) {
            omp_unset_nest_lock(&nest);
            omp_unset_nest_lock(&nest);
        }
    }
    printf("locks: test while held failed everywhere %s, %s, nest %s\n",
           test_fail == 0 ? "yes" : "NO", test_ok == T ? "counted" : "LOST",
           nest_bad == 0 ? "ok" : "WRONG");

    /* flush: the last thread publishes a payload, then a flag; thread 0
     * spins on the flag with flushes and must then see the payload. */
    int seen = -1;
#pragma omp parallel shared(seen)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();
        if (me == n - 1) {
            payload = 4242;
#pragma omp flush
            flag = 1;
#pragma omp flush
        }
        if (me == 0) {
            int f = 0;
            while (!f) {
#pragma omp flush
                f = flag;
            }
#pragma omp flush
            seen = (int)payload;
        }
    }
    printf("flush: %d\n", seen);

#pragma omp parallel for
    for (int i = 0; i < 400; i++) {
        if (i % 2) {
#pragma omp critical(alpha)
            crit_a += i;
        } else {
#pragma omp critical(beta)
            crit_b += i;
        }
    }
    printf("named critical: %ld %ld\n", crit_a, crit_b);
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    printf("bad %d\n", bad);
    return bad != 0;
}
