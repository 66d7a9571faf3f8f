/*
 * cancel.c - cancellation across nodes (OMP_CANCELLATION=true).
 *
 * State: one page of DSM words at the head. Word 0 is the running
 * region's `cancel parallel`: (epoch << 32) | the canceller's barrier
 * count. Word 1 + k % (NWORDS - 1) is worksharing construct k's (loops and
 * sections, numbered in the order every thread meets them): (epoch << 32)
 * | k. The epoch counts the cluster regions of the job (the same on every
 * rank), so a word left from an earlier region or construct never reads
 * as a cancellation and nothing is reset between them; libomp instead
 * resets its one team flag inside each barrier.
 *
 * Cancelling: a DSM release (cancel is a flush), then a compare-and-swap
 * at the word's home; the first `cancel parallel` of a region wins.
 * Observing: a thread compares its rank's copy of the word (`seen`); when
 * that does not show a cancellation it loads the word at its home, at most
 * every HCRT_CANCEL_POLL_US (a load from another host is a message round
 * trip); the first thread of a rank to see a cancellation acquires, then
 * publishes it to the rank's other threads.
 *
 * Barriers: as in libomp, a cancellation-aware barrier returns 1 only for
 * a cancelled region, after one more barrier, and every thread must decide
 * alike. A thread that passed barrier n and returned 0 may cancel the
 * region before a slower thread of that barrier looked: the stamp (the
 * canceller's barrier count, n) then says the cancellation came after
 * barrier n, and every thread acts on it at barrier n + 1 instead.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/stats.h"
#include "dsm/dsm.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_loops.h"
#include "libhcrt/runtime.h"

enum { K_PARALLEL = 1, K_LOOP = 2, K_SECTIONS = 3 }; /* libomp's kinds */

#define NWORDS 512 /* one page of words */

int hcrt__cancel_on;
_Thread_local uint32_t hcrt__cancel_bars;
static _Thread_local uint32_t t_ws;     /* worksharing constructs entered */
static _Thread_local uint32_t t_ws_bar; /* barriers passed when it began */
static _Thread_local uint64_t t_poll;   /* next time this thread may poll */
static _Thread_local uint32_t t_calls, t_every = 1; /* clock reads: see below */

static uint64_t *words;               /* NWORDS DSM words */
static _Atomic uint64_t seen[NWORDS]; /* this rank's copy of cancellations */
static _Atomic uint64_t bar_checked; /* (epoch, barrier) read authoritatively */
static uint32_t epoch;               /* cluster regions so far, from 1 */
static uint64_t poll_ns;
static MPI_Comm comm = MPI_COMM_NULL;

static struct {
    _Atomic uint64_t cancels, points, barriers, stopped;
} counters;

static uint64_t word_load(int i)
{
    return hcrt__dsm_atomic(&words[i], 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_LOAD, 0,
                            0, __ATOMIC_RELAXED);
}

static int ws_index(uint32_t k)
{
    return 1 + (int)(k % (NWORDS - 1));
}

/* Whether this thread may load a word at its home now: at most every
 * poll_ns. The clock itself is read only every t_every calls (150 ns to
 * 1 us a read on this VM, more than a tight loop's cancellation point may
 * cost), t_every adapting so that about one read falls in each interval. */
static int poll_due(void)
{
    if (++t_calls < t_every)
        return 0;
    t_calls = 0;
    uint64_t now = hcrt__now_ns();
    if (now < t_poll) {
        if (t_every < 1024)
            t_every *= 2; /* calls come fast: look less often */
        return 0;
    }
    if (now > t_poll + poll_ns && t_every > 1)
        t_every /= 2; /* a read came late: look more often */
    t_poll = now + poll_ns;
    return 1;
}

/* Whether word i shows a cancellation (want under mask): the rank's copy,
 * else (with `poll`) the word at its home. Stores the value in *v. */
static int active(int i, uint64_t want, uint64_t mask, int poll, uint64_t *v)
{
    uint64_t w = atomic_load_explicit(&seen[i], memory_order_acquire);

    if ((w & mask) != want) {
        if (!poll)
            return 0;
        w = word_load(i);
        if ((w & mask) != want)
            return 0;
        hcrt__dsm_acquire(); /* the canceller released before its store */
        atomic_store_explicit(&seen[i], w, memory_order_release);
    }
    if (v)
        *v = w;
    return 1;
}

