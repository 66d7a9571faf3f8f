/*
 * hetprobe.c - the HetProbe / HetProbe-I state machine of one loop
 * instance (seed libHetMP §3.2; docs/hetprobe.md).
 *
 * Iterations live in exactly one place at a time: the pool (not given to
 * anyone), a node's probe slice, a node's queue (the decision in force), or
 * handed out as a chunk. Every transition moves iterations between these
 * with hcrt__hetprobe_segq_move, which is what makes "never twice, never
 * skipped" hold by construction for any node count and any re-probe point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/hetprobe_int.h"

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Iterations in the pool, a probe slice or a node queue. */
static uint64_t unhanded(const hcrt__hetprobe_t *hp)
{
    return hp->trip - hp->handed;
}

/* HetProbe-I re-probes only a remainder worth it: at least one window and
 * enough for a probe of min_probe_iters per thread (and never on a one-node
 * cluster: there is nothing to decide). Falls monotonically as iterations
 * are handed out, so a thread told DONE is never needed again. */
static int can_reprobe(const hcrt__hetprobe_t *hp)
{
    return hp->p.mode == HCRT_HP_MODE_HETPROBE_I && hp->nnodes > 1 &&
           unhanded(hp) >= hp->min_reprobe;
}

static hcrt__hetprobe_decision_t *last_decision(hcrt__hetprobe_t *hp)
{
    return hp->ndec > 0 ? &hp->dec[hp->ndec - 1] : NULL;
}

static hcrt_status_t push_decision(hcrt__hetprobe_t *hp, int with_meas,
                                   hcrt__hetprobe_decision_t **out)
{
    if (hp->ndec == hp->deccap) {
        int cap = hp->deccap ? 2 * hp->deccap : 4;
        hcrt__hetprobe_decision_t *v =
            realloc(hp->dec, sizeof(*v) * (size_t)cap);
        if (v == NULL)
            return HCRT_ERR_NOMEM;
        hp->dec = v;
        hp->deccap = cap;
    }
    hcrt__hetprobe_decision_t *d = &hp->dec[hp->ndec];
    hcrt_status_t rc = hcrt__hetprobe_decision_alloc(d, hp->nnodes, with_meas);
    if (rc != HCRT_OK)
        return rc;
    hp->ndec++;
    d->window = hp->window < 0 ? 0 : hp->window;
    d->threshold_us = hp->p.threshold_us;
    d->min_period_us = INFINITY;
    *out = d;
    return HCRT_OK;
}

/* Gives the pool to the nodes as `d` says (shares in pool order, so each
 * node's part is one contiguous run of the remainder) and enters RUN. */
static hcrt_status_t apply(hcrt__hetprobe_t *hp, hcrt__hetprobe_decision_t *d,
                           const double *weight)
{
    int n = hp->nnodes;
    uint64_t *start = malloc(sizeof(uint64_t) * (size_t)(n + 1));
    hcrt_status_t rc = HCRT_OK;
    int *thr = malloc(sizeof(int) * (size_t)n);
    if (start == NULL || thr == NULL) {
        rc = HCRT_ERR_NOMEM;
        goto out;
    }
    for (int k = 0; k < n; k++)
        thr[k] = hp->node[k].threads;
    d->first = hp->handed;
    d->remaining = hp->pool.count;
    if (d->kind == HCRT_HP_SINGLE) {
        for (int k = 0; k <= n; k++)
            start[k] = k <= d->node ? 0 : hp->pool.count;
    } else {
        rc = hcrt__sched_weighted_split(hp->pool.count, n, weight, thr, start);
    }
    for (int k = 0; k < n && rc == HCRT_OK; k++) {
        d->share[k] = start[k + 1] - start[k];
        rc = hcrt__hetprobe_segq_move(&hp->pool, d->share[k],
                                      &hp->node[k].queue);
    }
    hp->phase = HCRT_HP_PHASE_RUN;
    hp->handed_since = 0;
    hp->reprobe_pending = 0;
    hp->reprobe_ok = can_reprobe(hp);
    hp->epoch++;
out:
    free(start);
    free(thr);
    return rc;
}

