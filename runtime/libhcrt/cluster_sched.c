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
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_sched.h"
#include "libhcrt/cluster_sched_int.h"
#include "libhcrt/runtime.h"

#define ITER_BITS 40 /* a dynamic loop's counter: sequence | next iteration */
#define ITER_MASK ((UINT64_C(1) << ITER_BITS) - 1)
#define WORDS 6         /* a node's measurement (hcrt__cl_publish) */
#define MAX_WINDOWS 64  /* HetProbe-I windows of one loop, at most */
#define TAG_SPAN 0x2000 /* tags: (pool sequence + window) mod span */
#define TAG_CLOSE 0x2000
#define TAG_EXT                                                                \
    0x4000 /* the extensions (highest tag 0x7fff: MPI's minimum                \
              MPI_TAG_UB) */

hcrt__cl_sched_state_t hcrt__cl_sched;

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static hcrt__cl_pool_t *table; /* live pools of this node */

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
    if (kind >= HCRT_CLP_HETPROBE) { /* the probe exchange's state */
        p->xwin = -1;
        if (!(p->xgot = calloc((size_t)p->nn, 1)) ||
            !(p->xreq = calloc(3 * (size_t)p->nn, sizeof(MPI_Request))) ||
            !(p->xin = calloc((size_t)p->nn * (WORDS + 1), sizeof(uint64_t))) ||
            !(p->xext = calloc((size_t)p->nn, sizeof(uint64_t))))
            hcrt_fatal(HCRT_MOD_SCHED, "out of memory for a loop pool");
        hcrt__cl_hp_setup(p, pct);
    }
    return p;
}

hcrt__cl_pool_t *hcrt__cl_pool_join(hcrt_ident_t *loc,
                                    hcrt__cl_pool_kind_t kind, uint32_t seq,
                                    uint64_t trip, uint64_t chunk, int pct)
{
    hcrt__cl_sched_load();
    if (kind >= HCRT_CLP_HETPROBE) /* one sequence number (tag) a window */
        for (int i = hcrt__cl_hp_windows(kind, trip, pct); i > 0; i--)
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
        free(p->xgot), free(p->xreq), free(p->xin), free(p->xext);
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
    uint64_t *slot = hcrt__cluster_slot(p->seq), tag = p->seq;
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

/* ---- exchange of probe measurements ------------------------------------- */

/* Messages on a communicator of their own (hcrt__cluster_sched_comm),
 * sent and received by the nodes' own threads: a node's leader sends its
 * measurement to every other node and receives theirs; the first node
 * done with its probe sends each a close. These were DSM words homed at
 * node 0: every load by another node waited for node 0's DSM service
 * thread, which shares a core with node 0's compute thread and got it a
 * time slice late - per word, five words per node per exchange. A
 * HetProbe-I window of 15 ms of ep spent 7-20 ms gathering, and node 1's
 * polls of the close word took its probe 3-15 ms for a handful of
 * iterations. Tags: a loop claims one sequence number per window, so
 * (sequence + window) mod TAG_SPAN tells apart the windows of the loops
 * running at once; every message of a window is received before the
 * window ends, so none is left for a later tag's reuse. */

static MPI_Comm xcomm(void)
{
    return hcrt__cluster_sched_comm();
}

static int xtag(const hcrt__cl_pool_t *p, int win)
{
    return (int)((p->seq + 1 + (uint32_t)win) % TAG_SPAN);
}

static void xcheck(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_SCHED, "probe exchange: %s failed", what);
}

/* Per-window state: which nodes' close this node received. */
static void xwindow(hcrt__cl_pool_t *p, int win)
{
    if (p->xwin == win)
        return;
    p->xwin = win;
    p->xsent = 0;
    p->xclose = 0;
    memset(p->xgot, 0, (size_t)p->nn);
    for (int i = 0; i < 3 * p->nn; i++)
        p->xreq[i] = MPI_REQUEST_NULL;
}

/* Sent without waiting (completed with the window's gather), so that no
 * node blocks in a send that its peer, waiting for this node's
 * measurement, has not received yet. */
void hcrt__cl_close(hcrt__cl_pool_t *p, int win, uint64_t probe_us)
{
    int no = p->nn - 1;
    xwindow(p, win);
    p->xsent = 1;
    p->xclose_v = probe_us + 1;
    for (int k = 0, i = 0; k < p->nn; k++)
        if (k != p->me)
            xcheck(MPI_Isend(&p->xclose_v, 1, MPI_UINT64_T, k,
                             xtag(p, win) | TAG_CLOSE, xcomm(),
                             &p->xreq[2 * no + i++]),
                   "send (close)");
}

static void recv_close(hcrt__cl_pool_t *p, int win, int from)
{
    uint64_t v;
    MPI_Status st;
    xcheck(MPI_Recv(&v, 1, MPI_UINT64_T, from, xtag(p, win) | TAG_CLOSE,
                    xcomm(), &st),
           "receive (close)");
    p->xgot[st.MPI_SOURCE] = 1;
    if (!p->xclose)
        p->xclose = v ? v : 1;
}

uint64_t hcrt__cl_closed(hcrt__cl_pool_t *p, int win)
{
    int flag = 0;
    MPI_Status st;
    xwindow(p, win);
    if (p->xclose)
        return p->xclose;
    xcheck(MPI_Iprobe(MPI_ANY_SOURCE, xtag(p, win) | TAG_CLOSE, xcomm(), &flag,
                      &st),
           "probe (close)");
    if (flag)
        recv_close(p, win, st.MPI_SOURCE);
    return p->xclose;
}

