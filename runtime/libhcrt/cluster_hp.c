/*
 * cluster_hp.c - the HetProbe / HetProbe-I window protocol of a node's loop
 * pool (see cluster_sched.c for the scheme), the loop settings and the
 * HCRT_STATS section of the decisions.
 *
 * Everything that decides where iterations go is computed from values
 * every node has (trip count, thread counts, settings, the exchanged
 * measurements, the probe cache fed with those), so every node computes
 * the same windows, slices and shares.
 */
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/stats.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_sched_int.h"
#include "libhcrt/core.h"
#include "libhcrt/runtime.h"

enum { PH_PROBE, PH_RUN, PH_DONE };

/* Weight in a probe slice of a node without an estimate (left out by the
 * last decision, or never measured): it is measured again, on a slice
 * small enough that its slowness costs little. A node with a measured
 * speed gets a slice in proportion to it however small, so that it takes
 * as long as the others' (a floor at this value gave spmv's slow node 120
 * times too many iterations: the fast node waited 8 ms of a 65 ms call). */
#define PROBE_FLOOR 0.02

/* A node's probe share is handed out in up to PROBE_ROUNDS rounds of one
 * sub-chunk per thread, each round twice the last, the first one iteration
 * per thread (for shares up to ~10^6 iterations per thread): when the
 * first node done closes the window, a node finishes only the sub-chunks
 * it runs, which are no longer than all its earlier ones together. A node
 * 15-100x slower thus overruns the first by about one iteration, not by a
 * fixed fraction of its share (with 6 rounds, 1/63: spmv's slow node
 * fetched ~2000 pages of x for its 800 first-round rows, ~0.1 s, while
 * the fast one had finished its probe in 4 ms). */
#define PROBE_ROUNDS 20

/* HetProbe-I re-probes every reprobe_pct of the iterations; each window
 * costs an exchange between the nodes (a DSM publish and gather: a few
 * hundred microseconds over messages). A window must hold at least this
 * much work (HCRT_SCHED_REPROBE_MIN_US) to pay for it, judged by the iteration
 * rate of the whole cluster from the probe cache's speeds of the loop (fed
 * by every first-window exchange, so the same on every node): LU's short
 * loops, called hundreds of times, probed ten windows each call and ran
 * 2.3x slower than HetProbe. */
static double hpi_min_window_us; /* HCRT_SCHED_REPROBE_MIN_US */

struct hcrt__cl_hp {
    hcrt__hetprobe_params_t prm;
    uint64_t loop_id;
    int *thr;
    double *weight; /* current CSR estimate (probe sizing, final split) */
    uint8_t *rests; /* node sits out the first window's probe (the cache) */
    int single;     /* last decision: single node (-1: none) */
    int crossed;    /* a window of this call was split across nodes */
    /* HetProbe-I: deal cross-node rests in rounds (the loop's rate moved
     * between windows by prm.deal_spread); the rates seen this call */
    int dealing;
    double rate_lo, rate_hi;
    int win, maxwin, phase, exchanging;
    uint64_t pos, wlen, run_end, probe_n, max_c;
    uint64_t plo, phi;           /* this node's probe slice */
    uint64_t *pstart;            /* every node's probe slice (nn + 1) */
    int rounds, closed;          /* sub-chunk rounds; probe over here */
    int pchunks, phanded, pdone; /* this node's probe chunks */
    uint64_t probed;             /* probe iterations run, all nodes */
    int nseg;                    /* > 0: [lo, hi) index these segments */
    /* ilv: [lo, hi) indexes this node's pieces of a HetProbe-I cross-node
     * rest dealt in rounds (deal()): il_full rounds of il_len with its
     * piece il_q at il_o, then one of the rest with il_q2 at il_o2;
     * il_base: the rest's first iteration (0 with segments) */
    int ilv;
    uint64_t il_len, il_full, il_q, il_o, il_q2, il_o2, il_base;
    uint64_t *sg_lo, *sg_v; /* segment's first iteration, its index */
    /* extensions (exchange_end): zb (2 nn) holds node k's zone [zb[2k],
     * zb[2k + 1]) after the probe; zopen: the node whose zone comes last
     * and is open-ended (-1: no zones); this node's is [zlo, zhi), of
     * which it handed out ext iterations in chunks of ext_c while it
     * waited */
    uint64_t *zb, zlo, zhi, ext, ext_c;
    int zopen, published, ext_closed;
    double psecs, cm_sum;   /* thread seconds, cache misses */
    double run_it, run_s;   /* run-phase iterations, thread seconds */
    double call_it, call_s; /* the same over the whole call (all windows) */
    double acc_it, acc_s;   /* this node's speed basis (published) */
    int cm_n;
    uint64_t t0; /* first probe chunk handed out */
    /* the probe's first quiet_us do not look for a close (probe_over) */
    double quiet_us;
    double *speed;  /* the probe cache's per-thread speeds (0: unknown) */
    double work_us; /* HetProbe-I: windows so far at their measured rates */
    hcrt_dsm_counters_t c0;
    hcrt__hetprobe_decision_t d; /* scratch decision */
};

/* Offset in the node's probe share of sub-chunk j (j = pchunks: its end):
 * round r of `local` sub-chunks covers [L(2^r-1), L(2^(r+1)-1)) / (2^R-1). */
static uint64_t sub_off(const hcrt__cl_pool_t *p, int j)
{
    const hcrt__cl_hp_t *h = p->hp;
    uint64_t L = h->phi - h->plo, t = (uint64_t)p->local;
    uint64_t den = (UINT64_C(1) << h->rounds) - 1, r = (uint64_t)j / t;
    uint64_t i = (uint64_t)j % t;
    if (r >= (uint64_t)h->rounds)
        return L;
    /* 128-bit: L (up to 2^40) times 2^PROBE_ROUNDS */
    uint64_t b0 =
        (uint64_t)((unsigned __int128)L * ((UINT64_C(1) << r) - 1) / den);
    uint64_t b1 =
        (uint64_t)((unsigned __int128)L * ((UINT64_C(1) << (r + 1)) - 1) / den);
    return b0 + (uint64_t)((unsigned __int128)i * (b1 - b0) / t);
}

/* ---- per-thread probe timing and cache-miss counters -------------------- */

static _Thread_local struct {
    hcrt__cl_pool_t *pool;
    int probing, running;
    uint64_t t0, cm0, in0, n;
} tl;

static _Thread_local int perf_fd[2] = {-2, -2}; /* misses, instructions */