/* A decision without measurements: one node, a small loop, or the cache. */
static hcrt_status_t decide_unprobed(hcrt__hetprobe_t *hp,
                                     const hcrt__hetprobe_decision_t *reuse)
{
    hcrt__hetprobe_decision_t *d;
    hcrt_status_t rc = push_decision(hp, 0, &d);
    if (rc != HCRT_OK)
        return rc;
    if (reuse != NULL) {
        d->kind = reuse->kind;
        d->node = reuse->node;
        d->tie = reuse->tie;
        d->why = HCRT_HP_WHY_CACHED;
        d->min_period_us = reuse->min_period_us;
        memcpy(d->csr, reuse->csr, sizeof(double) * (size_t)hp->nnodes);
    } else if (hp->nnodes == 1) {
        d->kind = HCRT_HP_SINGLE;
        d->node = 0;
        d->why = HCRT_HP_WHY_ONE_NODE;
        d->csr[0] = 1.0;
    } else {
        d->kind = HCRT_HP_STATIC;
        d->why = HCRT_HP_WHY_SMALL_LOOP;
        for (int k = 0; k < hp->nnodes; k++)
            d->csr[k] = hp->node[k].prior;
    }
    return apply(hp, d, d->csr);
}

/* Per-thread probe quotas: the probe's iterations spread in proportion to
 * the current CSR estimate (equal when nothing is known), so that every
 * thread's probe chunk takes about as long and no node idles waiting for a
 * slow node's probe; at least min_probe_iters each. Equal quotas when the
 * weighted ones would not fit in what is left. */
static void probe_quotas(const hcrt__hetprobe_t *hp, uint64_t r, uint64_t *q)
{
    uint64_t want = (uint64_t)ceil((double)r * hp->p.probe_pct / 100.0);
    uint64_t T = (uint64_t)hp->total_threads, min = hp->p.min_probe_iters;
    uint64_t equal = ceil_div(want, T) < min ? min : ceil_div(want, T);
    double wsum = 0.0;
    for (int k = 0; k < hp->nnodes; k++)
        wsum += hp->node[k].est * hp->node[k].threads;
    uint64_t total = 0;
    for (int k = 0; k < hp->nnodes; k++) {
        double x = ceil((double)want * hp->node[k].est / wsum);
        q[k] = x < (double)min ? min : (uint64_t)x;
        total += q[k] * (uint64_t)hp->node[k].threads;
    }
    for (int k = 0; k < hp->nnodes && total > r; k++)
        q[k] = equal; /* equal * T <= r: see hcrt__hetprobe_create */
}

/* Starts a probe window over what is left: each thread gets one chunk. A
 * node probes the front of its own queue first (the pages it already
 * holds), the rest comes from the front of the merged remainder. */
static hcrt_status_t start_probe(hcrt__hetprobe_t *hp)
{
    int n = hp->nnodes;
    hcrt_status_t rc = HCRT_OK;
    hcrt__hetprobe_segq_t **all = malloc(sizeof(*all) * (size_t)(n + 1));
    uint64_t *q = malloc(sizeof(uint64_t) * (size_t)n);
    if (all == NULL || q == NULL) {
        rc = HCRT_ERR_NOMEM;
        goto out;
    }
    probe_quotas(hp, unhanded(hp), q);
    for (int k = 0; k < n && rc == HCRT_OK; k++) {
        hcrt__hetprobe_node_t *nd = &hp->node[k];
        uint64_t want = q[k] * (uint64_t)nd->threads;
        uint64_t own = nd->queue.count < want ? nd->queue.count : want;
        rc = hcrt__hetprobe_segq_move(&nd->queue, own, &nd->probe);
        all[k] = &nd->queue;
    }
    all[n] = &hp->pool;
    if (rc == HCRT_OK)
        rc = hcrt__hetprobe_segq_merge(all, n + 1, &hp->pool);
    for (int k = 0; k < n && rc == HCRT_OK; k++) {
        hcrt__hetprobe_node_t *nd = &hp->node[k];
        uint64_t want = q[k] * (uint64_t)nd->threads;
        rc = hcrt__hetprobe_segq_move(&hp->pool, want - nd->probe.count,
                                      &nd->probe);
        nd->probe_left = want;
        nd->counters_in = 0;
        nd->win_time = 0.0;
        nd->win_iters = 0;
        for (int t = 0; t < nd->threads; t++)
            hp->thr[nd->thread_off + t].quota = q[k];
    }
    hp->phase = HCRT_HP_PHASE_PROBE;
    hp->reprobe_pending = 0;
    hp->window++;
    hp->epoch++;
out:
    free(all);
    free(q);
    return rc;
}

