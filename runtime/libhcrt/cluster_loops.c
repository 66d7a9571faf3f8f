/*
 * cluster_loops.c - worksharing loops over a cluster team.
 *
 * At the outer level of a cluster region hcrt schedules loops itself over
 * the cluster's thread numbers (cluster.h), never libomp:
 * - static: one balanced block per thread in thread order; static,c: chunks
 *   dealt round-robin in thread order. Both depend only on the trip count,
 *   so loops of equal trip count give the same iterations to the same
 *   threads (programs rely on it with nowait).
 * - static with HCRT_SCHED_CSR: node k gets a contiguous range weighted by
 *   its CSR x threads (the same weights for every loop), balanced blocks
 *   inside the node; still a function of the trip count alone.
 * - dynamic and guided: node pools (runtime/sched/pool.c) refilled in blocks
 *   from a counter in DSM memory per loop instance, advanced with DSM
 *   compare-and-swap at its home. The word holds the instance's tag (the
 *   thread's construct number in the region) in its top 24 bits and the
 *   next iteration in the low 40, so a stale value from an earlier instance
 *   reads as "start at 0", and a later tag as "this loop is done". Ordered
 *   loops claim single chunks from the counter directly.
 * - hetprobe / hetprobe_i (schedule(runtime) with a hint or OMP_SCHEDULE,
 *   schedule(auto) by HCRT_SCHED_DEFAULT): runtime/sched/pool.c, hp_*.c.
 * - ordered: a second DSM word per ordered loop holds the next iteration
 *   whose ordered region may run (same tag scheme); a thread waits for its
 *   iteration's turn, acquires, runs, releases and passes the turn on. An
 *   iteration that skips its ordered region passes the turn at its end
 *   (clang calls dispatch_fini after every iteration of an ordered loop).
 * Values travel as 64-bit patterns (sign- or zero-extended by the caller);
 * lastprivate's flag goes to the thread that runs the last iteration.
 */
#include <inttypes.h>
#include <sched.h>
#include <time.h>

#include "base/kmp_abi.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_loops.h"
#include "libhcrt/fault/fault.h"
#include "libhcrt/observe.h"
#include "libhcrt/runtime.h"
#include "sched/pool.h"

#define ITER_BITS 40
#define ITER_MASK ((UINT64_C(1) << ITER_BITS) - 1)
#define TAG_MAX ((UINT64_C(1) << (64 - ITER_BITS)) - 1)

enum { D_STATIC, D_STATIC_CHUNKED, D_DYNAMIC, D_GUIDED };

typedef struct disp {
    int kind, done, active;         /* active: chunks may still be asked for */
    uint64_t lb, trip, chunk, next; /* next: static chunk index */
    int64_t incr;
    uint64_t *slot, tag;
    int ordered, ord_done;
    uint64_t *ord_slot, ord_tag, cur; /* cur: iteration being run */
    hcrt_ident_t *loc;
    hcrt__cl_pool_t *pool; /* node pool (non-ordered dynamic) */
} disp_t;

static _Thread_local disp_t disp;

static int less(uint64_t a, uint64_t b, int sgn)
{
    return sgn ? (int64_t)a < (int64_t)b : a < b;
}

/* In the loop's own width, as libomp counts it: flang encodes a loop that
 * runs no iteration as lb 0, ub 0xffffffff of __kmpc_for_static_init_4u
 * (its trip count less one, wrapped), which libomp's 32-bit count of
 * 2^32 wraps to 0 (NPB UA: a `do iel = n1, nelt, n1` with n1 > nelt ran
 * 2^32 / nodes iterations off its arrays). */
static uint64_t trip_count(uint64_t lb, uint64_t ub, int64_t incr, int sgn,
                           int width)
{
    uint64_t diff, step;

    if (incr == 0)
        return 0;
    if (incr > 0) {
        if (less(ub, lb, sgn))
            return 0;
        diff = ub - lb, step = (uint64_t)incr;
    } else {
        if (less(lb, ub, sgn))
            return 0;
        diff = lb - ub, step = -(uint64_t)incr;
    }
    if (width == 4)
        return ((diff & 0xffffffffu) / step + 1) & 0xffffffffu;
    return diff / step + 1; /* 2^64 wraps to 0 by itself */
}

static int base_sched(int32_t sched)
{
    return sched &
           ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);
}

/* Schedules of loops the slice cannot split across nodes stop the run. */
static void check_sched(hcrt_ident_t *loc, int s)
{
    if (s >= 91)
        hcrt__cluster_unsupported(loc, "a distribute schedule");
}

/* Thread `tid`'s balanced block of schedule(static): plain blocks in thread
 * order, or (HCRT_SCHED_CSR) the node's weighted range split over its
 * threads. Depends only on the trip count. */