static int perf_open(uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_HARDWARE;
    a.config = config;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

/* Counts of this thread, or 0 when the kernel refuses (paranoid, no PMU in
 * a VM): the decision then goes without them. */
static int perf_read(uint64_t *misses, uint64_t *instr)
{
    if (perf_fd[0] == -2) {
        perf_fd[0] = perf_open(PERF_COUNT_HW_CACHE_MISSES);
        perf_fd[1] =
            perf_fd[0] >= 0 ? perf_open(PERF_COUNT_HW_INSTRUCTIONS) : -1;
        if (perf_fd[1] < 0 && perf_fd[0] >= 0)
            close(perf_fd[0]), perf_fd[0] = -1;
    }
    if (perf_fd[0] < 0)
        return 0;
    return read(perf_fd[0], misses, 8) == 8 && read(perf_fd[1], instr, 8) == 8;
}

/* ---- settings ------------------------------------------------------------ */

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t cache_mu = PTHREAD_MUTEX_INITIALIZER;

static void load(void)
{
    if (hcrt__hetprobe_settings_load(hcrt__size(), &hcrt__cl_sched.hp) !=
        HCRT_OK)
        hcrt_fatal(HCRT_MOD_SCHED, "invalid HCRT_SCHED_* settings (see above)");
    hpi_min_window_us = hcrt__config_double("HCRT_SCHED_REPROBE_MIN_US");
    const char *csr = hcrt__config_string("HCRT_SCHED_CSR");
    hcrt__cl_sched.csr_set = csr && *csr;
    if (hcrt__probecache_create(&hcrt__cl_sched.hp.cache,
                                &hcrt__cl_sched.hp.params,
                                &hcrt__cl_sched.cache) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_SCHED, "cannot create the probe cache");
    hcrt_info(HCRT_MOD_SCHED, "loop threshold %.1f us from %s",
              hcrt__cl_sched.hp.threshold.threshold_us,
              hcrt__cl_sched.hp.threshold.source);
    hcrt__cl_sched.loaded = 1;
}

void hcrt__cl_sched_load(void)
{
    pthread_once(&load_once, load);
}

/* ---- decisions for HCRT_STATS (kept on the head) ------------------------ */

typedef struct loop_rec {
    struct loop_rec *next;
    const char *where;
    uint64_t id, runs, windows, cross, single, cached, small, probe_iters;
    uint64_t extended; /* iterations run while waiting (exchange_end) */
    uint64_t dealt;    /* HetProbe-I cross-node rests dealt in rounds */
    const void *ident; /* named by address without debug info */
    char *last;        /* the last decision, printed */
} loop_rec_t;

static pthread_mutex_t rec_mu = PTHREAD_MUTEX_INITIALIZER;
static loop_rec_t *recs;
static uint64_t chunk_counts[4], refill_counts[4];

void hcrt__cl_count_chunks(hcrt__cl_pool_kind_t kind, uint64_t chunks,
                           uint64_t refills)
{
    __atomic_fetch_add(&chunk_counts[kind], chunks, __ATOMIC_RELAXED);
    __atomic_fetch_add(&refill_counts[kind], refills, __ATOMIC_RELAXED);
}

static loop_rec_t *rec_of(const hcrt__cl_pool_t *p)
{
    loop_rec_t *r = recs;
    while (r && r->ident != (const void *)p->loc)
        r = r->next;
    if (!r && (r = calloc(1, sizeof(*r)))) { /* appended: first seen first */
        r->id = p->hp->loop_id;
        r->where =
            p->loc && p->loc->psource && !strstr(p->loc->psource, ";unknown;")
                ? p->loc->psource
                : NULL;
        r->ident = p->loc;
        loop_rec_t **q = &recs;
        while (*q)
            q = &(*q)->next;
        *q = r;
    }
    return r;
}

static void record(const hcrt__cl_pool_t *p, const hcrt__hetprobe_decision_t *d,
                   int probed, int first, uint64_t extended, int dealt)
{
    if (hcrt__rank() == 0 && hcrt__log_on(HCRT_MOD_SCHED, HCRT_LOG_DEBUG)) {
        char line[512];
        hcrt__hetprobe_decision_format(d, line, sizeof(line));
        hcrt_debug(HCRT_MOD_SCHED, "%s: window %d from %" PRIu64 ": %s",
                   p->loc && p->loc->psource ? p->loc->psource : "loop",
                   d->window, d->first, line);
    }
    if (hcrt__rank() != 0 || !hcrt__stats_on)
        return;
    pthread_mutex_lock(&rec_mu);
    loop_rec_t *r = rec_of(p);
    if (r) {
        r->runs += first;
        r->windows++;
        r->probe_iters += probed ? p->hp->probed : 0;
        r->extended += extended;
        r->dealt += dealt > 0;
        if (d->why == HCRT_HP_WHY_CACHED)
            r->cached++;
        else if (d->kind == HCRT_HP_CROSS)
            r->cross++;
        else if (d->kind == HCRT_HP_SINGLE)
            r->single++;
        else
            r->small++;
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            fprintf(f, "    window %d, iterations from %" PRIu64 ":\n",
                    d->window, d->first);
            hcrt__hetprobe_decision_print(f, "      ", d);
            fclose(f);
            free(r->last);
            r->last = buf;
        }
    }
    pthread_mutex_unlock(&rec_mu);
}

static void print_decisions(FILE *out, void *arg)
{
    (void)arg;
    fprintf(out,
            "node pools (head): dynamic %" PRIu64 " chunks / %" PRIu64
            " global claims, guided %" PRIu64 " / %" PRIu64
            ", hetprobe %" PRIu64 ", hetprobe_i %" PRIu64 " chunks\n",
            chunk_counts[0], refill_counts[0], chunk_counts[1],
            refill_counts[1], chunk_counts[2], chunk_counts[3]);
    if (!recs)
        return;
    fprintf(out, "threshold %.1f us (%s)\n",
            hcrt__cl_sched.hp.threshold.threshold_us,
            hcrt__cl_sched.hp.threshold.source);
    for (loop_rec_t *r = recs; r; r = r->next) {
        if (r->where)
            fprintf(out, "loop %s", r->where);
        else
            fprintf(out, "loop at ident %p (build with -g for its line)",
                    r->ident);
        fprintf(out,
                ": %" PRIu64 " runs, %" PRIu64
                " decisions (probed: cross %" PRIu64 ", single %" PRIu64
                "; from the probe cache %" PRIu64
                "; too small to probe %" PRIu64 "), %" PRIu64
                " iterations probed, %" PRIu64
                " run while waiting for the others' probes",
                r->runs, r->windows, r->cross, r->single, r->cached, r->small,
                r->probe_iters, r->extended);
        if (r->dealt)
            fprintf(out, ", %" PRIu64 " rests dealt in rounds", r->dealt);
        fprintf(out, "; last:\n");
        if (r->last)
            fputs(r->last, out);
    }
}

