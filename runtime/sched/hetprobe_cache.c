/*
 * hetprobe_cache.c - the probe cache: per loop id, EWMA-smoothed per-thread
 * speeds, fault rates and cache-miss rates of every node, and whether the
 * loop is stable enough to skip its probe (seed libHetMP §3.2.1).
 *
 * Fault *rates* (1 / period) are smoothed rather than periods, so that a run
 * without faults (infinite period) averages sensibly. A measurement outside
 * the drift band restarts the averages and the count of consistent runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/hetprobe_int.h"

typedef struct entry {
    uint64_t key;
    int nnodes;
    double *speed; /* [nnodes] per-thread it/s, 0: never measured */
    double *rate;  /* [nnodes] faults per us, < 0: never measured */
    double *cmpki; /* [nnodes] < 0: unknown */
    double *prior; /* [nnodes] scratch handed out by lookup */
    double *share; /* [nnodes] share of time in faults, 0: unknown */
    /* [nnodes] probed runs in a row in which the node crawled while it
     * faulted, and runs since it last measured anything */
    uint32_t *crawl, *idle;
    uint32_t *dec_thr; /* [nnodes] the threads `dec` was made for */
    int dec_ok;        /* dec holds the smoothed values' decision */
    hcrt__hetprobe_decision_t
        dec;        /* the cached decision handed out by lookup */
    double work_us; /* last run's work at the cluster's rate, 0: unknown */
    int irregular;  /* rates across the last call's windows: -1 unknown */
    double run_it, run_s; /* this node's last run phase (set_run) */
    uint64_t runs, probes, drifts, since_probe;
    int consistent, stable, has_rates;
} entry_t;

struct hcrt__probecache {
    hcrt__probecache_params_t p;
    hcrt__hetprobe_params_t hp;
    entry_t **slot; /* open addressing, NULL: empty */
    size_t cap, count;
};

void hcrt__probecache_params_default(hcrt__probecache_params_t *p)
{
    p->alpha = 0.5;
    p->stable_runs = 3;
    p->drift = 0.25;
    p->refresh_runs = 0;
}

hcrt_status_t hcrt__probecache_create(const hcrt__probecache_params_t *p,
                                      const hcrt__hetprobe_params_t *hp,
                                      hcrt__probecache_t **out)
{
    if (p == NULL || hp == NULL || out == NULL || !(p->alpha > 0.0) ||
        p->alpha > 1.0 || p->stable_runs < 0 || !(p->drift > 0.0) ||
        p->refresh_runs < 0 || hcrt__hetprobe_params_check(hp, NULL, 0) != 0)
        return HCRT_ERR_INVALID;
    hcrt__probecache_t *pc = calloc(1, sizeof(*pc));
    if (pc == NULL)
        return HCRT_ERR_NOMEM;
    pc->p = *p;
    pc->hp = *hp;
    pc->cap = 16;
    pc->slot = calloc(pc->cap, sizeof(*pc->slot));
    if (pc->slot == NULL) {
        free(pc);
        return HCRT_ERR_NOMEM;
    }
    *out = pc;
    return HCRT_OK;
}

static void entry_free(entry_t *e)
{
    if (e == NULL)
        return;
    free(e->speed); /* one block for the five arrays */
    free(e->crawl); /* and one for the two counts and dec_thr */
    hcrt__hetprobe_decision_free(&e->dec);
    free(e);
}

void hcrt__probecache_destroy(hcrt__probecache_t *pc)
{
    if (pc == NULL)
        return;
    for (size_t i = 0; i < pc->cap; i++)
        entry_free(pc->slot[i]);
    free(pc->slot);
    free(pc);
}

static size_t hash(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static entry_t **find(const hcrt__probecache_t *pc, uint64_t key)
{
    size_t i = hash(key) & (pc->cap - 1);
    while (pc->slot[i] != NULL && pc->slot[i]->key != key)
        i = (i + 1) & (pc->cap - 1);
    return &pc->slot[i];
}

static hcrt_status_t grow(hcrt__probecache_t *pc)
{
    entry_t **old = pc->slot;
    size_t oldcap = pc->cap;
    pc->slot = calloc(2 * oldcap, sizeof(*pc->slot));
    if (pc->slot == NULL) {
        pc->slot = old;
        return HCRT_ERR_NOMEM;
    }
    pc->cap = 2 * oldcap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] != NULL)
            *find(pc, old[i]->key) = old[i];
    free(old);
    return HCRT_OK;
}

/* (Re)initialises `e` for nnodes nodes: a loop seen with another node
 * count starts over. */