/* Decides once every probe iteration ran and every node sent counters. */
static hcrt_status_t try_decide(hcrt__hetprobe_t *hp)
{
    for (int k = 0; k < hp->nnodes; k++)
        if (hp->node[k].probe_left > 0 || !hp->node[k].counters_in)
            return HCRT_OK;
    hcrt__hetprobe_decision_t *d;
    hcrt_status_t rc = push_decision(hp, 1, &d);
    if (rc != HCRT_OK)
        return rc;
    int *thr = malloc(sizeof(int) * (size_t)hp->nnodes);
    if (thr == NULL)
        return HCRT_ERR_NOMEM;
    for (int k = 0; k < hp->nnodes; k++) {
        hcrt__hetprobe_node_t *nd = &hp->node[k];
        hcrt__hetprobe_node_meas_t *m = &d->meas[k];
        double t = nd->win_time > 1e-9 ? nd->win_time : 1e-9;
        m->iters = nd->win_iters;
        m->speed = (double)nd->win_iters / t;
        m->faults = nd->faults;
        m->period_us = nd->period_us;
        m->cmpki = nd->cmpki;
        thr[k] = nd->threads;
    }
    hcrt__hetprobe_decide(&hp->p, hp->nnodes, thr, d->meas, d);
    free(thr);
    double fastest = 0.0;
    for (int k = 0; k < hp->nnodes; k++)
        fastest = d->meas[k].speed > fastest ? d->meas[k].speed : fastest;
    for (int k = 0; k < hp->nnodes && fastest > 0.0; k++)
        if (d->meas[k].speed > 0.0)
            hp->node[k].est = d->meas[k].speed / fastest;
    memcpy(hp->obs, d->meas, sizeof(*hp->obs) * (size_t)hp->nnodes);
    hp->obs_probed = 1;
    return apply(hp, d, d->csr);
}

hcrt_status_t hcrt__hetprobe_create(const hcrt__hetprobe_params_t *p,
                                    uint64_t trip, int nnodes,
                                    const int *threads, const double *prior,
                                    const hcrt__hetprobe_decision_t *reuse,
                                    hcrt__hetprobe_t **out)
{
    if (p == NULL || out == NULL || nnodes < 1 || threads == NULL ||
        hcrt__hetprobe_params_check(p, NULL, 0) != HCRT_OK ||
        (reuse != NULL && reuse->nnodes != nnodes))
        return HCRT_ERR_INVALID;
    int total = 0;
    for (int k = 0; k < nnodes; k++) {
        if (threads[k] < 1 || threads[k] > 1 << 20 ||
            (prior != NULL && !(prior[k] > 0.0 && prior[k] <= 1e6)))
            return HCRT_ERR_INVALID;
        total += threads[k];
    }
    hcrt__hetprobe_t *hp = calloc(1, sizeof(*hp));
    if (hp == NULL)
        return HCRT_ERR_NOMEM;
    hp->p = *p;
    hp->nnodes = nnodes;
    hp->total_threads = total;
    hp->trip = trip;
    hp->window = -1;
    hp->node = calloc((size_t)nnodes, sizeof(*hp->node));
    hp->thr = calloc((size_t)total, sizeof(*hp->thr));
    hp->obs = calloc((size_t)nnodes, sizeof(*hp->obs));
    if (hp->node == NULL || hp->thr == NULL || hp->obs == NULL)
        goto err_nomem;
    for (int k = 0, off = 0; k < nnodes; off += threads[k], k++) {
        hp->node[k].threads = threads[k];
        hp->node[k].thread_off = off;
        hp->node[k].prior = hp->node[k].est = prior ? prior[k] : 1.0;
        hp->node[k].cmpki = -1.0;
    }
    double w = ceil((double)trip * p->reprobe_pct / 100.0);
    hp->window_iters = w < 1.0 ? 1 : (uint64_t)w;
    uint64_t minprobe = 2 * (uint64_t)total * p->min_probe_iters;
    hp->min_reprobe = hp->window_iters > minprobe ? hp->window_iters : minprobe;
    if (hcrt__hetprobe_segq_push(&hp->pool, 0, trip) != HCRT_OK)
        goto err_nomem;
    hcrt_status_t rc;
    if (trip == 0) {
        hp->phase = HCRT_HP_PHASE_RUN; /* nothing to decide */
        rc = HCRT_OK;
    } else if (reuse != NULL || nnodes == 1 || trip < minprobe) {
        rc = decide_unprobed(hp, reuse);
    } else {
        rc = start_probe(hp);
    }
    if (rc != HCRT_OK) {
        hcrt__hetprobe_destroy(hp);
        return rc;
    }
    *out = hp;
    return HCRT_OK;
err_nomem:
    hcrt__hetprobe_destroy(hp);
    return HCRT_ERR_NOMEM;
}