void hcrt__cl_sched_stats_init(void)
{
    hcrt__stats_register("cluster loop schedules", print_decisions, NULL);
}

/* ---- windows ------------------------------------------------------------ */

static uint64_t fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    while (s && *s)
        h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
    return h;
}

/* This node's range of `n` iterations from `at` under weights w. */
static void my_share(hcrt__cl_pool_t *p, uint64_t at, uint64_t n,
                     const double *w, uint64_t *lo, uint64_t *hi)
{
    uint64_t start[p->nn + 1];
    if (hcrt__sched_weighted_split(n, p->nn, w, p->hp->thr, start) != HCRT_OK)
        hcrt__sched_weighted_split(n, p->nn, NULL, p->hp->thr, start);
    *lo = at + start[p->me], *hi = at + start[p->me + 1];
}

/* HetProbe-I, cross-node: deals the rest (n positions from `base`) to the
 * nodes in HCRT_SCHED_REPROBE_FRACTIONS rounds, each split by the weights,
 * instead of one contiguous range per node, so every node gets a part of
 * every stretch of the window. With one range each, a window in which
 * the irregular kernel's cost jumped gave one node the expensive side: the
 * other waited 13-20 ms at the next exchange, in windows of 15-25 ms.
 * The shares per node are those of the contiguous split, give or take
 * rounding. 0: not dealt (HetProbe, or too few positions). */
static int deal(hcrt__cl_pool_t *p, uint64_t base, uint64_t n, const double *w)
{
    hcrt__cl_hp_t *h = p->hp;
    uint64_t F = (uint64_t)h->prm.fractions, st[p->nn + 1];
    h->ilv = 0;
    if (p->kind != HCRT_CLP_HETPROBE_I || !h->dealing || F < 2 ||
        n < F * (uint64_t)p->total)
        return 0;
    uint64_t R = (n + F - 1) / F, full = n / R, L = n - full * R;
    if (hcrt__sched_weighted_split(R, p->nn, w, h->thr, st) != HCRT_OK)
        hcrt__sched_weighted_split(R, p->nn, NULL, h->thr, st);
    h->il_q = st[p->me + 1] - st[p->me], h->il_o = st[p->me];
    h->il_q2 = h->il_o2 = 0;
    if (L) {
        if (hcrt__sched_weighted_split(L, p->nn, w, h->thr, st) != HCRT_OK)
            hcrt__sched_weighted_split(L, p->nn, NULL, h->thr, st);
        h->il_q2 = st[p->me + 1] - st[p->me], h->il_o2 = st[p->me];
    }
    h->il_len = R, h->il_full = full, h->il_base = base;
    p->lo = 0, p->hi = full * h->il_q + h->il_q2;
    h->ilv = 1;
    return 1;
}

/* Runs [at, trip) under the last decision without probing again; the
 * shares go to h->d.share. */
static void final_split(hcrt__cl_pool_t *p, uint64_t at)
{
    hcrt__cl_hp_t *h = p->hp;
    uint64_t start[p->nn + 1], n = p->trip - at;
    if (h->single >= 0) {
        for (int k = 0; k <= p->nn; k++)
            start[k] = k <= h->single ? 0 : n;
    } else if (hcrt__sched_weighted_split(n, p->nn, h->weight, h->thr, start) !=
               HCRT_OK) {
        hcrt__sched_weighted_split(n, p->nn, NULL, h->thr, start);
    }
    for (int k = 0; k < p->nn; k++)
        h->d.share[k] = start[k + 1] - start[k];
    h->run_end = p->trip;
    h->nseg = 0;
    h->ilv = 0;
    if (h->single >= 0) {
        p->lo = p->hi = at;
        if (h->single == p->me)
            p->hi = p->trip;
    } else if (!deal(p, at, p->trip - at, h->weight)) {
        my_share(p, at, p->trip - at, h->weight, &p->lo, &p->hi);
    }
    h->phase = PH_RUN;
}

/* A window ending at `e`, or at the loop's end when too little would be
 * left after it (less than half a window or than a probe's minimum). */
static uint64_t window_end(const hcrt__cl_pool_t *p, uint64_t e)
{
    const hcrt__cl_hp_t *h = p->hp;
    uint64_t min = 2 * h->prm.min_probe_iters * (uint64_t)p->total;
    return e > p->trip || p->trip - e < h->wlen / 2 || p->trip - e < min
               ? p->trip
               : e;
}

/* Zones for the extensions, from `zat` (the probe's end): the window's
 * rest split like the probe among the nodes that probe, each at most
 * ZONE_PROBES times its probe slice, in node order, and one of them last
 * and open-ended (zopen: the head when it probes, else the last node that
 * does; a head that does not probe has an empty zone): it runs to
 * the loop's last iteration, past the end of a HetProbe-I window (which
 * then moves, exchange_end). A node that waits for a slow node's probe
 * keeps running the loop meanwhile instead of idling once its share of
 * the window is done: on the stencil's column sweep the worker's one
 * probe iteration (a 4 096-page column) took 130-290 ms, the head's whole
 * loop ~205 ms, and the head idled after half of it. The head comes last
 * because the node that holds a DSM-bound loop's data probes fastest and
 * the serial code that fills the data runs there. Never the loop's last
 * iteration: the thread that runs it must get no chunk after it
 * (lastprivate), so it stays the split's last. */
#define ZONE_PROBES 4
static void set_zones(hcrt__cl_pool_t *p, uint64_t zat, const double *pw)
{
    hcrt__cl_hp_t *h = p->hp;
    int nn = p->nn;
    double zw[nn], zsum = 0;
    uint64_t zend = h->run_end - (h->run_end == p->trip), sz[nn + 1];
    uint64_t zn = zend > zat ? zend - zat : 0;

    h->zopen = -1;
    for (int k = nn - 1; k >= 0; k--) { /* the head, else the last */
        zw[k] = h->pstart[k + 1] > h->pstart[k] ? pw[k] : 0.0, zsum += zw[k];
        if (zw[k] > 0 && (h->zopen < 0 || k == 0))
            h->zopen = k;
    }
    if (zsum <= 0 ||
        hcrt__sched_weighted_split(zn, nn, zw, h->thr, sz) != HCRT_OK)
        h->zopen = -1;
    uint64_t at = zat;
    for (int k = 0; k < nn; k++) {
        if (k == h->zopen)
            continue;
        uint64_t len = h->zopen < 0 ? 0 : sz[k + 1] - sz[k];
        uint64_t cap = ZONE_PROBES * (h->pstart[k + 1] - h->pstart[k]);
        len = len < cap ? len : cap;
        h->zb[2 * k] = at, h->zb[2 * k + 1] = at + len, at += len;
    }
    if (h->zopen >= 0) {
        uint64_t last = p->trip - 1; /* never the loop's last iteration */
        h->zb[2 * h->zopen] = at;
        h->zb[2 * h->zopen + 1] = last > at ? last : at;
    }
}