static hcrt_status_t entry_reset(entry_t *e, uint64_t key, int nnodes)
{
    free(e->speed);
    free(e->crawl);
    hcrt__hetprobe_decision_free(&e->dec);
    memset(e, 0, sizeof(*e));
    e->key = key;
    e->nnodes = nnodes;
    e->irregular = -1;
    e->speed = calloc(5 * (size_t)nnodes, sizeof(double));
    e->crawl = calloc(3 * (size_t)nnodes, sizeof(uint32_t));
    if (e->speed == NULL || e->crawl == NULL)
        return HCRT_ERR_NOMEM;
    e->idle = e->crawl + nnodes;
    e->dec_thr = e->idle + nnodes;
    e->rate = e->speed + nnodes;
    e->cmpki = e->rate + nnodes;
    e->prior = e->cmpki + nnodes;
    e->share = e->prior + nnodes;
    for (int k = 0; k < nnodes; k++)
        e->cmpki[k] = e->rate[k] = -1.0;
    return hcrt__hetprobe_decision_alloc(&e->dec, nnodes, 0);
}

static hcrt_status_t get(hcrt__probecache_t *pc, uint64_t key, int nnodes,
                         entry_t **out)
{
    if (2 * (pc->count + 1) > pc->cap && grow(pc) != HCRT_OK)
        return HCRT_ERR_NOMEM;
    entry_t **s = find(pc, key);
    if (*s == NULL) {
        *s = calloc(1, sizeof(**s));
        if (*s == NULL)
            return HCRT_ERR_NOMEM;
        pc->count++;
    }
    if ((*s)->nnodes != nnodes && entry_reset(*s, key, nnodes) != HCRT_OK)
        return HCRT_ERR_NOMEM;
    *out = *s;
    return HCRT_OK;
}

static double ewma(double old, double x, double alpha)
{
    return old + alpha * (x - old);
}

static int outside(double old, double x, double band)
{
    return old > 0.0 && fabs(x - old) > band * old;
}

static double rate_of(const hcrt__hetprobe_node_meas_t *m)
{
    if (m->faults == 0)
        return 0.0;
    return m->period_us > 0.0 ? 1.0 / m->period_us : INFINITY;
}

/* The fastest speed measured in a run (nodes that ran something). */
static double fastest_of(const hcrt__hetprobe_node_meas_t *m, int nnodes)
{
    double f = 0.0;
    for (int k = 0; k < nnodes; k++)
        if (m[k].iters > 0 && m[k].speed > f)
            f = m[k].speed;
    return f;
}

/* Drift: a measured speed outside the band around its average, or (probed
 * runs) a node whose fault period moved to the other side of the
 * threshold, which would change the decision. A node that ran nothing
 * measured nothing (its probe share was empty, e.g. because the cached
 * speed said one iteration would outlast the others' whole probe). */
static int drifted(const hcrt__probecache_t *pc, const entry_t *e,
                   const hcrt__hetprobe_node_meas_t *m, int probed,
                   double new_max)
{
    double thr_rate = 1.0 / pc->hp.threshold_us, old_max = 0;
    for (int k = 0; k < e->nnodes; k++)
        old_max = e->speed[k] > old_max ? e->speed[k] : old_max;
    for (int k = 0; k < e->nnodes; k++) {
        /* A node crawling (below the floor of the decision rule) before
         * and now contributes nothing either way: the noise of its tiny
         * probe slices is not drift. */
        double fl = pc->hp.faulting_floor;
        int crawl = e->speed[k] < fl * old_max && m[k].speed < fl * new_max;
        if (m[k].iters > 0 && !crawl &&
            outside(e->speed[k], m[k].speed, pc->p.drift))
            return 1;
        if (probed && e->rate[k] >= 0.0 && m[k].iters > 0 &&
            (rate_of(&m[k]) > thr_rate) != (e->rate[k] > thr_rate))
            return 1;
    }
    return 0;
}

