/*
 * cluster_sched.c - hierarchical dynamic/guided and HetProbe / HetProbe-I
 * loops over a cluster team.
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
 *   (a DSM word), the others stop after their running sub-chunks, each
 *   node publishes its measurement (iterations run, thread seconds, DSM
 *   page transfers, elapsed time, cache misses) in DSM words,
 *   waits for every node's, and then every node runs the same pure decision
 *   (hcrt__hetprobe_decide) and split (hcrt__sched_weighted_split) on the
 *   same numbers: the window's rest, with the probe iterations left
 *   undone, is divided identically everywhere
 *   without a central owner, so no iteration runs twice or is skipped for
 *   any node count. Inside its range a node hands out guided chunks (at
 *   most 1/fractions of a thread's share under HetProbe-I). Nodes without a
 *   share go on to the next window (or the loop's end barrier) at once.
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
#include <time.h>

#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_sched.h"
#include "libhcrt/cluster_sched_int.h"
#include "libhcrt/log.h"
#include "libhcrt/runtime.h"

#define ITER_BITS 40
#define ITER_MASK ((UINT64_C(1) << ITER_BITS) - 1)
#define WORDS 5                       /* published per node per window */
#define XWORDS(nn) ((nn) * WORDS + 1) /* per window: nodes' words, close */
#define MAX_WORDS 256                 /* sequence numbers one loop may take */

hcrt__cl_sched_state_t hcrt__cl_sched;

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static hcrt__cl_pool_t *table; /* live pools of this node */

/* ---- tagged DSM words: sequence number (24 bits) | payload (40 bits) --- */

static uint64_t word_load(uint32_t seq, int *ok)
{
    uint64_t w = hcrt__dsm_atomic(hcrt__cluster_slot(seq), 8, HCRT_DSM_AT_INT,
                                  HCRT_DSM_AOP_LOAD, 0, 0, __ATOMIC_RELAXED);
    *ok = (w >> ITER_BITS) == (seq & 0xffffff);
    return w & ITER_MASK;
}

static void word_store(uint32_t seq, uint64_t v)
{
    hcrt__dsm_atomic(
        hcrt__cluster_slot(seq), 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE,
        ((uint64_t)(seq & 0xffffff) << ITER_BITS) | (v & ITER_MASK), 0,
        __ATOMIC_RELAXED);
}