static void static_block(uint64_t trip, uint64_t tid, uint64_t *first,
                         uint64_t *n)
{
    uint64_t T = (uint64_t)hcrt__cluster_team.total;

    if (hcrt__cl_static_weighted()) {
        int nn = hcrt__size(), me = hcrt__rank(), thr[nn];
        uint64_t start[nn + 1];
        for (int k = 0; k < nn; k++)
            thr[k] = hcrt__cluster_node_threads(k);
        hcrt__cl_static_split(trip, nn, thr, start);
        uint64_t L = (uint64_t)hcrt__cluster_team.local;
        uint64_t lt = tid - (uint64_t)hcrt__cluster_team.base;
        uint64_t len = start[me + 1] - start[me];
        uint64_t small = len / L, extra = len % L;
        *first = start[me] + lt * small + (lt < extra ? lt : extra);
        *n = small + (lt < extra);
        return;
    }
    uint64_t small = trip / T, extra = trip % T;
    *first = tid * small + (tid < extra ? tid : extra);
    *n = small + (tid < extra);
}

void hcrt__cl_static_init(hcrt_ident_t *loc, int32_t sched, int32_t *plast,
                          uint64_t *plo, uint64_t *phi, int64_t *pstride,
                          int64_t incr, int64_t chunk, int sgn, int width)
{
    int s = base_sched(sched);
    uint64_t T = (uint64_t)hcrt__cluster_team.total;

    if (s >= 64 && s < 91)
        hcrt__cluster_unsupported(loc, "an ordered static loop");
    uint64_t tid = (uint64_t)hcrt__cluster_tid();
    uint64_t lb = *plo, trip = trip_count(lb, *phi, incr, sgn, width);
    int last = 0;

    if (hcrt__cancel_on)
        hcrt__cancel_ws_begin();

    check_sched(loc, s);
    if (trip == 0) {
        if (plast)
            *plast = 0;
        *pstride = incr;
        return;
    }
    if (s == KMP_SCH_STATIC_CHUNKED) {
        uint64_t c = chunk > 0 ? (uint64_t)chunk : 1;
        uint64_t span = c * (uint64_t)incr;
        *plo = lb + span * tid;
        *phi = *plo + span - (uint64_t)incr;
        *pstride = (int64_t)(span * T);
        last = tid == ((trip - 1) / c) % T;
    } else { /* static, and every other static flavour: balanced blocks */
        uint64_t first, n;
        static_block(trip, tid, &first, &n);
        if (n == 0) { /* an empty block just past the loop's end */
            *plo = lb + trip * (uint64_t)incr;
            *phi = *plo - (uint64_t)incr;
        } else {
            *plo = lb + first * (uint64_t)incr;
            *phi = *plo + (n - 1) * (uint64_t)incr;
        }
        last = n > 0 && first + n == trip;
        *pstride = (int64_t)(trip * (uint64_t)incr);
    }
    if (plast)
        *plast = last;
    HCRT_OBS(hcrt__obs_loop_static(loc, lb, trip, *plo, *phi, *pstride, incr));
    hcrt__doing_set(HCRT_DOING_LOOP, loc);
}

/* The schedule of a schedule(runtime) loop: a hetprobe hint, the run-sched
 * ICV, or (ICV auto, e.g. OMP_SCHEDULE=hetprobe) the implementation's
 * choice. Returns a pool kind, or -1 with *s and *chunk set. */
static int runtime_sched(int *s, int64_t *chunk, int hint, int *pct)
{
    hcrt_omp_sched_t k;
    int c;

    if (hint == HCRT_SCHED_HINT_HETPROBE)
        return HCRT_CLP_HETPROBE;
    if (hint == HCRT_SCHED_HINT_HETPROBE_I)
        return HCRT_CLP_HETPROBE_I;
    omp_get_schedule(&k, &c);
    k &= 0x7fffffff;
    if (k == 4) {
        int32_t plain = KMP_SCH_STATIC;
        int kind = hcrt__cl_sched_default(&plain, pct);
        *s = plain;
        return kind;
    }
    *chunk = c;
    *s = k == 1   ? (c > 0 ? KMP_SCH_STATIC_CHUNKED : KMP_SCH_STATIC)
         : k == 3 ? KMP_SCH_GUIDED_CHUNKED
         : k == 2 ? KMP_SCH_DYNAMIC_CHUNKED
                  : KMP_SCH_STATIC;
    return -1;
}

static uint64_t claim_seq(hcrt_ident_t *loc, uint64_t trip, const char *what)
{
    uint32_t seq = hcrt__cluster_next_ws();
    if (seq > TAG_MAX || trip > ITER_MASK / 2)
        hcrt__cluster_unsupported(loc, what);
    return seq;
}

/* This node's pool of the loop instance disp.tag: the sequence numbers of
 * its probe windows claimed after the tag, the cluster team described to
 * the scheduler, and the loop noted with where its pool runs it. */