void hcrt__hetprobe_destroy(hcrt__hetprobe_t *hp)
{
    if (hp == NULL)
        return;
    for (int k = 0; hp->node != NULL && k < hp->nnodes; k++) {
        hcrt__hetprobe_segq_fini(&hp->node[k].probe);
        hcrt__hetprobe_segq_fini(&hp->node[k].queue);
    }
    hcrt__hetprobe_segq_fini(&hp->pool);
    for (int i = 0; i < hp->ndec; i++)
        hcrt__hetprobe_decision_free(&hp->dec[i]);
    free(hp->dec);
    free(hp->node);
    free(hp->thr);
    free(hp->obs);
    free(hp);
}

/* ---- handing out chunks -------------------------------------------------- */

/* Chunk size after a decision: guided inside the node (half the node's
 * remainder spread over its threads), and for HetProbe-I at most 1/fractions
 * of the node's part of a window, so threads come back often enough for the
 * re-probe to start on time. */
static uint64_t run_chunk(const hcrt__hetprobe_t *hp, int node)
{
    const hcrt__hetprobe_node_t *nd = &hp->node[node];
    uint64_t t = (uint64_t)nd->threads;
    uint64_t c = ceil_div(nd->queue.count, 2 * t);
    const hcrt__hetprobe_decision_t *d = &hp->dec[hp->ndec - 1];
    if (hp->reprobe_ok && d->remaining > 0) {
        double part = (double)hp->window_iters * (double)d->share[node] /
                      (double)d->remaining;
        uint64_t f =
            (uint64_t)ceil(part / (double)(t * (uint64_t)hp->p.fractions));
        c = f < c ? f : c;
    }
    return c < hp->p.min_chunk ? hp->p.min_chunk : c;
}

static void hand(hcrt__hetprobe_t *hp, const hcrt__hetprobe_seg_t *s, int probe,
                 hcrt__hetprobe_chunk_t *chunk)
{
    chunk->begin = s->begin;
    chunk->end = s->end;
    chunk->probe = probe;
    chunk->window = hp->window;
    hp->handed += s->end - s->begin;
    hp->handed_since += s->end - s->begin;
    hp->outstanding++;
}

/* The re-probe starts once nothing is out: the remainder is then exactly
 * the union of the node queues. */
static hcrt_status_t request_reprobe(hcrt__hetprobe_t *hp)
{
    hp->reprobe_pending = 1;
    return hp->outstanding == 0 ? start_probe(hp) : HCRT_OK;
}

static hcrt_status_t next_run(hcrt__hetprobe_t *hp, int node,
                              hcrt__hetprobe_thread_t *th,
                              hcrt__hetprobe_chunk_t *chunk,
                              hcrt__hetprobe_next_t *what)
{
    hcrt__hetprobe_node_t *nd = &hp->node[node];
    const hcrt__hetprobe_decision_t *d = last_decision(hp);
    hcrt__hetprobe_seg_t s;
    *what = HCRT_HP_NEXT_WAIT;
    if (hp->reprobe_ok && hp->handed_since >= hp->window_iters)
        return request_reprobe(hp);
    if (hcrt__hetprobe_segq_take(&nd->queue, d ? run_chunk(hp, node) : 0, &s)) {
        hand(hp, &s, 0, chunk);
        *what = HCRT_HP_NEXT_CHUNK;
        if (hp->reprobe_ok && !can_reprobe(hp)) {
            hp->reprobe_ok = 0; /* waiters may now be DONE */
            hp->epoch++;
        }
        return HCRT_OK;
    }
    if (hp->reprobe_ok) {
        /* Ran dry early while others still work: the CSR was off, re-split
         * now (HetProbe-I only, and only for nodes that had a share). */
        if (d->share[node] > 0 && unhanded(hp) > 0)
            return request_reprobe(hp);
        return HCRT_OK; /* idle node: work may come at the next re-probe */
    }
    th->done = 1;
    *what = HCRT_HP_NEXT_DONE;
    return HCRT_OK;
}

hcrt_status_t hcrt__hetprobe_next(hcrt__hetprobe_t *hp, int node, int thread,
                                  hcrt__hetprobe_chunk_t *chunk,
                                  hcrt__hetprobe_next_t *what)
{
    if (hp == NULL || chunk == NULL || what == NULL || node < 0 ||
        node >= hp->nnodes || thread < 0 || thread >= hp->node[node].threads)
        return HCRT_ERR_INVALID;
    hcrt__hetprobe_thread_t *th = &hp->thr[hp->node[node].thread_off + thread];
    if (th->done) {
        *what = HCRT_HP_NEXT_DONE;
        return HCRT_OK;
    }
    if (hp->phase == HCRT_HP_PHASE_RUN && !hp->reprobe_pending) {
        hcrt_status_t rc = next_run(hp, node, th, chunk, what);
        if (rc != HCRT_OK || hp->phase == HCRT_HP_PHASE_RUN)
            return rc; /* else a re-probe just started: hand its slice */
    }
    *what = HCRT_HP_NEXT_WAIT;
    hcrt__hetprobe_seg_t s;
    if (hp->phase == HCRT_HP_PHASE_PROBE && th->quota > 0 &&
        hcrt__hetprobe_segq_take(&hp->node[node].probe, th->quota, &s)) {
        th->quota -= s.end - s.begin; /* a jump: the rest comes next call */
        hand(hp, &s, 1, chunk);
        *what = HCRT_HP_NEXT_CHUNK;
    }
    return HCRT_OK;
}