/* Sets word i to `val` unless it already shows a cancellation (want under
 * mask); returns the word's value that cancels. */
static uint64_t activate(int i, uint64_t val, uint64_t want, uint64_t mask)
{
    uint64_t old;

    hcrt__dsm_release(); /* cancel is a flush */
    old = word_load(i);
    while ((old & mask) != want) {
        uint64_t got =
            hcrt__dsm_atomic(&words[i], 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS,
                             val, old, __ATOMIC_RELAXED);
        if (got == old) {
            old = val;
            break;
        }
        old = got;
    }
    atomic_store_explicit(&seen[i], old, memory_order_release);
    atomic_fetch_add_explicit(&counters.cancels, 1, memory_order_relaxed);
    return old;
}

static uint64_t par_want(void)
{
    return (uint64_t)epoch << 32;
}

static uint64_t ws_want(void)
{
    return ((uint64_t)epoch << 32) | t_ws;
}

static int par_active(int poll, uint64_t *v)
{
    return active(0, par_want(), ~UINT64_C(0) << 32, poll, v);
}

static int ws_active(int poll)
{
    return t_ws && active(ws_index(t_ws), ws_want(), ~UINT64_C(0), poll, NULL);
}

/* ---- construct entry points -------------------------------------------- */

int32_t hcrt__cancel_request(hcrt_ident_t *loc, int32_t gtid, int32_t kind)
{
    if (kind == K_PARALLEL) {
        activate(0, par_want() | hcrt__cancel_bars, par_want(),
                 ~UINT64_C(0) << 32);
    } else if (kind == K_LOOP || kind == K_SECTIONS) {
        if (!t_ws)
            hcrt__cluster_unsupported_fix(
                loc, "cancel outside a worksharing construct",
                "place `cancel for`/`cancel sections` inside the loop or "
                "sections it cancels");
        activate(ws_index(t_ws), ws_want(), ws_want(), ~UINT64_C(0));
    } else {
        return __kmpc_cancel(loc, gtid, kind); /* taskgroup: node-local */
    }
    hcrt__cl_loop_abandon(loc);
    return 1;
}

int32_t hcrt__cancel_point(hcrt_ident_t *loc, int32_t gtid, int32_t kind)
{
    int on;

    if (kind == K_PARALLEL)
        on = par_active(poll_due(), NULL);
    else if (kind == K_LOOP || kind == K_SECTIONS)
        on = ws_active(poll_due());
    else
        return __kmpc_cancellationpoint(loc, gtid, kind);
    if (!on)
        return 0;
    atomic_fetch_add_explicit(&counters.points, 1, memory_order_relaxed);
    hcrt__cl_loop_abandon(loc);
    return 1;
}

/* Whether the region was cancelled before this thread's last barrier:
 * read at the home once per rank and barrier (every thread of the rank
 * passed that barrier together), else from the rank's copy. */
static int par_before_barrier(void)
{
    uint64_t key = ((uint64_t)epoch << 32) | hcrt__cancel_bars, v = 0;
    int poll = atomic_load_explicit(&bar_checked, memory_order_acquire) != key;
    int on = par_active(poll, &v);

    if (poll)
        atomic_store_explicit(&bar_checked, key, memory_order_release);
    return on && (uint32_t)v < hcrt__cancel_bars;
}

int32_t hcrt__cancel_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    hcrt__cluster_barrier(loc, gtid);
    if (!par_before_barrier())
        return 0;
    /* every thread saw it at this barrier: one more, as libomp does, so
     * that none leaves while another still reads */
    hcrt__cluster_barrier(loc, gtid);
    atomic_fetch_add_explicit(&counters.barriers, 1, memory_order_relaxed);
    return 1;
}

/* A chunk request (cluster_loops.c): nothing more once the loop or the
 * region was cancelled. */
int hcrt__cancel_ws_stopped(void)
{
    int poll = poll_due();

    if (!ws_active(poll) && !par_active(poll, NULL))
        return 0;
    atomic_fetch_add_explicit(&counters.stopped, 1, memory_order_relaxed);
    return 1;
}

_Noreturn void hcrt__cancel_too_many_barriers(void)
{
    hcrt_fatal(HCRT_MOD_CORE, "more than 2^32 barriers in one parallel region "
                              "with cancellation on; split the region");
}