hcrt_status_t hcrt__probecache_update(hcrt__probecache_t *pc, uint64_t loop,
                                      int nnodes,
                                      const hcrt__hetprobe_node_meas_t *m,
                                      int probed)
{
    entry_t *e;
    if (pc == NULL || m == NULL || nnodes < 1)
        return HCRT_ERR_INVALID;
    hcrt_status_t rc = get(pc, loop, nnodes, &e);
    if (rc != HCRT_OK)
        return rc;
    double fastest = fastest_of(m, nnodes);
    int first = e->runs == 0,
        drift = !first && drifted(pc, e, m, probed, fastest);
    /* After a drift the old average describes a loop that is gone:
     * restart it from this measurement. */
    double a = drift ? 1.0 : pc->p.alpha;
    for (int k = 0; k < nnodes; k++) {
        if (m[k].iters > 0 && m[k].speed > 0.0 && isfinite(m[k].speed))
            e->speed[k] = e->speed[k] > 0.0 ? ewma(e->speed[k], m[k].speed, a)
                                            : m[k].speed;
        if (probed && m[k].iters > 0) /* else its fault rate stands */
            e->rate[k] = e->rate[k] >= 0.0 ? ewma(e->rate[k], rate_of(&m[k]), a)
                                           : rate_of(&m[k]);
        if (m[k].cmpki >= 0.0)
            e->cmpki[k] = e->cmpki[k] >= 0.0 ? ewma(e->cmpki[k], m[k].cmpki, a)
                                             : m[k].cmpki;
        if (probed && m[k].iters > 0 && m[k].faults > 0 &&
            m[k].fault_share > 0.0)
            e->share[k] = e->share[k] > 0.0
                              ? ewma(e->share[k], m[k].fault_share, a)
                              : m[k].fault_share;
    }
    for (int k = 0; k < nnodes && probed; k++) {
        if (m[k].iters == 0) {
            e->idle[k]++;
            continue;
        }
        int crawl =
            hcrt__hetprobe_crawls(&m[k], fastest, pc->hp.faulting_floor);
        e->crawl[k] = crawl ? e->crawl[k] + 1 : 0;
        e->idle[k] = 0;
    }
    e->has_rates |= probed;
    e->dec_ok = 0;
    e->runs++;
    e->probes += probed != 0;
    e->since_probe = probed ? 0 : e->since_probe + 1;
    e->consistent = drift ? 0 : e->consistent + 1;
    e->drifts += drift;
    e->stable = pc->p.stable_runs > 0 && e->has_rates &&
                e->consistent >= pc->p.stable_runs;
    return HCRT_OK;
}

/* The decision the smoothed values call for, as hcrt__hetprobe_decide makes it.
 */
static hcrt_status_t cached_decision(const hcrt__probecache_t *pc, entry_t *e,
                                     const int *threads)
{
    int same = e->dec_ok;
    for (int k = 0; same && k < e->nnodes; k++)
        same = e->dec_thr[k] == (uint32_t)threads[k];
    if (same) /* called for every run of a stable loop: made once */
        return HCRT_OK;
    hcrt__hetprobe_node_meas_t *m = calloc((size_t)e->nnodes, sizeof(*m));
    if (m == NULL)
        return HCRT_ERR_NOMEM;
    for (int k = 0; k < e->nnodes; k++) {
        m[k].speed = e->speed[k];
        m[k].iters = e->speed[k] > 0.0;
        m[k].faults = e->rate[k] > 0.0;
        m[k].period_us = e->rate[k] > 0.0 ? 1.0 / e->rate[k] : INFINITY;
        m[k].cmpki = e->cmpki[k];
        m[k].fault_share = e->share[k];
    }
    hcrt__hetprobe_decide(&pc->hp, e->nnodes, threads, m, &e->dec);
    e->dec.why = HCRT_HP_WHY_CACHED;
    for (int k = 0; k < e->nnodes; k++)
        e->dec_thr[k] = (uint32_t)threads[k];
    e->dec_ok = 1;
    free(m);
    return HCRT_OK;
}

hcrt_status_t hcrt__probecache_lookup(hcrt__probecache_t *pc, uint64_t loop,
                                      int nnodes, const int *threads,
                                      const hcrt__hetprobe_decision_t **reuse,
                                      const double **prior)
{
    if (pc == NULL || threads == NULL || reuse == NULL || nnodes < 1)
        return HCRT_ERR_INVALID;
    *reuse = NULL;
    if (prior != NULL)
        *prior = NULL;
    entry_t *e = *find(pc, loop);
    if (e == NULL || e->nnodes != nnodes || e->runs == 0)
        return HCRT_OK;
    double fastest = 0.0;
    int all = 1;
    for (int k = 0; k < nnodes; k++) {
        fastest = e->speed[k] > fastest ? e->speed[k] : fastest;
        all &= e->speed[k] > 0.0;
    }
    for (int k = 0; k < nnodes; k++)
        e->prior[k] = all ? e->speed[k] / fastest : 1.0;
    if (prior != NULL && all)
        *prior = e->prior;
    if (!e->stable || (pc->p.refresh_runs > 0 &&
                       e->since_probe >= (uint64_t)pc->p.refresh_runs))
        return HCRT_OK;
    hcrt_status_t rc = cached_decision(pc, e, threads);
    if (rc == HCRT_OK)
        *reuse = &e->dec;
    return rc;
}

