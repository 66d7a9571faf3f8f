/*
 * test_sync.c - reductions (both methods, blocking and nowait), barrier,
 * single + copyprivate, critical, master/masked, ordered, OpenMP locks and
 * explicit tasks (plain, with dependences, taskgroup) through the hcrt ABI.
 */
#include "rt_test.h"

static hcrt_critical_name_t red_lock, crit_name;
/* KMP_IDENT_ATOMIC_REDUCE lets libomp choose the atomic method (2). */
static hcrt_ident_t atomic_loc = {0, 0x12, 0, 22, ";rt_test.c;red;1;1;;"};

static void red_fn(void *lhs, void *rhs)
{
    *(long *)((void **)lhs)[0] += *(long *)((void **)rhs)[0];
}

static void reduce_once(int32_t gtid, int32_t btid, long *shared, int nowait,
                        hcrt_ident_t *loc)
{
    long priv = btid + 1;
    void *list[1] = {&priv};
    int32_t rc = nowait ? __hcrt_reduce_nowait(loc, gtid, 1, sizeof(list), list,
                                               red_fn, &red_lock)
                        : __hcrt_reduce(loc, gtid, 1, sizeof(list), list,
                                        red_fn, &red_lock);

    if (rc == 1)
        *shared += priv;
    else if (rc == 2)
        __atomic_fetch_add(shared, priv, __ATOMIC_RELAXED);
    if (rc == 1 || (rc == 2 && !nowait)) {
        if (nowait)
            __hcrt_end_reduce_nowait(loc, gtid, &red_lock);
        else
            __hcrt_end_reduce(loc, gtid, &red_lock);
    }
    __hcrt_barrier(loc, gtid);
}

static void cp_fn(void *dst, void *src)
{
    *(int *)((void **)dst)[0] = *(int *)((void **)src)[0];
}

static void single_copyprivate(int32_t gtid)
{
    int val = -1, didit = 0;
    void *list[1] = {&val};

    if (__hcrt_single(&rt_loc, gtid)) {
        val = 42;
        didit = 1;
        __hcrt_end_single(&rt_loc, gtid);
    }
    __hcrt_copyprivate(&rt_loc, gtid, sizeof(list), list, cp_fn, didit);
    CHECK_EQ(val, 42);
}

static void ordered_loop(int32_t gtid, int *seq, int *next)
{
    int32_t last, lo, hi, st;

    __hcrt_dispatch_init_4(&rt_loc, gtid, 67 /* ordered dynamic */, 0, 99, 1,
                           1);
    while (__hcrt_dispatch_next_4(&rt_loc, gtid, &last, &lo, &hi, &st))
        for (int32_t i = lo; i <= hi; i++) {
            __hcrt_ordered(&rt_loc, gtid);
            seq[(*next)++] = i;
            __hcrt_end_ordered(&rt_loc, gtid);
            __hcrt_dispatch_fini_4(&rt_loc, gtid);
        }
    __hcrt_barrier(&rt_loc, gtid);
}

typedef struct shared_state {
    long sum[4];
    int crit_count, masked_count, master_count, nthreads;
    int seq[100], next;
    rt_omp_lock_t lock;
    int lock_count;
} shared_state_t;

RT_REGION(sync, 0x3001, 1);
static void sync_body(int32_t gtid, int32_t btid, void **args)
{
    shared_state_t *s = args[0];

    for (int v = 0; v < 4; v++)
        reduce_once(gtid, btid, &s->sum[v], v & 1,
                    v & 2 ? &atomic_loc : &rt_loc);
    single_copyprivate(gtid);
    for (int i = 0; i < 1000; i++) {
        __hcrt_critical(&rt_loc, gtid, &crit_name);
        s->crit_count++;
        __hcrt_end_critical(&rt_loc, gtid, &crit_name);
        __hcrt_omp_set_lock(&s->lock);
        s->lock_count++;
        __hcrt_omp_unset_lock(&s->lock);
    }
    if (__hcrt_masked(&rt_loc, gtid, 1)) {
        CHECK_EQ(btid, 1);
        s->masked_count++;
        __hcrt_end_masked(&rt_loc, gtid);
    }
    if (__hcrt_master(&rt_loc, gtid)) {
        CHECK_EQ(btid, 0);
        s->master_count++;
        __hcrt_end_master(&rt_loc, gtid);
    }
    ordered_loop(gtid, s->seq, &s->next);
}