void hcrt__cancel_ws_begin(void)
{
    if (++t_ws == 0)
        hcrt_fatal(HCRT_MOD_CORE, "more than 2^32 worksharing constructs in "
                                  "one parallel region with cancellation on; "
                                  "split the region");
    t_ws_bar = hcrt__cancel_bars;
}

uint64_t hcrt__cancel_reduce_key(uint32_t seq)
{
    return ((uint64_t)epoch << 32) | seq;
}

void hcrt__cancel_reduce_check(hcrt_ident_t *loc)
{
    /* no barrier since the loop began: this reduction ends that loop */
    if (hcrt__cancel_on && t_ws_bar == hcrt__cancel_bars && ws_active(1))
        hcrt__cancel_reduce_refuse(loc);
}

_Noreturn void hcrt__cancel_reduce_refuse(hcrt_ident_t *loc)
{
    hcrt__cluster_unsupported_fix(
        loc, "a reduction on a cancelled worksharing loop",
        "the cancelling thread leaves the loop without taking part in the "
        "reduction (clang 19's code; libomp waits for it for ever too): "
        "move the reduction to the enclosing parallel region, or do not "
        "cancel this loop");
}

/* ---- regions and start-up ---------------------------------------------- */

/* Every 2^32 regions the epoch starts again at 1: the words are cleared
 * first, so that no stale word matches a later region. */
static void epoch_wrap(void)
{
    if (hcrt__rank() == 0)
        for (int i = 0; i < NWORDS; i++)
            hcrt__dsm_atomic(&words[i], 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE,
                             0, 0, __ATOMIC_RELAXED);
    for (int i = 0; i < NWORDS; i++)
        atomic_store(&seen[i], 0);
    atomic_store(&bar_checked, 0);
    MPI_Barrier(comm);
    epoch = 1;
}

void hcrt__cancel_region_begin(void)
{
    if (!hcrt__cancel_on)
        return;
    if (++epoch == 0)
        epoch_wrap();
}

void hcrt__cancel_thread_enter(void)
{
    hcrt__cancel_bars = 0;
    t_ws = 0;
    t_ws_bar = 0;
}

static int print_cancel(FILE *out, void *arg)
{
    (void)arg;
    uint64_t cancels = atomic_load(&counters.cancels);
    fprintf(out,
            "cancellation across nodes: %" PRIu64 " cancel requests, seen at "
            "%" PRIu64 " cancellation points, %" PRIu64 " barriers and %" PRIu64
            " chunk requests (head's counts)\n",
            cancels, atomic_load(&counters.points),
            atomic_load(&counters.barriers), atomic_load(&counters.stopped));
    return cancels > 0;
}

/* Every rank must have the head's cancel-var: a worker that never looks
 * while the head cancels would leave the team's barriers unmatched. */
static void check_same(int mine)
{
    int size = hcrt__size(), *all = calloc((size_t)size, sizeof(int));

    if (!all)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, comm);
    for (int r = 1; r < size; r++)
        if (all[r] != all[0] && hcrt__rank() == 0)
            hcrt_fatal(HCRT_MOD_CORE,
                       "rank %d has OMP_CANCELLATION=%s but the head has %s: "
                       "set it the same for every rank (hcrun exports it; "
                       "mpirun -x OMP_CANCELLATION)",
                       r, all[r] ? "true" : "false", all[0] ? "true" : "false");
    int bad = all[hcrt__rank()] != all[0];
    free(all);
    if (bad) /* the head aborts the job with the message */
        MPI_Barrier(comm);
}

void hcrt__cancel_init(void)
{
    MPI_Comm_dup(hcrt__comm_world(), &comm);
    check_same(omp_get_cancellation() != 0);
    if (!omp_get_cancellation())
        return;
    if (hcrt__rank() == 0 &&
        !(words = hcrt__dsm_calloc(NWORDS, sizeof(uint64_t))))
        hcrt_fatal(HCRT_MOD_CORE, "out of DSM memory at start-up");
    MPI_Bcast(&words, sizeof(words), MPI_BYTE, 0, comm);
    poll_ns = (uint64_t)hcrt__config_int("HCRT_CANCEL_POLL_US") * 1000;
    hcrt__stats_register("cancellation", print_cancel, NULL);
    hcrt__cancel_on = 1;
}