static hcrt__cl_pool_t *pool_join(hcrt_ident_t *loc, int kind, uint64_t chunk,
                                  int pct)
{
    int nn = hcrt__size(), thr[nn];
    hcrt__cl_team_t team = {nn, hcrt__rank(), hcrt__cluster_team.local,
                            hcrt__cluster_team.total, thr};

    for (int k = 0; k < nn; k++)
        thr[k] = hcrt__cluster_node_threads(k);
    for (int i = hcrt__cl_pool_windows(kind, disp.trip, pct, team.total); i > 0;
         i--)
        (void)hcrt__cluster_next_ws(); /* one sequence number (tag) a window */
    hcrt__cl_pool_t *p = hcrt__cl_pool_join(
        loc, kind, (uint32_t)disp.tag, disp.trip, chunk, pct, &team, disp.slot);
    return p;
}

void hcrt__cl_dispatch_init(hcrt_ident_t *loc, int32_t sched, uint64_t lb,
                            uint64_t ub, int64_t incr, int64_t chunk, int sgn,
                            int width)
{
    int s = base_sched(sched), ordered = 0, pool = -1, pct = 0;
    int hint = hcrt__loops_take_hint(&pct);

    HCRT_OBS(hcrt__obs_loop_dispatch(loc));
    hcrt__doing_set(HCRT_DOING_LOOP, loc);

    check_sched(loc, s);
    if (s > 64 && s <= 71) { /* kmp_ord_*: the same kinds, ordered */
        ordered = 1;
        s -= 32;
    }
    if (s == KMP_SCH_RUNTIME) {
        pool = runtime_sched(&s, &chunk, hint, &pct);
    } else if (s == KMP_SCH_AUTO || hcrt__is_default_loop(sched, chunk)) {
        chunk = 0;
        pool = hcrt__cl_sched_default(&s, &pct);
    }
    if (hcrt__cancel_on)
        hcrt__cancel_ws_begin();
    disp = (disp_t){0};
    disp.active = 1;
    disp.loc = loc;
    disp.lb = lb;
    disp.incr = incr;
    disp.trip = trip_count(lb, ub, incr, sgn, width);
    disp.chunk = chunk > 0 ? (uint64_t)chunk : 1;
    if (pool >= HCRT_CLP_HETPROBE && ordered)
        pool = -1, s = KMP_SCH_DYNAMIC_CHUNKED; /* ordered: turns serialise */
    if (pool >= HCRT_CLP_HETPROBE)
        disp.kind = D_DYNAMIC;
    else if (s == KMP_SCH_STATIC_CHUNKED)
        disp.kind = D_STATIC_CHUNKED;
    else if (s == KMP_SCH_DYNAMIC_CHUNKED || s == 44 /* static_steal */)
        disp.kind = D_DYNAMIC;
    else if (s == KMP_SCH_GUIDED_CHUNKED ||
             (s >= 39 && s <= 43 && s != 40 && s != 41) || s == 46)
        disp.kind = D_GUIDED;
    else
        disp.kind = D_STATIC; /* static, auto, balanced, greedy */
    if (disp.kind >= D_DYNAMIC) {
        disp.tag = claim_seq(loc, disp.trip, "a dynamic loop this long");
        disp.slot = hcrt__cluster_slot((uint32_t)disp.tag);
        if (!ordered) {
            if (pool < 0)
                pool =
                    disp.kind == D_GUIDED ? HCRT_CLP_GUIDED : HCRT_CLP_DYNAMIC;
            disp.pool = pool_join(loc, pool, chunk > 0 ? disp.chunk : 0, pct);
        }
    }
    if (ordered) {
        disp.ordered = 1;
        disp.ord_tag = claim_seq(loc, disp.trip, "an ordered loop this long");
        disp.ord_slot = hcrt__cluster_slot((uint32_t)disp.ord_tag);
    }
}

/* Waits until iteration disp.cur has the ordered turn. */
static void wait_turn(void)
{
    unsigned spins = 0;

    for (;;) {
        uint64_t w =
            hcrt__dsm_atomic(disp.ord_slot, 8, HCRT_DSM_AT_INT,
                             HCRT_DSM_AOP_LOAD, 0, 0, __ATOMIC_RELAXED);
        uint64_t next = (w >> ITER_BITS) == disp.ord_tag ? w & ITER_MASK : 0;
        if (next >= disp.cur)
            return;
        if (++spins > 64) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
    }
}

static void pass_turn(void)
{
    hcrt__dsm_atomic(disp.ord_slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE,
                     (disp.ord_tag << ITER_BITS) | (disp.cur + 1), 0,
                     __ATOMIC_RELAXED);
}

void hcrt__cl_ordered(hcrt_ident_t *loc)
{
    if (!disp.ordered)
        hcrt__cluster_unsupported(loc, "ordered outside an ordered loop");
    wait_turn();
    hcrt__dsm_acquire();
}