static uint64_t fbits(double d)
{
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static double bitsf(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static void nap(long *ns)
{
    struct timespec ts = {0, *ns};
    nanosleep(&ts, NULL);
    if (*ns < 1000000)
        *ns *= 2;
}

/* ---- the pool table ---------------------------------------------------- */

static hcrt__cl_pool_t *pool_new(hcrt_ident_t *loc, hcrt__cl_pool_kind_t kind,
                                 uint32_t seq, uint64_t trip, uint64_t chunk,
                                 int pct)
{
    hcrt__cl_pool_t *p = calloc(1, sizeof(*p));
    if (!p)
        hcrt_fatal(HCRT_MOD_SCHED, "out of memory for a loop pool");
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->seq = seq, p->kind = kind, p->trip = trip;
    p->chunk = chunk ? chunk : 1;
    p->loc = loc;
    p->nn = hcrt__size();
    p->me = hcrt__rank();
    p->local = hcrt__cluster_team.local;
    p->total = hcrt__cluster_team.total;
    if (kind >= HCRT_CLP_HETPROBE)
        hcrt__cl_hp_setup(p, pct);
    return p;
}

hcrt__cl_pool_t *hcrt__cl_pool_join(hcrt_ident_t *loc,
                                    hcrt__cl_pool_kind_t kind, uint32_t seq,
                                    uint64_t trip, uint64_t chunk, int pct)
{
    hcrt__cl_sched_load();
    if (kind >= HCRT_CLP_HETPROBE) /* claims the exchange words */
        for (int i =
                 hcrt__cl_hp_windows(kind, trip, pct) * XWORDS(hcrt__size());
             i > 0; i--)
            (void)hcrt__cluster_next_ws();
    pthread_mutex_lock(&table_mu);
    hcrt__cl_pool_t *p = table;
    while (p && p->seq != seq)
        p = p->next;
    if (!p) {
        p = pool_new(loc, kind, seq, trip, chunk, pct);
        p->next = table;
        table = p;
    }
    p->refs++;
    pthread_mutex_unlock(&table_mu);
    return p;
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
    uint64_t *slot = hcrt__cluster_slot(p->seq), tag = p->seq;
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
        ok = refill(p);
    if (ok) {
        *n = hcrt__cl_take(p, p->kind == HCRT_CLP_GUIDED, p->chunk, 0, first);
        p->chunks++;
    }
    pthread_mutex_unlock(&p->mu);
    if (ok)
        hcrt__cl_count_chunks(p->kind, 1, 0);
    return ok;
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

/* ---- exchange of probe measurements ------------------------------------- */

/* Sequence number of word w of node k in window `win`. */
static uint32_t xseq(const hcrt__cl_pool_t *p, int win, int k, int w)
{
    return p->seq + 1 + (uint32_t)(win * XWORDS(p->nn) + k * WORDS + w);
}

/* The probe window's close word (after the nodes' words of the window). */
static uint32_t cseq(const hcrt__cl_pool_t *p, int win)
{
    return p->seq + 1 + (uint32_t)(win * XWORDS(p->nn) + p->nn * WORDS);
}

void hcrt__cl_close(hcrt__cl_pool_t *p, int win, uint64_t probe_us)
{
    word_store(cseq(p, win), probe_us + 1);
}

uint64_t hcrt__cl_closed(hcrt__cl_pool_t *p, int win)
{
    int ok;
    uint64_t v = word_load(cseq(p, win), &ok);
    return ok ? (v ? v : 1) : 0;
}

/* Exchange windows of a loop: 0 when too small to probe, 1 for HetProbe,
 * the re-probe count (capped so a loop takes at most MAX_WORDS sequence
 * numbers) for HetProbe-I. The same on every thread of every node. */
int hcrt__cl_hp_windows(hcrt__cl_pool_kind_t kind, uint64_t trip, int pct)
{
    const hcrt__hetprobe_params_t *s = &hcrt__cl_sched.hp.params;
    int nn = hcrt__size();
    uint64_t T = (uint64_t)hcrt__cluster_team.total;

    if (trip < 2 * s->min_probe_iters * T)
        return 0;
    if (kind != HCRT_CLP_HETPROBE_I)
        return 1;
    double rp = pct > 0 ? pct : s->reprobe_pct;
    int n = (int)ceil(100.0 / rp) + 2, cap = MAX_WORDS / XWORDS(nn);
    cap = cap < 2 ? 2 : cap;
    return n < cap ? n : cap;
}

void hcrt__cl_publish(hcrt__cl_pool_t *p, int win, const uint64_t v[5])
{
    for (int w = 0; w < WORDS; w++) /* word 4 last: readers poll it */
        word_store(xseq(p, win, p->me, w), v[w]);
}

/* Waits (napping, the leader alone) until every node published window
 * `win`, then fills m[] and the per-node thread seconds. */
void hcrt__cl_gather(hcrt__cl_pool_t *p, int win, hcrt__hetprobe_node_meas_t *m)
{
    for (int k = 0; k < p->nn; k++) {
        uint64_t v[WORDS];
        int ok;
        long ns = 20000;
        while (v[4] = word_load(xseq(p, win, k, 4), &ok), !ok)
            nap(&ns);
        for (int w = 0; w < 4; w++) {
            v[w] = word_load(xseq(p, win, k, w), &ok);
            if (!ok)
                hcrt_fatal(HCRT_MOD_SCHED,
                           "probe exchange of node %d out of order "
                           "(internal error)",
                           k);
        }
        double secs = bitsf(v[1]), elapsed_us = bitsf(v[3]);
        double cm = bitsf(v[4] & 0xffffffffu);
        m[k] = (hcrt__hetprobe_node_meas_t){
            .iters = v[0],
            .speed = secs > 0 && v[0] > 0 ? (double)v[0] / secs : 0.0,
            .faults = v[2],
            .period_us = v[2] ? elapsed_us / (double)v[2] : 0.0,
            .cmpki = (v[4] >> 32) & 1 ? cm : -1.0};
    }
}

uint64_t hcrt__cl_pack_cmpki(double cmpki)
{
    return cmpki >= 0 ? (UINT64_C(1) << 32) | fbits(cmpki) : 0;
}

uint64_t hcrt__cl_fbits(double d)
{
    return fbits(d);
}

/* ---- static across nodes ------------------------------------------------ */

int hcrt__cl_static_weighted(void)
{
    hcrt__cl_sched_load();
    return hcrt__cl_sched.csr_set;
}

void hcrt__cl_static_split(uint64_t trip, uint64_t *start)
{
    int nn = hcrt__size(), thr[nn];
    for (int k = 0; k < nn; k++)
        thr[k] = hcrt__cluster_node_threads(k);
    if (hcrt__sched_weighted_split(trip, nn, hcrt__cl_sched.hp.csr, thr,
                                   start) != HCRT_OK)
        hcrt__sched_weighted_split(trip, nn, NULL, thr, start);
}
