/*
 * task_place.c - the decisions of task sharing between nodes (see
 * task_place.h): which tasks may leave their node, which TASKS regions run
 * on every node.
 */
#include "sched/task_place.h"

#define MEAN_WINDOW 64.0 /* samples before the mean halves its weight */
#define EWMA_ALPHA 0.25  /* call times of a region */
#define SLOWER                                                                 \
    1.05                 /* a spread call this much slower than the head's     \
                            calls did not pay */
#define MAX_HOLD_SHIFT 6 /* hold grows to refresh x 64 on repeated misses */

void hcrt__tp_params_default(hcrt_tp_params_t *p)
{
    p->factor = 4.0;
    p->cost_ns = 50e3;
    p->min_share = 0.05;
    p->min_samples = 8;
    p->depth_samples = 4;
    p->sample_every = 64;
    p->refresh = 32;
    p->head_first = 0;
}

void hcrt__tp_mean_add(hcrt_tp_mean_t *m, double v)
{
    pthread_mutex_lock(&m->lock);
    if (m->n >= 2 * MEAN_WINDOW) { /* decay: recent samples weigh most */
        m->n *= 0.5;
        m->sum *= 0.5;
    }
    m->n += 1;
    m->sum += v;
    double mean = m->sum / m->n;
    __atomic_store(&m->mean, &mean, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&m->lock);
}

double hcrt__tp_mean(hcrt_tp_mean_t *m, double dflt)
{
    double r;
    __atomic_load(&m->mean, &r, __ATOMIC_ACQUIRE);
    return r != 0 ? r : dflt;
}

double hcrt__tp_mean_weight(hcrt_tp_mean_t *m)
{
    pthread_mutex_lock(&m->lock);
    double n = m->n;
    pthread_mutex_unlock(&m->lock);
    return n;
}

void hcrt__tp_site_init(hcrt_tp_site_t *s)
{
    *s = (hcrt_tp_site_t){.ns = HCRT_TP_MEAN_INIT};
    for (int d = 0; d < HCRT_TP_DEPTHS; d++)
        s->at[d] = (hcrt_tp_mean_t)HCRT_TP_MEAN_INIT;
}

static uint32_t depth_slot(uint32_t depth)
{
    if (depth == 0)
        depth = 1;
    return depth < HCRT_TP_DEPTHS ? depth : HCRT_TP_DEPTHS - 1;
}

static int depth_known(hcrt_tp_site_t *s, uint32_t d, const hcrt_tp_params_t *p)
{
    return __atomic_load_n(&s->timed_at[d], __ATOMIC_RELAXED) >=
           p->depth_samples;
}

double hcrt__tp_site_estimate(hcrt_tp_site_t *s, uint32_t depth,
                              const hcrt_tp_params_t *p)
{
    for (uint32_t d = depth_slot(depth); d < HCRT_TP_DEPTHS; d++)
        if (depth_known(s, d, p))
            return hcrt__tp_mean(&s->at[d], 0);
    return 0;
}

hcrt_tp_mode_t hcrt__tp_site_mode(hcrt_tp_site_t *s, uint32_t depth,
                                  double steal_ns, const hcrt_tp_params_t *p)
{
    uint64_t timed = __atomic_load_n(&s->timed, __ATOMIC_RELAXED);

    if (timed < p->min_samples) /* unknown yet: let it travel, and time it */
        return HCRT_TP_EXPORT;
    if (hcrt__tp_site_estimate(s, depth, p) >= p->factor * steal_ns)
        return HCRT_TP_EXPORT;
    if (!depth_known(s, depth_slot(depth), p)) /* stays home until its depth
                                                  is known, unless it was
                                                  worth a steal where the
                                                  task above it came from */
        return depth_slot(depth) <= __atomic_load_n(&s->hint, __ATOMIC_RELAXED)
                   ? HCRT_TP_EXPORT
                   : HCRT_TP_TIMED;
    /* no read-modify-write per task: threads sharing a site may lose a
     * tick, which only moves the sampling */
    uint32_t t = __atomic_load_n(&s->tick, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&s->tick, t, __ATOMIC_RELAXED);
    return p->sample_every && t % p->sample_every == 0 ? HCRT_TP_TIMED
                                                       : HCRT_TP_PLAIN;
}