int hcrt__probecache_rests(const hcrt__probecache_t *pc, uint64_t loop,
                           int nnodes, int node)
{
    const entry_t *e = pc ? *find(pc, loop) : NULL;
    if (e == NULL || e->nnodes != nnodes || node < 0 || node >= nnodes ||
        e->crawl[node] == 0)
        return 0;
    uint32_t c = e->crawl[node] < HCRT_HP_REST_MAX_LOG2 ? e->crawl[node]
                                                        : HCRT_HP_REST_MAX_LOG2;
    return e->idle[node] + 1 < (UINT32_C(1) << c);
}

hcrt_status_t hcrt__probecache_info(const hcrt__probecache_t *pc, uint64_t loop,
                                    hcrt__probecache_info_t *out)
{
    const entry_t *e = pc ? *find(pc, loop) : NULL;
    if (e == NULL || out == NULL)
        return HCRT_ERR_NOT_FOUND;
    double maxrate = 0.0;
    for (int k = 0; k < e->nnodes; k++)
        maxrate = e->rate[k] > maxrate ? e->rate[k] : maxrate;
    out->runs = e->runs;
    out->probes = e->probes;
    out->drifts = e->drifts;
    out->consistent = e->consistent;
    out->stable = e->stable;
    out->period_us = maxrate > 0.0 ? 1.0 / maxrate : INFINITY;
    return HCRT_OK;
}

hcrt_status_t hcrt__probecache_set_work(hcrt__probecache_t *pc, uint64_t loop,
                                        int nnodes, double us)
{
    entry_t *e;
    if (pc == NULL || nnodes < 1 || !(us >= 0.0) || isinf(us))
        return HCRT_ERR_INVALID;
    hcrt_status_t rc = get(pc, loop, nnodes, &e);
    if (rc == HCRT_OK)
        e->work_us = us;
    return rc;
}

double hcrt__probecache_work(const hcrt__probecache_t *pc, uint64_t loop,
                             int nnodes)
{
    const entry_t *e = pc ? *find(pc, loop) : NULL;
    return e != NULL && e->nnodes == nnodes ? e->work_us : 0.0;
}

hcrt_status_t hcrt__probecache_set_irregular(hcrt__probecache_t *pc,
                                             uint64_t loop, int nnodes,
                                             int irregular)
{
    entry_t *e;
    if (pc == NULL || nnodes < 1 || irregular < 0 || irregular > 1)
        return HCRT_ERR_INVALID;
    hcrt_status_t rc = get(pc, loop, nnodes, &e);
    if (rc == HCRT_OK)
        e->irregular = irregular;
    return rc;
}

int hcrt__probecache_irregular(const hcrt__probecache_t *pc, uint64_t loop,
                               int nnodes)
{
    const entry_t *e = pc ? *find(pc, loop) : NULL;
    return e != NULL && e->nnodes == nnodes ? e->irregular : -1;
}

const double *hcrt__probecache_speeds(const hcrt__probecache_t *pc,
                                      uint64_t loop)
{
    const entry_t *e = pc ? *find(pc, loop) : NULL;
    return e != NULL ? e->speed : NULL;
}

hcrt_status_t hcrt__probecache_set_run(hcrt__probecache_t *pc, uint64_t loop,
                                       int nnodes, double iters, double secs)
{
    entry_t *e;
    if (pc == NULL || nnodes < 1 || !(iters >= 0.0) || !(secs >= 0.0) ||
        isinf(iters) || isinf(secs))
        return HCRT_ERR_INVALID;
    hcrt_status_t rc = get(pc, loop, nnodes, &e);
    if (rc != HCRT_OK)
        return rc;
    int some = iters > 0.0 && secs > 0.0;
    e->run_it = some ? iters : 0.0;
    e->run_s = some ? secs : 0.0;
    return HCRT_OK;
}

void hcrt__probecache_basis(const hcrt__probecache_t *pc, uint64_t loop,
                            int nnodes, double *iters, double *secs)
{
    const entry_t *e = pc ? *find(pc, loop) : NULL;
    if (e == NULL || e->nnodes != nnodes || !(e->run_it > 0.0) ||
        !(*iters > 0.0) || !(*secs > 0.0))
        return;
    double ratio = (e->run_it / e->run_s) / (*iters / *secs);
    if (ratio > HCRT_HP_RUN_BAND || ratio < 1.0 / HCRT_HP_RUN_BAND)
        return; /* other iterations, another cost: the probe alone */
    double w = HCRT_HP_RUN_WEIGHT * *iters;
    w = w < e->run_it ? w : e->run_it;
    *secs += e->run_s * (w / e->run_it);
    *iters += w;
}