void hcrt__cl_end_ordered(void)
{
    hcrt__dsm_release();
    pass_turn();
    disp.ord_done = 1;
}

/* End of one iteration of an ordered loop. */
void hcrt__cl_dispatch_fini(void)
{
    if (!disp.ordered)
        return;
    if (!disp.ord_done) {
        wait_turn();
        pass_turn();
    }
    disp.ord_done = 0;
    disp.cur++;
}

/* Claims [*first, *first + *n) from the shared counter; 0 when done. */
static int claim(uint64_t *first, uint64_t *n)
{
    uint64_t T = (uint64_t)hcrt__cluster_team.total;
    uint64_t old = hcrt__dsm_atomic(disp.slot, 8, HCRT_DSM_AT_INT,
                                    HCRT_DSM_AOP_LOAD, 0, 0, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t tag = old >> ITER_BITS, next = old & ITER_MASK;
        if (tag > disp.tag)
            return 0; /* every thread passed this loop: it is finished */
        if (tag < disp.tag)
            next = 0; /* first claim of this instance */
        if (next >= disp.trip)
            return 0;
        uint64_t left = disp.trip - next, size = disp.chunk;
        if (disp.kind == D_GUIDED && (left + 2 * T - 1) / (2 * T) > size)
            size = (left + 2 * T - 1) / (2 * T);
        if (size > left)
            size = left;
        uint64_t want = (disp.tag << ITER_BITS) | (next + size);
        uint64_t seen =
            hcrt__dsm_atomic(disp.slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS,
                             want, old, __ATOMIC_RELAXED);
        if (seen == old) {
            *first = next, *n = size;
            return 1;
        }
        old = seen;
    }
}

/* The static chunk(s) of this thread, one per call. */
static int next_static(uint64_t *first, uint64_t *n)
{
    uint64_t T = (uint64_t)hcrt__cluster_team.total;
    uint64_t tid = (uint64_t)hcrt__cluster_tid();

    if (disp.kind == D_STATIC) {
        if (disp.next++ > 0)
            return 0;
        static_block(disp.trip, tid, first, n);
        return *n > 0;
    }
    uint64_t k = tid + disp.next++ * T;
    if (k >= (disp.trip + disp.chunk - 1) / disp.chunk)
        return 0;
    *first = k * disp.chunk;
    *n = disp.trip - *first < disp.chunk ? disp.trip - *first : disp.chunk;
    return 1;
}

int hcrt__cl_dispatch_next(int32_t *plast, uint64_t *plo, uint64_t *phi,
                           int64_t *pstride)
{
    uint64_t first, n;
    int ok;

    /* a cancelled loop or region hands out nothing more; an ordered loop
     * runs out (clang refuses cancel inside one, and a thread waiting for
     * a turn needs every iteration before it run) */
    if (HCRT_UNLIKELY(hcrt__cancel_on) && disp.active && !disp.ordered &&
        hcrt__cancel_ws_stopped()) {
        hcrt__cl_loop_abandon(NULL);
        return 0;
    }
    if (disp.pool) {
        ok = hcrt__cl_pool_next(disp.pool, &first, &n);
        if (!ok)
            disp.pool = NULL; /* the thread left it */
    } else {
        ok = disp.kind >= D_DYNAMIC ? claim(&first, &n)
                                    : next_static(&first, &n);
    }
    HCRT_OBS(hcrt__obs_loop_chunk(ok ? n : 0));
    if (!ok) {
        disp.active = 0;
        return 0;
    }
    disp.cur = first, disp.ord_done = 0;
    *plo = disp.lb + first * (uint64_t)disp.incr;
    *phi = *plo + (n - 1) * (uint64_t)disp.incr;
    if (pstride)
        *pstride = disp.incr;
    if (plast)
        *plast = first + n == disp.trip;
    return 1;
}

/* The calling thread leaves its dispatch loop early (cancel): it still
 * sees its node's pool to the end, as every joined thread must, but takes
 * no more iterations. */
void hcrt__cl_loop_abandon(hcrt_ident_t *loc)
{
    uint64_t first, n;

    if (!disp.active)
        return;
    if (disp.ordered) /* never from clang: it refuses cancel in one */
        hcrt__cluster_unsupported_fix(
            loc ? loc : disp.loc, "cancelling a loop with an ordered clause",
            "threads waiting for the cancelled iterations' ordered turn "
            "would wait for ever: remove the ordered clause or the cancel");
    disp.active = 0;
    if (disp.pool) { /* every joined thread must see the pool to its end */
        hcrt__cl_pool_cancel(disp.pool);
        while (hcrt__cl_pool_next(disp.pool, &first, &n))
            ;
        disp.pool = NULL;
    }
}
