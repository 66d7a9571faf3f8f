/*
 * pool.c - hierarchical dynamic/guided and HetProbe / HetProbe-I loops
 * over a cluster team: the node pools (the window protocol: hp_*.c, its
 * exchange: pool_xchg.c).
 *
 * Each node keeps one pool per loop instance, shared by its threads under a
 * node-local mutex, so a thread's chunk request normally stays in its
 * process:
 * - dynamic / guided: the pool is refilled with a block of iterations from
 *   a global counter in DSM memory (compare-and-swap at its home); blocks
 *   shrink as the loop drains (guided-like across nodes), chunks inside the
 *   node follow the schedule and its chunk size.
 * - HetProbe(-I): the loop is a sequence of windows (one for HetProbe). A
 *   window's start is known to every node; it begins with a probe slice
 *   split over the nodes by the current CSR estimate (in growing rounds
 *   of one sub-chunk per thread); the first node done closes the window
 *   (a message to the others), the others stop after their running
 *   sub-chunks, each node sends its measurement (iterations run, thread
 *   seconds, DSM page transfers, elapsed time, cache misses) to the
 *   others, waits for every node's, and then every node runs the same
 *   pure decision (hcrt__hetprobe_decide) and split
 *   (hcrt__sched_weighted_split) on the same numbers: the window's rest,
 *   with the probe iterations left undone, is divided identically
 *   everywhere without a central owner, so no iteration runs twice or is
 *   skipped for any node count. Inside its range a node hands out guided
 *   chunks (at most 1/fractions of a thread's share under HetProbe-I,
 *   whose cross-node rests are dealt to the nodes in `fractions` rounds
 *   rather than one range each). Nodes without a share go on to the next
 *   window (or the loop's end barrier) at once.
 * Only the node's leader (the thread finishing the node's last probe chunk)
 * touches the network during an exchange; the others sleep on a condition
 * variable. The probe cache is updated with the exchanged (identical)
 * numbers, so every node's cache takes the same decisions.
 */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "sched/pool.h"
#include "sched/pool_int.h"

#define ITER_BITS 40 /* a dynamic loop's counter: sequence | next iteration */
#define ITER_MASK ((UINT64_C(1) << ITER_BITS) - 1)
#define MAX_WINDOWS 64 /* HetProbe-I windows of one loop, at most */

hcrt__cl_sched_state_t hcrt__cl_sched = {.cache_mu = PTHREAD_MUTEX_INITIALIZER};

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static hcrt__cl_pool_t *table; /* live pools of this node */

/* ---- the pool table ---------------------------------------------------- */

static hcrt__cl_pool_t *pool_new(hcrt_ident_t *loc, hcrt__cl_pool_kind_t kind,
                                 uint32_t seq, uint64_t trip, uint64_t chunk,
                                 int pct, const hcrt__cl_team_t *team,
                                 uint64_t *slot)
{
    hcrt__cl_pool_t *p = calloc(1, sizeof(*p));
    if (!p)
        hcrt_fatal(HCRT_MOD_SCHED, "out of memory for a loop pool");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->seq = seq, p->kind = kind, p->trip = trip;
    p->chunk = chunk ? chunk : 1;
    p->loc = loc;
    p->slot = slot;
    p->nn = team->nn;
    p->me = team->me;
    p->local = team->local;
    p->total = team->total;
    if (kind >= HCRT_CLP_HETPROBE) { /* the probe exchange's state */
        p->x = hcrt__cl_xchg_new(p->nn, p->me, seq);
        hcrt__cl_hp_setup(p, team->thr, pct);
    }
    return p;
}

hcrt__cl_pool_t *hcrt__cl_pool_join(hcrt_ident_t *loc,
                                    hcrt__cl_pool_kind_t kind, uint32_t seq,
                                    uint64_t trip, uint64_t chunk, int pct,
                                    const hcrt__cl_team_t *team, uint64_t *slot)
{
    hcrt__cl_sched_load();
    pthread_mutex_lock(&table_mu);
    hcrt__cl_pool_t *p = table;
    while (p && p->seq != seq)
        p = p->next;
    if (!p) {
        p = pool_new(loc, kind, seq, trip, chunk, pct, team, slot);
        p->next = table;
        table = p;
    }
    p->refs++;
    pthread_mutex_unlock(&table_mu);
    return p;
}

int hcrt__cl_pool_head_alone(const hcrt__cl_pool_t *p)
{
    return p->head_alone;
}

/* The calling thread is done with `p`; the node's last one frees it. */
static void pool_leave(hcrt__cl_pool_t *p)
{
    pthread_mutex_lock(&table_mu);
    if (++p->left == p->local) {
        hcrt__cl_pool_t **q = &table;
        while (*q != p)
            q = &(*q)->next;
        *q = p->next;
        pthread_mutex_unlock(&table_mu);
        hcrt__cl_hp_free(p);
        hcrt__cl_xchg_free(p->x);
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        free(p);
        return;
    }
    pthread_mutex_unlock(&table_mu);
}

/* ---- hierarchical dynamic and guided ------------------------------------ */

/* Claims the next block of the global counter for this node: a node takes
 * 1/(4 nodes) of what is left (guided: 1/(2 nodes)), at least one chunk per
 * local thread, rounded to whole chunks. 0 when the loop is exhausted. */