static void test_sync(int n)
{
    shared_state_t s = {0};
    void *args[1] = {&s};

    __hcrt_omp_init_lock(&s.lock);
    rt_fork(&sync_region, n, args);
    for (int v = 0; v < 4; v++)
        CHECK_EQ(s.sum[v], n * (n + 1) / 2);
    CHECK_EQ(s.crit_count, 1000 * n);
    CHECK_EQ(s.lock_count, 1000 * n);
    CHECK_EQ(s.masked_count, n >= 2 ? 1 : 0);
    CHECK_EQ(s.master_count, 1);
    CHECK_EQ(s.next, 100);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(s.seq[i], i);
    CHECK_EQ(__hcrt_omp_test_lock(&s.lock), 1);
    __hcrt_omp_unset_lock(&s.lock);
    __hcrt_omp_destroy_lock(&s.lock);
}

/* ---- tasks: kmp_task_t layout followed by our private value ------------ */

typedef struct rt_task {
    void *shareds;
    void *routine;
    int32_t part_id;
    void *data1, *data2;
    long value;
} rt_task_t;

static int32_t add_entry(int32_t gtid, void *task)
{
    rt_task_t *t = task;
    (void)gtid;
    __atomic_fetch_add(*(long **)t->shareds, t->value, __ATOMIC_RELAXED);
    return 0;
}

static rt_task_t *new_task(int32_t gtid, long *target, long value,
                           hcrt_task_entry_t entry)
{
    rt_task_t *t = __hcrt_omp_task_alloc(&rt_loc, gtid, 1, sizeof(rt_task_t),
                                         sizeof(long *), entry);
    *(long **)t->shareds = target;
    t->value = value;
    return t;
}

/* Copies value into *target only after the producer's write (depend in). */
static int32_t copy_entry(int32_t gtid, void *task)
{
    rt_task_t *t = task;
    (void)gtid;
    **(long **)t->shareds = *(volatile long *)(intptr_t)t->value;
    return 0;
}

static int32_t slow_set_entry(int32_t gtid, void *task)
{
    rt_task_t *t = task;
    volatile int spin = 200000;
    (void)gtid;
    while (spin-- > 0)
        ;
    **(long **)t->shareds = t->value;
    return 0;
}

RT_REGION(tasks, 0x3002, 1);
static void tasks_body(int32_t gtid, int32_t btid, void **args)
{
    long *r = args[0];

    (void)btid;
    if (__hcrt_single(&rt_loc, gtid)) {
        for (long i = 1; i <= 100; i++)
            __hcrt_omp_task(&rt_loc, gtid, new_task(gtid, &r[0], i, add_entry));
        __hcrt_omp_taskwait(&rt_loc, gtid);
        CHECK_EQ(r[0], 5050);
        __hcrt_taskgroup(&rt_loc, gtid);
        for (long i = 1; i <= 10; i++)
            __hcrt_omp_task(&rt_loc, gtid, new_task(gtid, &r[1], i, add_entry));
        __hcrt_end_taskgroup(&rt_loc, gtid);
        CHECK_EQ(r[1], 55);
        hcrt_depend_info_t out = {(intptr_t)&r[2], sizeof(long), 2};
        hcrt_depend_info_t in = {(intptr_t)&r[2], sizeof(long), 1};
        __hcrt_omp_task_with_deps(&rt_loc, gtid,
                                  new_task(gtid, &r[2], 7, slow_set_entry), 1,
                                  &out, 0, NULL);
        __hcrt_omp_task_with_deps(
            &rt_loc, gtid,
            new_task(gtid, &r[3], (long)(intptr_t)&r[2], copy_entry), 1, &in, 0,
            NULL);
        __hcrt_omp_taskwait(&rt_loc, gtid);
        CHECK_EQ(r[3], 7);
        __hcrt_end_single(&rt_loc, gtid);
    }
    __hcrt_barrier(&rt_loc, gtid);
}

int main(void)
{
    for (int n = 1; n <= 3; n++) {
        long r[4] = {0};
        void *args[1] = {r};
        test_sync(n);
        rt_fork(&tasks_region, n, args);
        CHECK_EQ(r[0], 5050);
    }
    return rt_report("test_sync");
}