/* Starts the window at `pos` (same on every node). */
static void start_window(hcrt__cl_pool_t *p, uint64_t pos)
{
    hcrt__cl_hp_t *h = p->hp;
    uint64_t rem = p->trip - pos, T = (uint64_t)p->total;
    uint64_t minp = h->prm.min_probe_iters;

    h->pos = pos;
    if (rem == 0) {
        p->lo = p->hi = pos, h->run_end = pos, h->phase = PH_RUN;
        return;
    }
    if (rem < 2 * minp * T || h->win >= h->maxwin) {
        final_split(p, pos);
        return;
    }
    double pct = h->prm.probe_pct / 100.0;
    uint64_t P = (uint64_t)ceil(pct * (double)(h->win == 0 ? rem : h->wlen));
    P = P < minp * T ? minp * T : P;
    P = P > rem / 2 ? rem / 2 : P;
    double pw[p->nn];
    for (int k = 0; k < p->nn; k++)
        pw[k] = h->win == 0 && h->rests[k] ? 0.0
                : h->weight[k] > 0         ? h->weight[k]
                                           : PROBE_FLOOR;
    /* Time bound on the slices: a node whose estimate says one iteration
     * takes longer than the fastest node's whole probe share (per thread),
     * e.g. one that must fetch a large row, probes nothing this time (its
     * cached speed stands; the decision finds it without a speed). */
    double W = 0;
    for (int k = 0; k < p->nn; k++)
        W += pw[k] * h->thr[k];
    for (int k = 0; k < p->nn; k++)
        if (h->weight[k] * (double)P / W < 1.0)
            pw[k] = 0.0;
    if (hcrt__sched_weighted_split(P, p->nn, pw, h->thr, h->pstart) != HCRT_OK)
        hcrt__sched_weighted_split(P, p->nn, NULL, h->thr, h->pstart);
    h->plo = pos + h->pstart[p->me], h->phi = pos + h->pstart[p->me + 1];
    uint64_t L = h->phi - h->plo;
    /* Half the earliest time a node is expected to finish its slice at its
     * cached speed: no close can be due before (unless the cache is far
     * off, and then the probe overruns by at most this). Each look for a
     * close is an MPI_Iprobe, which yields the core when Open MPI runs
     * oversubscribed; at 4 ranks on 2 cores a node then ran its rounds of
     * sub-chunks each in a fresh time slice, at the whole core's speed,
     * and ep's hogged node measured 5.2e6 it/s (its share of the core ran
     * at about 1.7e6) and got the largest share. Every node computes the
     * same from the same cache. */
    h->quiet_us = INFINITY;
    for (int k = 0; k < p->nn; k++) {
        uint64_t lk = h->pstart[k + 1] - h->pstart[k];
        if (lk && h->speed[k] > 0 && h->thr[k] > 0) {
            double us = 1e6 * (double)lk / h->thr[k] / h->speed[k];
            h->quiet_us = us < h->quiet_us ? us : h->quiet_us;
        }
    }
    h->quiet_us = isfinite(h->quiet_us) ? 0.5 * h->quiet_us : 0.0;
    h->rounds = 1; /* the first round gives each thread an iteration */
    while (h->rounds < PROBE_ROUNDS &&
           L / ((UINT64_C(1) << (h->rounds + 1)) - 1) >= (uint64_t)p->local)
        h->rounds++;
    h->pchunks = L ? p->local * h->rounds : 0;
    h->phanded = h->pdone = h->closed = h->nseg = h->ilv = 0;
    h->t0 = 0;
    h->psecs = h->cm_sum = 0.0, h->cm_n = 0;
    h->probe_n = P;
    h->run_end = p->trip;
    if (p->kind == HCRT_CLP_HETPROBE_I)
        h->run_end = window_end(p, pos + P + h->wlen);
    set_zones(p, pos + P, pw);
    h->zlo = h->zb[2 * p->me];
    h->zhi = L ? h->zb[2 * p->me + 1] : h->zlo;
    h->ext = 0;
    h->ext_c = L / (8 * (uint64_t)p->local); /* what the others may wait */
    h->ext_c = h->ext_c ? h->ext_c : 1;
    h->published = h->ext_closed = 0;
    p->lo = p->hi = 0;
    h->phase = PH_PROBE;
}