/* ---- measurements ------------------------------------------------------- */

hcrt_status_t hcrt__hetprobe_complete(hcrt__hetprobe_t *hp, int node,
                                      int thread,
                                      const hcrt__hetprobe_chunk_t *c,
                                      double seconds)
{
    if (hp == NULL || c == NULL || node < 0 || node >= hp->nnodes ||
        thread < 0 || thread >= hp->node[node].threads || c->begin >= c->end ||
        c->end > hp->trip || hp->outstanding == 0 || !(seconds >= 0.0))
        return HCRT_ERR_INVALID;
    hcrt__hetprobe_node_t *nd = &hp->node[node];
    uint64_t n = c->end - c->begin;
    hp->completed += n;
    hp->outstanding--;
    nd->run_time += seconds;
    nd->run_iters += n;
    if (c->probe && c->window == hp->window &&
        hp->phase == HCRT_HP_PHASE_PROBE) {
        if (n > nd->probe_left)
            return HCRT_ERR_INVALID;
        nd->win_time += seconds;
        nd->win_iters += n;
        nd->probe_left -= n;
        return try_decide(hp);
    }
    if (hp->reprobe_pending && hp->outstanding == 0)
        return start_probe(hp);
    return HCRT_OK;
}

int hcrt__hetprobe_counters_due(const hcrt__hetprobe_t *hp, int node)
{
    return hp->phase == HCRT_HP_PHASE_PROBE && node >= 0 && node < hp->nnodes &&
           hp->node[node].probe_left == 0 && !hp->node[node].counters_in;
}

hcrt_status_t hcrt__hetprobe_counters(hcrt__hetprobe_t *hp, int node,
                                      uint64_t faults, double period_us,
                                      double cmpki)
{
    if (hp == NULL || node < 0 || node >= hp->nnodes ||
        hp->phase != HCRT_HP_PHASE_PROBE || hp->node[node].counters_in ||
        (faults > 0 && !(period_us >= 0.0)))
        return HCRT_ERR_INVALID;
    hcrt__hetprobe_node_t *nd = &hp->node[node];
    nd->faults = faults;
    nd->period_us = faults > 0 ? period_us : INFINITY;
    nd->cmpki = cmpki >= 0.0 ? cmpki : -1.0;
    nd->counters_in = 1;
    return try_decide(hp);
}

/* ---- queries --------------------------------------------------------------
 */

uint64_t hcrt__hetprobe_epoch(const hcrt__hetprobe_t *hp)
{
    return hp->epoch;
}

int hcrt__hetprobe_finished(const hcrt__hetprobe_t *hp)
{
    return hp->completed == hp->trip;
}

int hcrt__hetprobe_ndecisions(const hcrt__hetprobe_t *hp)
{
    return hp->ndec;
}

const hcrt__hetprobe_decision_t *
hcrt__hetprobe_decision(const hcrt__hetprobe_t *hp, int i)
{
    return i >= 0 && i < hp->ndec ? &hp->dec[i] : NULL;
}

const hcrt__hetprobe_node_meas_t *
hcrt__hetprobe_observation(const hcrt__hetprobe_t *hp, int *probed)
{
    hcrt__hetprobe_t *w = (hcrt__hetprobe_t *)hp; /* fills the cache slot */
    if (probed != NULL)
        *probed = hp->obs_probed;
    if (hp->obs_probed)
        return hp->obs;
    int any = 0;
    for (int k = 0; k < hp->nnodes; k++) {
        const hcrt__hetprobe_node_t *nd = &hp->node[k];
        memset(&w->obs[k], 0, sizeof(w->obs[k]));
        w->obs[k].cmpki = -1.0;
        w->obs[k].iters = nd->run_iters;
        if (nd->run_iters > 0) {
            double t = nd->run_time > 1e-9 ? nd->run_time : 1e-9;
            w->obs[k].speed = (double)nd->run_iters / t;
            any = 1;
        }
    }
    return any ? hp->obs : NULL;
}