static int refill(hcrt__cl_pool_t *p)
{
    uint64_t *slot = p->slot, tag = p->seq;
    uint64_t old = hcrt__dsm_atomic(slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_LOAD,
                                    0, 0, __ATOMIC_RELAXED);
    for (;;) {
        uint64_t t = old >> ITER_BITS, next = old & ITER_MASK;
        if (t > tag)
            return 0;
        if (t < tag)
            next = 0;
        if (next >= p->trip)
            return 0;
        uint64_t left = p->trip - next, c = p->chunk;
        uint64_t div = (uint64_t)p->nn * (p->kind == HCRT_CLP_GUIDED ? 2 : 4);
        uint64_t size = (left + div - 1) / div;
        uint64_t least = c * (uint64_t)p->local;
        size = size < least ? least : (size + c - 1) / c * c;
        if (size > left)
            size = left;
        uint64_t want = (tag << ITER_BITS) | (next + size);
        uint64_t seen =
            hcrt__dsm_atomic(slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS, want,
                             old, __ATOMIC_RELAXED);
        if (seen == old) {
            p->lo = next, p->hi = next + size;
            p->refills++;
            return 1;
        }
        old = seen;
    }
}

/* A chunk from the node's range [lo, hi): guided over the node's threads
 * when asked, never below min_c, at most max_c (0: no cap), never past hi. */
uint64_t hcrt__cl_take(hcrt__cl_pool_t *p, int guided, uint64_t min_c,
                       uint64_t max_c, uint64_t *first)
{
    uint64_t left = p->hi - p->lo, n = min_c;
    if (guided) {
        uint64_t g =
            (left + 2 * (uint64_t)p->local - 1) / (2 * (uint64_t)p->local);
        n = g > n ? g : n;
    }
    if (max_c && n > max_c)
        n = max_c > min_c ? max_c : min_c;
    if (n > left)
        n = left;
    *first = p->lo;
    p->lo += n;
    return n;
}

static int next_dynamic(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n)
{
    int ok = 1;
    pthread_mutex_lock(&p->mu);
    if (p->lo == p->hi)
        ok = !p->cancelled && refill(p);
    if (ok) {
        *n = hcrt__cl_take(p, p->kind == HCRT_CLP_GUIDED, p->chunk, 0, first);
        p->chunks++;
    }
    pthread_mutex_unlock(&p->mu);
    if (ok)
        hcrt__cl_count_chunks(p->kind, 1, 0);
    return ok;
}

/* A cancelled dynamic or guided loop: the node's block is dropped and the
 * global counter jumps to the end, so no node claims more of it. HetProbe
 * pools are left to run out (their windows' exchanges need every node). */
void hcrt__cl_pool_cancel(hcrt__cl_pool_t *p)
{
    if (p->kind >= HCRT_CLP_HETPROBE)
        return;
    pthread_mutex_lock(&p->mu);
    p->cancelled = 1;
    p->lo = p->hi;
    pthread_mutex_unlock(&p->mu);
    uint64_t *slot = p->slot, tag = p->seq;
    uint64_t old = hcrt__dsm_atomic(slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_LOAD,
                                    0, 0, __ATOMIC_RELAXED);
    while ((old >> ITER_BITS) <= tag) {
        uint64_t want = (tag << ITER_BITS) | p->trip;
        uint64_t seen =
            hcrt__dsm_atomic(slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS, want,
                             old, __ATOMIC_RELAXED);
        if (seen == old || (seen & ITER_MASK) >= p->trip)
            return;
        old = seen;
    }
}

int hcrt__cl_pool_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n)
{
    int ok = p->kind >= HCRT_CLP_HETPROBE ? hcrt__cl_hp_next(p, first, n)
                                          : next_dynamic(p, first, n);
    if (!ok) {
        if (p->kind < HCRT_CLP_HETPROBE) {
            pthread_mutex_lock(&p->mu);
            int last = ++p->leaving == p->local;
            uint64_t refills = p->refills;
            pthread_mutex_unlock(&p->mu);
            if (last) /* once per node and instance */
                hcrt__cl_count_chunks(p->kind, 0, refills);
        }
        pool_leave(p);
    }
    return ok;
}

/* ---- HetProbe windows ---------------------------------------------------- */

/* Exchange windows of a loop: 0 when too small to probe, 1 for HetProbe,
 * the re-probe count (at most MAX_WINDOWS) for HetProbe-I. The same on
 * every thread of every node. */
int hcrt__cl_pool_windows(hcrt__cl_pool_kind_t kind, uint64_t trip, int pct,
                          int total)
{
    hcrt__cl_sched_load();
    const hcrt__hetprobe_params_t *s = &hcrt__cl_sched.hp.params;
    uint64_t T = (uint64_t)total;

    if (kind < HCRT_CLP_HETPROBE)
        return 0;
    if (trip < 2 * s->min_probe_iters * T)
        return 0;
    if (kind != HCRT_CLP_HETPROBE_I)
        return 1;
    double rp = pct > 0 ? pct : s->reprobe_pct;
    int n = (int)ceil(100.0 / rp) + 2;
    return n < MAX_WINDOWS ? n : MAX_WINDOWS;
}

/* ---- static across nodes ------------------------------------------------ */

int hcrt__cl_static_weighted(void)
{
    hcrt__cl_sched_load();
    return hcrt__cl_sched.csr_set;
}

void hcrt__cl_static_split(uint64_t trip, int nn, const int *thr,
                           uint64_t *start)
{
    if (hcrt__sched_weighted_split(trip, nn, hcrt__cl_sched.hp.csr, thr,
                                   start) != HCRT_OK)
        hcrt__sched_weighted_split(trip, nn, NULL, thr, start);
}