void hcrt__cl_hp_setup(hcrt__cl_pool_t *p, int pct)
{
    hcrt__cl_hp_t *h = calloc(1, sizeof(*h));
    int nn = p->nn;
    char err[200];

    if (!h || !(h->thr = calloc((size_t)nn, sizeof(int))) ||
        !(h->weight = calloc((size_t)nn, sizeof(double))) ||
        !(h->speed = calloc((size_t)nn, sizeof(double))) ||
        !(h->rests = calloc((size_t)nn, 1)) ||
        !(h->d.csr = calloc((size_t)nn, sizeof(double))) ||
        !(h->d.share = calloc((size_t)nn, sizeof(uint64_t))) ||
        !(h->pstart = calloc((size_t)nn + 1, sizeof(uint64_t))) ||
        !(h->zb = calloc(2 * (size_t)nn, sizeof(uint64_t))) ||
        !(h->sg_lo = calloc(2 * (size_t)nn + 2, sizeof(uint64_t))) ||
        !(h->sg_v = calloc(2 * (size_t)nn + 2, sizeof(uint64_t))))
        hcrt_fatal(HCRT_MOD_SCHED, "out of memory for a HetProbe loop");
    p->hp = h;
    hcrt__hetprobe_mode_t mode = p->kind == HCRT_CLP_HETPROBE_I
                                     ? HCRT_HP_MODE_HETPROBE_I
                                     : HCRT_HP_MODE_HETPROBE;
    if (hcrt__hetprobe_params_for_loop(&hcrt__cl_sched.hp.params, mode, pct,
                                       (int64_t)p->chunk, &h->prm, err,
                                       sizeof(err)) != HCRT_OK) {
        hcrt_warn(HCRT_MOD_SCHED, "%s: %s; using the settings",
                  p->loc && p->loc->psource ? p->loc->psource : "loop", err);
        h->prm = hcrt__cl_sched.hp.params;
        h->prm.mode = mode;
    }
    for (int k = 0; k < nn; k++) {
        h->thr[k] = hcrt__cluster_node_threads(k);
        h->weight[k] = hcrt__cl_sched.hp.csr ? hcrt__cl_sched.hp.csr[k] : 1.0;
    }
    h->single = -1;
    /* the ident's address: the same in every rank (same binary, no ASLR);
     * not the trip count, so a loop whose bounds shrink (LU) is one loop */
    h->loop_id = fnv(p->loc ? p->loc->psource : NULL) ^
                 ((uint64_t)(uintptr_t)p->loc * 0x9e3779b97f4a7c15ULL);
    h->maxwin = hcrt__cl_hp_windows(p->kind, p->trip, pct);
    uint64_t w = (uint64_t)ceil(h->prm.reprobe_pct / 100.0 * (double)p->trip);
    uint64_t wmin = (p->trip + (uint64_t)h->maxwin - 2) /
                    (uint64_t)(h->maxwin > 2 ? h->maxwin - 2 : 1);
    h->wlen = w > wmin ? w : wmin;
    if (h->wlen == 0)
        h->wlen = 1;
    h->max_c = 0;
    if (p->kind == HCRT_CLP_HETPROBE_I && h->maxwin > 1 &&
        hpi_min_window_us > 0) {
        /* no more windows than the loop's work pays for (at least one:
         * then it is HetProbe without the cache) */
        /* The last run's work, window by window at each window's measured
         * rate: the smoothed speeds alone are those of window 0's probes,
         * and on a loop whose cost moves (the irregular kernel's hot
         * quarter) they said "50x cheaper" whenever a probe fell in the
         * cold part, leaving the hot part to one or two windows. */
        double per_us = 0, work_us;
        pthread_mutex_lock(&cache_mu);
        const double *speed =
            hcrt__probecache_speeds(hcrt__cl_sched.cache, h->loop_id);
        for (int k = 0; speed && k < nn; k++)
            per_us += speed[k] * h->thr[k] / 1e6;
        work_us = hcrt__probecache_work(hcrt__cl_sched.cache, h->loop_id, nn);
        pthread_mutex_unlock(&cache_mu);
        if (work_us <= 0 && per_us > 0)
            work_us = (double)p->trip / per_us;
        if (work_us > 0) {
            double w = work_us / hpi_min_window_us;
            if (w < (double)h->maxwin)
                h->maxwin = w < 1.0 ? 1 : (int)w;
        }
    }
    /* One window is HetProbe: then it is HetProbe, probe cache included
     * (a stable loop stops probing). Every node computes the same. */
    if (p->kind == HCRT_CLP_HETPROBE_I && h->maxwin == 1)
        p->kind = HCRT_CLP_HETPROBE;
    if (p->kind == HCRT_CLP_HETPROBE_I) {
        uint64_t per =
            h->wlen / ((uint64_t)p->total * (uint64_t)h->prm.fractions);
        h->max_c = per > 1 ? per : 1;
    }

    const hcrt__hetprobe_decision_t *reuse = NULL;
    const double *prior = NULL;
    hcrt__hetprobe_decision_t cached = {0};
    double cached_csr[nn];
    /* Both take the cached speeds as the prior that sizes the probe slices
     * (a node known to be 1000x slower on this loop, e.g. one that must
     * fetch every page, then probes nothing: without it HetProbe-I had
     * the slow node fetch 4096 pages per call of the stencil, 1.4x the
     * time of HetProbe); HetProbe skips the probe of a stable loop (HetProbe-I:
     * below). */
    pthread_mutex_lock(&cache_mu);
    hcrt__probecache_lookup(hcrt__cl_sched.cache, h->loop_id, nn, h->thr,
                            &reuse, &prior);
    if (prior)
        for (int k = 0; k < nn; k++)
            h->weight[k] = prior[k] > 0 ? prior[k] : PROBE_FLOOR;
    for (int k = 0; k < nn; k++)
        h->rests[k] = (uint8_t)hcrt__probecache_rests(hcrt__cl_sched.cache,
                                                      h->loop_id, nn, k);
    h->dealing =
        h->prm.deal_spread <= 1.0 ||
        hcrt__probecache_irregular(hcrt__cl_sched.cache, h->loop_id, nn) == 1;
    /* HetProbe-I reuses a stable loop's decision only when it is a single
     * node (a DSM-bound loop: what the faults make of it does not change
     * between calls, and re-probing it at every call made HetProbe-I 5-8 %
     * slower than HetProbe on spmv); a cross-node loop re-probes in
     * windows, as the cost may move inside a call. */
    if (p->kind != HCRT_CLP_HETPROBE &&
        !(reuse && reuse->kind == HCRT_HP_SINGLE))
        reuse = NULL;
    if (reuse) {
        cached = *reuse;
        memcpy(cached_csr, reuse->csr, sizeof(double) * (size_t)nn);
    } else { /* the probe's quiet start (start_window) */
        const double *cs =
            hcrt__probecache_speeds(hcrt__cl_sched.cache, h->loop_id);
        for (int k = 0; cs && k < nn; k++)
            h->speed[k] = cs[k];
    }
    pthread_mutex_unlock(&cache_mu);
    if (reuse) { /* a stable loop: its smoothed decision, no probe */
        p->kind = HCRT_CLP_HETPROBE, h->max_c = 0; /* one range, no windows */
        h->single = cached.kind == HCRT_HP_SINGLE ? cached.node : -1;
        memcpy(h->weight, cached_csr, sizeof(double) * (size_t)nn);
        final_split(p, 0);
        cached.csr = cached_csr;
        cached.share = h->d.share;
        cached.window = 0, cached.first = 0, cached.remaining = p->trip;
        record(p, &cached, 0, 1, 0, 0);
        return;
    }
    if (p->trip < 2 * h->prm.min_probe_iters * (uint64_t)p->total) {
        final_split(p, 0); /* too small to probe: static by the prior */
        hcrt__hetprobe_decision_t d = {.kind = HCRT_HP_STATIC,
                                       .why = HCRT_HP_WHY_SMALL_LOOP,
                                       .node = -1,
                                       .nnodes = nn,
                                       .remaining = p->trip,
                                       .threshold_us = h->prm.threshold_us,
                                       .min_period_us = INFINITY,
                                       .csr = h->weight,
                                       .share = h->d.share};
        record(p, &d, 0, 1, 0, 0);
        return;
    }
    start_window(p, 0);
}