/* Exchange windows of a loop: 0 when too small to probe, 1 for HetProbe,
 * the re-probe count (at most MAX_WINDOWS) for HetProbe-I. The same on
 * every thread of every node. */
int hcrt__cl_hp_windows(hcrt__cl_pool_kind_t kind, uint64_t trip, int pct)
{
    const hcrt__hetprobe_params_t *s = &hcrt__cl_sched.hp.params;
    uint64_t T = (uint64_t)hcrt__cluster_team.total;

    if (trip < 2 * s->min_probe_iters * T)
        return 0;
    if (kind != HCRT_CLP_HETPROBE_I)
        return 1;
    double rp = pct > 0 ? pct : s->reprobe_pct;
    int n = (int)ceil(100.0 / rp) + 2;
    return n < MAX_WINDOWS ? n : MAX_WINDOWS;
}

static hcrt__hetprobe_node_meas_t decode(const uint64_t *v)
{
    double secs = bitsf(v[1]), elapsed_us = bitsf(v[3]);
    double cm = bitsf(v[4] & 0xffffffffu);
    return (hcrt__hetprobe_node_meas_t){
        .iters = v[0],
        .speed = secs > 0 && v[0] > 0 ? (double)v[0] / secs : 0.0,
        .faults = v[2],
        .period_us = v[2] ? elapsed_us / (double)v[2] : 0.0,
        .cmpki = (v[4] >> 32) & 1 ? cm : -1.0,
        .fault_share = bitsf(v[5])};
}

/* The message: the WORDS words, then whether this node sent a close
 * (receivers then take it before the window ends). */
void hcrt__cl_publish(hcrt__cl_pool_t *p, int win, const uint64_t v[WORDS])
{
    xwindow(p, win);
    memcpy(p->xmine, v, sizeof(uint64_t) * WORDS);
    p->xmine[WORDS] = (uint64_t)p->xsent;
    for (int k = 0, i = 0; k < p->nn; k++)
        if (k != p->me)
            xcheck(MPI_Isend(p->xmine, WORDS + 1, MPI_UINT64_T, k, xtag(p, win),
                             xcomm(), &p->xreq[i++]),
                   "send");
}

/* Posts the receives of every other node's measurement of window `win`
 * (after hcrt__cl_publish; one thread of the node at a time). */
void hcrt__cl_gather_post(hcrt__cl_pool_t *p, int win)
{
    int nn = p->nn, no = nn - 1;
    MPI_Request *rq = p->xreq + no;
    for (int k = 0, i = 0; k < nn; k++)
        if (k != p->me)
            xcheck(MPI_Irecv(p->xin + (size_t)i * (WORDS + 1), WORDS + 1,
                             MPI_UINT64_T, k, xtag(p, win), xcomm(), &rq[i]),
                   "receive"),
                i++;
}

/* Whether every message of the window's exchange has arrived (and every
 * one of this node's has been sent). */
int hcrt__cl_gather_test(hcrt__cl_pool_t *p)
{
    int done = 0;
    xcheck(MPI_Testall(3 * (p->nn - 1), p->xreq, &done, MPI_STATUSES_IGNORE),
           "test");
    return done;
}

/* Waits for the rest of the exchange and fills m[]. */
void hcrt__cl_gather_finish(hcrt__cl_pool_t *p, int win,
                            hcrt__hetprobe_node_meas_t *m)
{
    int nn = p->nn, no = nn - 1;
    xcheck(MPI_Waitall(3 * no, p->xreq, MPI_STATUSES_IGNORE), "wait");
    for (int k = 0, i = 0; k < nn; k++) {
        if (k == p->me) {
            m[k] = decode(p->xmine);
            continue;
        }
        const uint64_t *in = p->xin + (size_t)i * (WORDS + 1);
        m[k] = decode(in);
        if (in[WORDS] && !p->xgot[k])
            recv_close(p, win, k);
        i++;
    }
}

/* Every node's extension of window `win` (iterations it ran from its zone
 * of the window's rest while it waited for the others' measurements),
 * this node's being `mine`: sent to every other node, then theirs
 * received. Every node calls it once the gather is complete; a node still
 * in an extension chunk answers when the chunk ends. Only nodes with a
 * zone (zoned[k], the same on every node) send: the others' extension is
 * 0 by construction, so nobody waits for them (with the quota node
 * resting, the head waited at every call for a message the throttled
 * node sent up to a period late). Returns p->xext (nn values). */
const uint64_t *hcrt__cl_ext_exchange(hcrt__cl_pool_t *p, int win,
                                      uint64_t mine, const uint8_t *zoned)
{
    int nn = p->nn, n = 0;
    MPI_Request rq[2 * (nn > 1 ? nn - 1 : 1)];
    p->xext[p->me] = zoned[p->me] ? mine : 0;
    for (int k = 0; k < nn; k++) {
        if (k == p->me)
            continue;
        if (zoned[p->me])
            xcheck(MPI_Isend(&p->xext[p->me], 1, MPI_UINT64_T, k,
                             xtag(p, win) | TAG_EXT, xcomm(), &rq[n++]),
                   "send (extension)");
        p->xext[k] = 0;
        if (zoned[k])
            xcheck(MPI_Irecv(&p->xext[k], 1, MPI_UINT64_T, k,
                             xtag(p, win) | TAG_EXT, xcomm(), &rq[n++]),
                   "receive (extension)");
    }
    xcheck(MPI_Waitall(n, rq, MPI_STATUSES_IGNORE), "wait (extension)");
    return p->xext;
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