uint32_t hcrt__tp_site_worth_depth(hcrt_tp_site_t *s, double steal_ns,
                                   const hcrt_tp_params_t *p)
{
    double nearest = 0; /* hcrt__tp_site_estimate's, from the deepest up */

    if (__atomic_load_n(&s->timed, __ATOMIC_RELAXED) < p->min_samples)
        return 0;
    for (uint32_t d = HCRT_TP_DEPTHS - 1; d >= 1; d--) {
        if (depth_known(s, d, p))
            nearest = hcrt__tp_mean(&s->at[d], 0);
        if (nearest >= p->factor * steal_ns)
            return d;
    }
    return 0;
}

uint32_t hcrt__tp_site_plain_from(hcrt_tp_site_t *s, double steal_ns,
                                  const hcrt_tp_params_t *p)
{
    uint32_t from = 0;

    if (__atomic_load_n(&s->timed, __ATOMIC_RELAXED) < p->min_samples)
        return 0;
    for (uint32_t d = HCRT_TP_DEPTHS - 1; d >= 1; d--) {
        if (!depth_known(s, d, p) ||
            hcrt__tp_mean(&s->at[d], 0) >= p->factor * steal_ns)
            break;
        from = d;
    }
    return from; /* known depths: the hint does not apply */
}

void hcrt__tp_site_hint(hcrt_tp_site_t *s, uint32_t depth)
{
    uint32_t h = __atomic_load_n(&s->hint, __ATOMIC_RELAXED);
    if (depth == 0)
        return;
    depth = depth_slot(depth);
    while (h < depth &&
           !__atomic_compare_exchange_n(&s->hint, &h, depth, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

void hcrt__tp_site_time(hcrt_tp_site_t *s, uint32_t depth, uint64_t ns)
{
    uint32_t d = depth_slot(depth);

    hcrt__tp_mean_add(&s->ns, (double)ns);
    hcrt__tp_mean_add(&s->at[d], (double)ns);
    __atomic_add_fetch(&s->timed_at[d], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&s->timed, 1, __ATOMIC_RELAXED);
}

int hcrt__tp_region_spread(hcrt_tp_region_t *r, const hcrt_tp_params_t *p)
{
    if (r->calls == 0) {
        if (!p->head_first)
            return 1;         /* the first call tries */
        r->hold = p->refresh; /* one try after as many calls on the head */
        return 0;
    }
    if (r->hold > 0) {
        r->hold--;
        return 0;
    }
    return 1;
}

static void ewma(double *avg, double v)
{
    *avg = *avg > 0 ? *avg + EWMA_ALPHA * (v - *avg) : v;
}

int hcrt__tp_region_end(hcrt_tp_region_t *r, int spread, uint64_t wall_ns,
                        uint64_t remote_ns, const hcrt_tp_params_t *p)
{
    r->calls++;
    r->last_spread = spread;
    if (!spread) {
        ewma(&r->head_ns, (double)wall_ns);
        return 0;
    }
    r->spread_calls++;
    ewma(&r->spread_ns, (double)wall_ns);
    int pays = (double)remote_ns >= p->min_share * (double)wall_ns &&
               !(r->head_ns > 0 && (double)wall_ns > SLOWER * r->head_ns);
    if (pays) {
        r->misses = 0;
        return 0;
    }
    uint32_t shift = r->misses < MAX_HOLD_SHIFT ? r->misses : MAX_HOLD_SHIFT;
    r->misses++;
    r->hold = p->refresh << shift;
    return 1;
}