void hcrt__cl_hp_free(hcrt__cl_pool_t *p)
{
    hcrt__cl_hp_t *h = p->hp;
    if (!h)
        return;
    /* The next call's probe basis, after a cross-node split only: the
     * node a single-node decision chose would publish its run and the
     * others their probes alone (LU with the quota node took 1.2-1.5x the
     * head's time, probing again and again). Every node knows the
     * decision, so every node keeps a basis or none. */
    int cross = h->single < 0;
    pthread_mutex_lock(&cache_mu);
    hcrt__probecache_set_run(hcrt__cl_sched.cache, h->loop_id, p->nn,
                             cross ? h->call_it : 0, cross ? h->call_s : 0);
    if (p->kind == HCRT_CLP_HETPROBE_I && h->rate_lo > 0 &&
        h->rate_hi > h->rate_lo) /* two windows measured: the same rates on
                                    every node */
        hcrt__probecache_set_irregular(hcrt__cl_sched.cache, h->loop_id, p->nn,
                                       h->rate_hi >=
                                           h->prm.deal_spread * h->rate_lo);
    pthread_mutex_unlock(&cache_mu);
    free(h->thr), free(h->weight), free(h->speed), free(h->rests);
    free(h->d.csr);
    free(h->d.share);
    free(h->pstart), free(h->sg_lo), free(h->sg_v), free(h->zb);
    free(h);
}

/* The thread seconds published with this node's probe iterations: those
 * at the node's speed over its probe and the run phase before it (the
 * last window's share), each window's added to half the earlier ones'
 * (window 0: the probe alone, so HetProbe is unchanged). HetProbe-I's
 * probes alone misjudged regular loops: 1-2 ms each, and node 0's ran
 * while its service thread answered the others' polls of the close and
 * exchange words (its home), so ep's node 0 measured 0.77 of node 1 in
 * every window while the run phases went at equal speeds (13 vs 16 ms
 * per window, 3-5 ms of waiting in each exchange); and one lost time
 * slice made a node of the irregular kernel look 20x slower. */
static double published_secs(hcrt__cl_hp_t *h, uint64_t iters)
{
    h->acc_it = 0.5 * h->acc_it + (double)iters + h->run_it;
    h->acc_s = 0.5 * h->acc_s + h->psecs + h->run_s;
    h->run_it = h->run_s = 0.0;
    if (iters == 0 || !(h->acc_it > 0.0) || !(h->acc_s > 0.0))
        return h->psecs;
    return (double)iters * h->acc_s / h->acc_it;
}

/* The measurement, once this node's probe chunks are done: published to
 * the other nodes, whose measurements are then received (posted). */
static void exchange_begin(hcrt__cl_pool_t *p)
{
    hcrt__cl_hp_t *h = p->hp;
    int win = h->win;
    hcrt_dsm_counters_t c1;
    hcrt__dsm_counters(&c1);
    uint64_t tr = h->t0 ? (c1.pages_fetched - h->c0.pages_fetched) +
                              (c1.diff_pages - h->c0.diff_pages)
                        : 0; /* no probe here: nothing measured */
    double el_us = h->t0 ? (double)(hcrt__now_ns() - h->t0) / 1e3 : 0;
    if (h->pchunks && !h->closed) /* done first: the others stop */
        hcrt__cl_close(p, win, (uint64_t)el_us);
    uint64_t it = sub_off(p, h->pchunks);
    double secs = published_secs(h, it);
    if (win == 0 && it > 0 && secs > 0) {
        /* with the last call's run phase, the earliest part of the basis
         * (HetProbe-I's later windows halve it as they add theirs) */
        pthread_mutex_lock(&cache_mu);
        hcrt__probecache_basis(hcrt__cl_sched.cache, h->loop_id, p->nn,
                               &h->acc_it, &h->acc_s);
        pthread_mutex_unlock(&cache_mu);
        secs = (double)it * h->acc_s / h->acc_it;
    }
    /* the share of the probe's thread time the node's faults took */
    double fs = h->t0 && h->psecs > 0
                    ? (double)(c1.fault_ns - h->c0.fault_ns) / 1e9 / h->psecs
                    : 0.0;
    fs = fs > 1.0 ? 1.0 : fs;
    uint64_t v[6] = {it,
                     hcrt__cl_fbits(secs),
                     tr,
                     hcrt__cl_fbits(el_us),
                     hcrt__cl_pack_cmpki(h->cm_n ? h->cm_sum / h->cm_n : -1),
                     hcrt__cl_fbits(fs)};
    hcrt__cl_publish(p, win, v);
    hcrt__cl_gather_post(p, win);
}

/* Adds [lo, hi) to the segments (index n onwards), merged with the last
 * one when it continues it. */
static void add_segment(hcrt__cl_hp_t *h, uint64_t lo, uint64_t hi, uint64_t *n)
{
    if (lo >= hi)
        return;
    int s = h->nseg - 1;
    if (s < 0 || h->sg_lo[s] + (*n - h->sg_v[s]) != lo)
        h->sg_lo[h->nseg] = lo, h->sg_v[h->nseg++] = *n;
    *n += hi - lo;
}

/* The rest of the exchange (one thread of the node, once every
 * measurement arrived or this node has nothing left to extend): the
 * nodes' extensions, the decision, the split of the window's rest.
 *
 * Extensions: a node done with its probe before the others' measurements
 * arrived runs iterations from the start of its zone of the window's rest
 * meanwhile (ext_mine of them), instead of idling: on the stencil's
 * column sweep, node 0 idled 25 ms of its first call waiting for node 1,
 * which had to fetch a 4096-page column for its one probe iteration. The
 * zones split the rest as the probe slices do, so no two nodes run an
 * iteration twice; the split afterwards covers what the extensions left
 * of each zone, with the probe leftovers, as segments. */
