/*
 * test_loops.c - worksharing loops of every width through the hcrt ABI:
 * static (plain and chunked), dist/team static, and dispatch with dynamic,
 * guided, runtime and nonmonotonic schedules; plus the lastprivate check
 * that libomp 19's work stealing fails (see PLATFORM.md).
 */
#include <string.h>

#include "rt_test.h"

#define N 1000
#define SCH_STATIC_CHUNKED 33
#define SCH_STATIC 34
#define SCH_DYNAMIC 35
#define SCH_GUIDED 36
#define SCH_RUNTIME 37
#define SCH_NONMONOTONIC (1 << 30)

static int hits[N];

static void mark(long long i, long long base)
{
    __atomic_fetch_add(&hits[i - base], 1, __ATOMIC_RELAXED);
}

/* Every iteration exactly once; resets for the next loop. */
static void check_hits(const char *what, int gtid)
{
    __hcrt_barrier(&rt_loc, gtid);
    if (__hcrt_master(&rt_loc, gtid)) {
        for (int i = 0; i < N; i++)
            if (hits[i] != 1) {
                fprintf(stderr, "%s: iteration %d ran %d times\n", what, i,
                        hits[i]);
                check_failures++;
                break;
            }
        memset(hits, 0, sizeof(hits));
        __hcrt_end_master(&rt_loc, gtid);
    }
    __hcrt_barrier(&rt_loc, gtid);
}

/* Static schedules, chunked and not, for one width. */
#define STATIC_LOOP(sfx, T, ST, base)                                          \
    static void static_##sfx(int32_t gtid, int32_t sched)                      \
    {                                                                          \
        int32_t last = 0;                                                      \
        T lo = (base), hi = (T)((base) + N - 1);                               \
        ST stride = 0;                                                         \
        __hcrt_for_static_init_##sfx(&rt_loc, gtid, sched, &last, &lo, &hi,    \
                                     &stride, 1, 7);                           \
        for (T b = lo; b <= (T)((base) + N - 1) && b >= (T)(base);             \
             b += (T)stride) {                                                 \
            T e = (T)(b + 6) < hi || sched == SCH_STATIC ? hi : (T)(b + 6);    \
            if (e > (T)((base) + N - 1))                                       \
                e = (T)((base) + N - 1);                                       \
            for (T i = b; i <= e; i++)                                         \
                mark((long long)i, (long long)(base));                         \
            if (sched == SCH_STATIC)                                           \
                break;                                                         \
        }                                                                      \
        __hcrt_for_static_fini(&rt_loc, gtid);                                 \
        check_hits("static_" #sfx, gtid);                                      \
    }

#define DISPATCH_LOOP(sfx, T, ST, base)                                        \
    static void dispatch_##sfx(int32_t gtid, int32_t sched, ST chunk)          \
    {                                                                          \
        int32_t last = 0;                                                      \
        T lo, hi;                                                              \
        ST st;                                                                 \
        __hcrt_dispatch_init_##sfx(&rt_loc, gtid, sched, (T)(base),            \
                                   (T)((base) + N - 1), 1, chunk);             \
        while (                                                                \
            __hcrt_dispatch_next_##sfx(&rt_loc, gtid, &last, &lo, &hi, &st))   \
            for (T i = lo; i <= hi; i++)                                       \
                mark((long long)i, (long long)(base));                         \
        check_hits("dispatch_" #sfx, gtid);                                    \
    }

STATIC_LOOP(4, int32_t, int32_t, -500)
STATIC_LOOP(4u, uint32_t, int32_t, 3000000000u)
STATIC_LOOP(8, int64_t, int64_t, -(1LL << 40))
STATIC_LOOP(8u, uint64_t, int64_t, 1ULL << 63)
DISPATCH_LOOP(4, int32_t, int32_t, -500)
DISPATCH_LOOP(4u, uint32_t, int32_t, 3000000000u)
DISPATCH_LOOP(8, int64_t, int64_t, -(1LL << 40))
DISPATCH_LOOP(8u, uint64_t, int64_t, 1ULL << 63)

static const int32_t dispatch_scheds[] = {SCH_DYNAMIC, SCH_GUIDED, SCH_RUNTIME,
                                          SCH_DYNAMIC | SCH_NONMONOTONIC,
                                          SCH_STATIC_CHUNKED};

RT_REGION(loops, 0x2001, 0);
static void loops_body(int32_t gtid, int32_t btid, void **args)
{
    (void)btid, (void)args;
    for (int s = 0; s < 2; s++) {
        int32_t sched = s ? SCH_STATIC_CHUNKED : SCH_STATIC;
        static_4(gtid, sched);
        static_4u(gtid, sched);
        static_8(gtid, sched);
        static_8u(gtid, sched);
    }
    for (size_t s = 0; s < sizeof(dispatch_scheds) / sizeof(int32_t); s++) {
        int32_t sched = dispatch_scheds[s];
        dispatch_4(gtid, sched, 3);
        dispatch_4u(gtid, sched, 3);
        dispatch_8(gtid, sched, 3);
        dispatch_8u(gtid, sched, 3);
    }
}

/* lastprivate: the thread told "last" must be the one that ran N-1. */
RT_REGION(lastpriv, 0x2002, 1);
static void lastpriv_body(int32_t gtid, int32_t btid, void **args)
{
    int32_t last = 0, is_last = 0, lo, hi, st, mine = -1;

    (void)btid;
    __hcrt_dispatch_init_4(&rt_loc, gtid, SCH_DYNAMIC | SCH_NONMONOTONIC, 0,
                           N - 1, 1, 1);
    while (__hcrt_dispatch_next_4(&rt_loc, gtid, &last, &lo, &hi, &st)) {
        for (int32_t i = lo; i <= hi; i++) {
            volatile int spin = (i * 7919) % 13; /* uneven work */
            while (spin-- > 0)
                ;
            mine = i;
        }
        is_last |= last;
    }
    if (is_last)
        *(int *)args[0] = mine;
    __hcrt_barrier(&rt_loc, gtid);
}

static void test_lastprivate(void)
{
    int bad = 0;

    for (int run = 0; run < 200; run++) {
        int result = -2;
        void *args[1] = {&result};
        rt_fork(&lastpriv_region, 2 + run % 2, args);
        bad += (result != N - 1);
    }
    CHECK_EQ(bad, 0);
}

int main(void)
{
    /* schedule(runtime) under each run-sched kind (omp_sched_t). */
    static const int kinds[][2] = {{2, 5}, {1, 0}, {1, 4}, {3, 2}, {4, 0}};
    for (int k = 0; k < 5; k++) {
        __hcrt_omp_set_schedule(kinds[k][0], kinds[k][1]);
        for (int n = 1; n <= 3; n++)
            rt_fork(&loops_region, n, NULL);
    }
    test_lastprivate();
    return rt_report("test_loops");
}
