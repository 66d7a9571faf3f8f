/*
 * hp_window.c - the HetProbe / HetProbe-I window protocol of a node's loop
 * pool (see pool.c for the scheme): a loop's set-up from its settings and
 * the probe cache, its windows, probe slices, extension zones and splits
 * (handing out chunks and the exchange: hp_run.c).
 *
 * Everything that decides where iterations go is computed from values
 * every node has (trip count, thread counts, settings, the exchanged
 * measurements, the probe cache fed with those), so every node computes
 * the same windows, slices and shares.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "sched/hp_int.h"

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

/* Offset in the node's probe share of sub-chunk j (j = pchunks: its end):
 * round r of `local` sub-chunks covers [L(2^r-1), L(2^(r+1)-1)) / (2^R-1). */
uint64_t hcrt__cl_hp_sub_off(const hcrt__cl_pool_t *p, int j)
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
int hcrt__cl_hp_deal(hcrt__cl_pool_t *p, uint64_t base, uint64_t n,
                     const double *w)
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
    } else if (!hcrt__cl_hp_deal(p, at, p->trip - at, h->weight)) {
        my_share(p, at, p->trip - at, h->weight, &p->lo, &p->hi);
    }
    h->phase = PH_RUN;
}

/* A window ending at `e`, or at the loop's end when too little would be
 * left after it (less than half a window or than a probe's minimum). */
uint64_t hcrt__cl_hp_window_end(const hcrt__cl_pool_t *p, uint64_t e)
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
void hcrt__cl_hp_start_window(hcrt__cl_pool_t *p, uint64_t pos)
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
        h->run_end = hcrt__cl_hp_window_end(p, pos + P + h->wlen);
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

void hcrt__cl_hp_setup(hcrt__cl_pool_t *p, const int *thr, int pct)
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
        h->thr[k] = thr[k];
        h->weight[k] = hcrt__cl_sched.hp.csr ? hcrt__cl_sched.hp.csr[k] : 1.0;
    }
    h->single = -1;
    /* the ident's address: the same in every rank (same binary, no ASLR);
     * not the trip count, so a loop whose bounds shrink (LU) is one loop */
    h->loop_id = fnv(p->loc ? p->loc->psource : NULL) ^
                 ((uint64_t)(uintptr_t)p->loc * 0x9e3779b97f4a7c15ULL);
    h->maxwin = hcrt__cl_pool_windows(p->kind, p->trip, pct, p->total);
    uint64_t w = (uint64_t)ceil(h->prm.reprobe_pct / 100.0 * (double)p->trip);
    uint64_t wmin = (p->trip + (uint64_t)h->maxwin - 2) /
                    (uint64_t)(h->maxwin > 2 ? h->maxwin - 2 : 1);
    h->wlen = w > wmin ? w : wmin;
    if (h->wlen == 0)
        h->wlen = 1;
    h->max_c = 0;
    if (p->kind == HCRT_CLP_HETPROBE_I && h->maxwin > 1 &&
        hcrt__cl_sched.min_window_us > 0) {
        /* no more windows than the loop's work pays for (at least one:
         * then it is HetProbe without the cache) */
        /* The last run's work, window by window at each window's measured
         * rate: the smoothed speeds alone are those of window 0's probes,
         * and on a loop whose cost moves (the irregular kernel's hot
         * quarter) they said "50x cheaper" whenever a probe fell in the
         * cold part, leaving the hot part to one or two windows. */
        double per_us = 0, work_us;
        pthread_mutex_lock(&hcrt__cl_sched.cache_mu);
        const double *speed =
            hcrt__probecache_speeds(hcrt__cl_sched.cache, h->loop_id);
        for (int k = 0; speed && k < nn; k++)
            per_us += speed[k] * h->thr[k] / 1e6;
        work_us = hcrt__probecache_work(hcrt__cl_sched.cache, h->loop_id, nn);
        pthread_mutex_unlock(&hcrt__cl_sched.cache_mu);
        if (work_us <= 0 && per_us > 0)
            work_us = (double)p->trip / per_us;
        if (work_us > 0) {
            double w = work_us / hcrt__cl_sched.min_window_us;
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
    pthread_mutex_lock(&hcrt__cl_sched.cache_mu);
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
    pthread_mutex_unlock(&hcrt__cl_sched.cache_mu);
    if (reuse) { /* a stable loop: its smoothed decision, no probe */
        p->kind = HCRT_CLP_HETPROBE, h->max_c = 0; /* one range, no windows */
        h->single = cached.kind == HCRT_HP_SINGLE ? cached.node : -1;
        memcpy(h->weight, cached_csr, sizeof(double) * (size_t)nn);
        final_split(p, 0);
        cached.csr = cached_csr;
        cached.share = h->d.share;
        cached.window = 0, cached.first = 0, cached.remaining = p->trip;
        hcrt__cl_record(p, &cached, 0, 1, 0, 0);
        p->head_alone = h->single == 0;
        return;
    }
    p->head_alone = 0; /* probes on every node */
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
        hcrt__cl_record(p, &d, 0, 1, 0, 0);
        return;
    }
    hcrt__cl_hp_start_window(p, 0);
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
    pthread_mutex_lock(&hcrt__cl_sched.cache_mu);
    hcrt__probecache_set_run(hcrt__cl_sched.cache, h->loop_id, p->nn,
                             cross ? h->call_it : 0, cross ? h->call_s : 0);
    if (p->kind == HCRT_CLP_HETPROBE_I && h->rate_lo > 0 &&
        h->rate_hi > h->rate_lo) /* two windows measured: the same rates on
                                    every node */
        hcrt__probecache_set_irregular(hcrt__cl_sched.cache, h->loop_id, p->nn,
                                       h->rate_hi >=
                                           h->prm.deal_spread * h->rate_lo);
    pthread_mutex_unlock(&hcrt__cl_sched.cache_mu);
    free(h->thr), free(h->weight), free(h->speed), free(h->rests);
    free(h->d.csr);
    free(h->d.share);
    free(h->pstart), free(h->sg_lo), free(h->sg_v), free(h->zb);
    free(h);
}