static void exchange_end(hcrt__cl_pool_t *p, uint64_t ext_mine)
{
    hcrt__cl_hp_t *h = p->hp;
    int nn = p->nn, win = h->win;
    hcrt__hetprobe_node_meas_t m[nn];
    uint64_t none[nn];

    hcrt__cl_gather_finish(p, win, m);
    /* no zones (every node resting or time-bounded out, or no rest): no
     * node could extend, and every node knows it */
    memset(none, 0, sizeof(none));
    uint8_t zoned[nn];
    for (int k = 0; k < nn; k++)
        zoned[k] = h->zb[2 * k + 1] > h->zb[2 * k];
    const uint64_t *ext =
        h->zopen >= 0 ? hcrt__cl_ext_exchange(p, win, ext_mine, zoned) : none;
    hcrt__hetprobe_decision_t *d = &h->d;
    d->nnodes = nn, d->window = win, d->meas = m;
    hcrt__hetprobe_decide(&h->prm, nn, h->thr, m, d);
    uint64_t at = h->pos + h->probe_n, n = 0, base = 0;
    h->probed = 0;
    h->nseg = 0;
    int extended = 0;
    for (int k = 0; k < nn; k++) { /* probe iterations a node left undone */
        uint64_t lo = h->pos + h->pstart[k], hi = h->pos + h->pstart[k + 1];
        lo = m[k].iters < hi - lo ? lo + m[k].iters : hi;
        h->probed += lo - (h->pos + h->pstart[k]);
        add_segment(h, lo, hi, &n);
        extended |= ext[k] > 0;
    }
    if (extended && h->zopen >= 0) {
        /* the open-ended zone ran past a HetProbe-I window's end: the
         * window ends where it stopped (or, as start_window has it, at
         * the loop's end when too little would be left after it) */
        uint64_t e = h->zb[2 * h->zopen] + ext[h->zopen];
        if (e > h->run_end)
            h->run_end = window_end(p, e);
    }
    if (h->nseg || extended) { /* split them with the window's rest: [lo,
                                  hi) index */
        for (int k = 0; h->zopen >= 0 && k < nn; k++) { /* zone order */
            if (k == h->zopen)
                continue;
            uint64_t zlo = h->zb[2 * k], zhi = h->zb[2 * k + 1];
            add_segment(h, ext[k] < zhi - zlo ? zlo + ext[k] : zhi, zhi, &n);
        }
        /* the open zone's rest up to the window's end (with the loop's
         * last iteration), or without zones the whole rest */
        uint64_t zlo = h->zopen >= 0 ? h->zb[2 * h->zopen] + ext[h->zopen] : at;
        add_segment(h, zlo, h->run_end, &n);
        h->sg_v[h->nseg] = n;
        if (h->nseg == 1 && h->sg_lo[0] + n == h->run_end)
            base = h->sg_lo[0], h->nseg = 0; /* one piece: contiguous */
    } else {
        base = at, n = h->run_end - at;
    }
    d->first = at, d->remaining = n;
    uint64_t start[nn + 1];
    if (d->kind == HCRT_HP_CROSS) {
        if (hcrt__sched_weighted_split(n, nn, d->csr, h->thr, start) != HCRT_OK)
            hcrt__sched_weighted_split(n, nn, NULL, h->thr, start);
        h->single = -1;
        h->crossed = 1;
        memcpy(h->weight, d->csr, sizeof(double) * (size_t)nn);
    } else {
        for (int k = 0; k <= nn; k++)
            start[k] = k <= d->node ? 0 : n;
        h->single = d->node;
        for (int k = 0; k < nn; k++)
            h->weight[k] = d->csr[k] > 0 ? d->csr[k] : PROBE_FLOOR;
        /* HetProbe-I re-probes for work whose cost moves; what the DSM's
         * faults make of a loop does not change within a call, so a loop
         * found fault-bound runs the rest of the call on its node without
         * more windows (each would probe the slow nodes again: spmv and
         * the stencil ran 10-40 % slower than HetProbe). Every node
         * decides the same from the same measurements. With
         * HCRT_SCHED_REPROBE_MIN_US=0 every window is taken regardless.
         * Not for a node found crawling after an earlier window of the
         * call split across nodes with it: a node measured near the
         * faulting floor crosses it with the noise of one short probe
         * (black-scholes' and k-means' workers with the hog: 0.14-0.30
         * of the head, window to window), and one such window sent the
         * rest of the call to the head alone. */
        if (p->kind == HCRT_CLP_HETPROBE_I && hpi_min_window_us > 0 &&
            (d->why == HCRT_HP_WHY_FAULTS_FREQUENT ||
             (d->why == HCRT_HP_WHY_CRAWLS && !h->crossed) ||
             d->why == HCRT_HP_WHY_UNMEASURED))
            h->maxwin = win + 1;
    }
    for (int k = 0; k < nn; k++)
        d->share[k] = start[k + 1] - start[k];
    double rate = 0; /* the cluster's iterations per µs in this window */
    for (int k = 0; k < nn; k++)
        rate += (m[k].iters > 0 ? m[k].speed : 0.0) * h->thr[k] / 1e6;
    if (rate > 0) { /* a jump in the loop's cost: deal from now on */
        h->rate_lo = h->rate_lo > 0 && h->rate_lo < rate ? h->rate_lo : rate;
        h->rate_hi = h->rate_hi > rate ? h->rate_hi : rate;
        h->dealing |= h->rate_hi >= h->prm.deal_spread * h->rate_lo;
    }
    pthread_mutex_lock(&cache_mu);
    if (rate > 0) {
        /* this window at its rate, the rest of the loop at the same rate
         * until a later window says otherwise (also for a HetProbe-I loop
         * that ran as HetProbe: its work may have grown) */
        double rest = (double)(p->trip - h->run_end) / rate;
        h->work_us += (double)(h->run_end - h->pos) / rate;
        hcrt__probecache_set_work(hcrt__cl_sched.cache, h->loop_id, nn,
                                  h->work_us + rest);
    }
    if (win == 0)
        hcrt__probecache_update(hcrt__cl_sched.cache, h->loop_id, nn, m, 1);
    pthread_mutex_unlock(&cache_mu);
    uint64_t ext_all = 0;
    for (int k = 0; k < nn; k++)
        ext_all += ext[k];
    record(p, d, 1, win == 0, ext_all,
           d->kind == HCRT_HP_CROSS && p->kind == HCRT_CLP_HETPROBE_I &&
               h->dealing);
    d->meas = NULL;
    pthread_mutex_lock(&p->mu);
    if (d->kind != HCRT_HP_CROSS || !deal(p, base, n, d->csr))
        p->lo = base + start[p->me], p->hi = base + start[p->me + 1];
    h->win++;
    h->phase = PH_RUN;
    h->exchanging = 0;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Closes the calling thread's probe chunk (its time is the measurement). */
static void close_probe(hcrt__cl_hp_t *h)
{
    uint64_t t = hcrt__now_ns(), cm, in;
    h->psecs += (double)(t - tl.t0) / 1e9;
    h->pdone++;
    if (perf_read(&cm, &in) && in > tl.in0) {
        h->cm_sum += 1000.0 * (double)(cm - tl.cm0) / (double)(in - tl.in0);
        h->cm_n++;
    }
    tl.probing = 0;
}

/* Maps a chunk just taken from the node's range to loop iterations: its
 * dealt piece (deal()) to the rest's positions, then a position of the
 * segment index (after a window closed early) to its segment's
 * iterations; cut where either mapping jumps, the rest going back to the
 * pool (the take had just moved p->lo past the chunk). */
static void unindex(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n)
{
    hcrt__cl_hp_t *h = p->hp;
    uint64_t f = *first, c = *n;
    if (h->ilv) {
        uint64_t r = h->il_q ? f / h->il_q : h->il_full, end, g;
        if (r < h->il_full) {
            end = (r + 1) * h->il_q;
            g = r * h->il_len + h->il_o + (f - r * h->il_q);
        } else {
            end = h->il_full * h->il_q + h->il_q2;
            g = h->il_full * h->il_len + h->il_o2 + (f - h->il_full * h->il_q);
        }
        c = c < end - f ? c : end - f;
        f = g + h->il_base;
    }
    if (h->nseg) {
        int s = 0;
        while (s + 1 < h->nseg && h->sg_v[s + 1] <= f)
            s++;
        uint64_t end = h->sg_v[s + 1];
        c = c < end - f ? c : end - f;
        f = h->sg_lo[s] + (f - h->sg_v[s]);
    }
    p->lo = *first + c;
    *first = f, *n = c;
}

/* Whether this node's probe is over (at a round's start, under p->mu):
 * another node closed the window and this node has probed at least as
 * long as that one did. Stopping at the close alone cut a node that
 * started late (the fork reaches it later) short in its first rounds,
 * whose sub-chunks of a few iterations weigh their overheads: ep's node
 * 1 measured 0.4 of node 0's speed on identical cores. A node slower
 * than that probe by more than a round stops after the round it runs. */
static int probe_over(hcrt__cl_pool_t *p)
{
    hcrt__cl_hp_t *h = p->hp;
    double el_us = (double)(hcrt__now_ns() - h->t0) / 1e3;
    if (el_us < h->quiet_us)
        return 0;                                   /* start_window: quiet_us */
    uint64_t close_us = hcrt__cl_closed(p, h->win); /* kept once received */
    return close_us && el_us + 1.0 >= (double)close_us;
}

int hcrt__cl_hp_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n)
{
    hcrt__cl_hp_t *h = p->hp;

    pthread_mutex_lock(&p->mu);
    if (tl.probing && tl.pool == p)
        close_probe(h);
    if (tl.running && tl.pool == p) { /* a run-phase chunk's time */
        double dt = (double)(hcrt__now_ns() - tl.t0) / 1e9;
        h->run_s += dt, h->call_s += dt;
        h->run_it += (double)tl.n, h->call_it += (double)tl.n;
        tl.running = 0;
    }
    for (;;) {
        /* after every thread had a sub-chunk: stop once a node is done
         * (looked up at the start of each round: a DSM load, remote on
         * all nodes but the word's home) */
        if (h->phase == PH_PROBE && h->phanded < h->pchunks && !h->closed &&
            h->phanded >= p->local && h->phanded % p->local == 0 &&
            probe_over(p)) {
            h->closed = 1;
            h->pchunks = h->phanded;
            continue;
        }
        if (h->phase == PH_PROBE && h->phanded < h->pchunks) {
            int j = h->phanded++;
            uint64_t a = sub_off(p, j), b = sub_off(p, j + 1);
            if (a == b) { /* fewer iterations than sub-chunks */
                h->pdone++;
                continue;
            }
            *first = h->plo + a, *n = b - a;
            if (!h->t0) {
                h->t0 = hcrt__now_ns();
                hcrt__dsm_counters(&h->c0);
            }
            tl.pool = p, tl.probing = 1;
            if (!perf_read(&tl.cm0, &tl.in0))
                tl.cm0 = tl.in0 = 0;
            tl.t0 = hcrt__now_ns();
            break;
        }
        if (h->phase == PH_PROBE) {
            if (h->exchanging || (!h->published && h->pdone < h->pchunks)) {
                pthread_cond_wait(&p->cv, &p->mu);
                continue;
            }
            if (!h->published) { /* the node's probe is done */
                h->exchanging = 1;
                pthread_mutex_unlock(&p->mu);
                exchange_begin(p);
                pthread_mutex_lock(&p->mu);
                h->published = 1;
                h->exchanging = 0;
                pthread_cond_broadcast(&p->cv);
                continue;
            }
            /* published: extend while the others' measurements are out */
            if (!h->ext_closed && h->zlo + h->ext < h->zhi &&
                !hcrt__cl_gather_test(p)) {
                uint64_t a = h->zlo + h->ext, c = h->zhi - a;
                c = c < h->ext_c ? c : h->ext_c;
                h->ext += c;
                *first = a, *n = c;
                if (p->kind == HCRT_CLP_HETPROBE_I) { /* published_secs */
                    tl.pool = p, tl.running = 1, tl.n = c;
                    tl.t0 = hcrt__now_ns();
                }
                break;
            }
            h->ext_closed = 1;
            h->exchanging = 1;
            uint64_t e = h->ext;
            pthread_mutex_unlock(&p->mu);
            exchange_end(p, e);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        if (h->phase == PH_RUN && p->lo < p->hi) {
            /* guided among the node's threads; a node of one thread
             * takes its whole range (HetProbe: nothing to balance, and
             * each chunk costs a lock and two clock reads; LU's loops,
             * called thousands of times, took ~8 chunks each) */
            uint64_t minc =
                p->local == 1 && !h->max_c ? p->hi - p->lo : h->prm.min_chunk;
            *n = hcrt__cl_take(p, 1, minc, h->max_c, first);
            if (h->nseg || h->ilv)
                unindex(p, first, n);
            /* published_secs (HetProbe-I), the next call's basis */
            tl.pool = p, tl.running = 1, tl.n = *n;
            tl.t0 = hcrt__now_ns();
            break;
        }
        if (h->phase == PH_RUN && h->run_end < p->trip) {
            start_window(p, h->run_end);
            pthread_cond_broadcast(&p->cv);
            continue;
        }
        h->phase = PH_DONE;
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    pthread_mutex_unlock(&p->mu);
    hcrt__cl_count_chunks(p->kind, 1, 0);
    return 1;
}
