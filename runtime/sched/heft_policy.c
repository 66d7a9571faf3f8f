/*
 * heft_policy.c - the baseline placements HEFT is measured against
 * (round-robin and locality-greedy), the policy table, and the schedule
 * checker used by tests and the simulator.
 *
 * Both baselines take tasks in creation order (lowest ready id first) and
 * append each after the last task of its node: no insertion, no look-ahead.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sched/sched_int.h"

typedef struct base_state {
    double *avail; /* [P] when each node becomes free */
    int next;      /* round-robin cursor */
    double *local; /* [P] input bytes already on each node (locality) */
} base_state_t;

static double append_start(const hcrt__heft_ctx_t *c, base_state_t *bs, int p)
{
    return c->drt[p] > bs->avail[p] ? c->drt[p] : bs->avail[p];
}

static int commit(const hcrt__heft_ctx_t *c, base_state_t *bs, int32_t t, int p,
                  double *start)
{
    *start = append_start(c, bs, p);
    bs->avail[p] = *start + hcrt__heft_exec(c, t, p);
    return p;
}

static int rr_place(hcrt__heft_ctx_t *c, int32_t t, hcrt__heft_schedule_t *s,
                    void *state, double *start)
{
    base_state_t *bs = state;
    int pin = c->g->tasks[t].pin;
    (void)s;
    if (pin >= 0) /* pinned tasks do not take a turn */
        return commit(c, bs, t, pin, start);
    int p = bs->next;
    bs->next = (bs->next + 1) % c->P;
    return commit(c, bs, t, p, start);
}

/* Bytes of t's inputs already on each touched node: predecessors' outputs
 * (an edge without bytes weighs its fixed transfer time) and initial data
 * at its holders. */
static void local_bytes(const hcrt__heft_ctx_t *c, int32_t t,
                        const int32_t *node, double *local)
{
    for (int32_t i = 0; i < c->ntouched; i++)
        local[c->touched[i]] = 0.0;
    for (int64_t k = c->pred_off[t]; k < c->pred_off[t + 1]; k++) {
        const hcrt__tg_edge_t *e = &c->g->edges[c->pred[k]];
        double w = e->bytes ? (double)e->bytes : (e->cost > 0 ? e->cost : 0);
        local[node[e->from]] += w;
    }
    for (int64_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
        const hcrt__tg_data_t *d = &c->g->data[c->in_data[k]];
        for (int32_t h = 0; h < d->nhold; h++)
            local[c->g->holders[d->hold_off + h]] += (double)d->bytes;
    }
}

static int locality_place(hcrt__heft_ctx_t *c, int32_t t,
                          hcrt__heft_schedule_t *s, void *state, double *start)
{
    base_state_t *bs = state;
    int pin = c->g->tasks[t].pin, best = -1;
    if (pin >= 0)
        return commit(c, bs, t, pin, start);
    local_bytes(c, t, s->node, bs->local);
    for (int32_t i = 0; i < c->ntouched; i++) {
        int p = c->touched[i];
        if (bs->local[p] <= 0.0)
            continue;
        if (best < 0 || bs->local[p] > bs->local[best] ||
            (bs->local[p] == bs->local[best] &&
             (bs->avail[p] < bs->avail[best] ||
              (bs->avail[p] == bs->avail[best] && p < best))))
            best = p;
    }
    if (best < 0) /* nothing local anywhere: the node free first */
        for (int p = 0; p < c->P; p++)
            if (best < 0 || bs->avail[p] < bs->avail[best])
                best = p;
    return commit(c, bs, t, best, start);
}

static hcrt_status_t base_schedule(const hcrt__taskgraph_t *g,
                                   const hcrt__heft_cost_t *cm,
                                   hcrt__heft_schedule_t *out,
                                   hcrt__heft_place_fn place)
{
    hcrt__heft_ctx_t c;
    hcrt_status_t st = hcrt__heft_ctx_init(&c, g, cm);
    if (st != HCRT_OK)
        return st;
    base_state_t bs = {calloc(c.P, sizeof(double)), 0,
                       calloc(c.P, sizeof(double))};
    double *key = malloc(sizeof(double) * (c.n ? c.n : 1));
    st = HCRT_ERR_NOMEM;
    if (bs.avail != NULL && bs.local != NULL && key != NULL) {
        for (int32_t i = 0; i < c.n; i++)
            key[i] = -(double)i; /* creation order */
        free(out->rank);
        out->rank = NULL;
        st = hcrt__heft_list_schedule(&c, key, place, &bs, out);
    }
    free(key);
    free(bs.avail);
    free(bs.local);
    hcrt__heft_ctx_fini(&c);
    return st;
}

static hcrt_status_t rr_schedule(const hcrt__taskgraph_t *g,
                                 const hcrt__heft_cost_t *cm,
                                 hcrt__heft_schedule_t *out)
{
    return base_schedule(g, cm, out, rr_place);
}

static hcrt_status_t locality_schedule(const hcrt__taskgraph_t *g,
                                       const hcrt__heft_cost_t *cm,
                                       hcrt__heft_schedule_t *out)
{
    return base_schedule(g, cm, out, locality_place);
}

const hcrt_sched_policy_ops_t hcrt__heft_policy_rr = {
    .name = "rr",
    .help = "round-robin over the nodes in task creation order",
    .schedule = rr_schedule,
};

const hcrt_sched_policy_ops_t hcrt__heft_policy_locality = {
    .name = "locality",
    .help = "where most input bytes already are; ties to the node free first",
    .schedule = locality_schedule,
};

static const hcrt_sched_policy_ops_t *const policies[] = {
    [HCRT_SCHED_TASK_HEFT] = &hcrt__heft_policy_heft,
    [HCRT_SCHED_TASK_RR] = &hcrt__heft_policy_rr,
    [HCRT_SCHED_TASK_LOCALITY] = &hcrt__heft_policy_locality,
};

const hcrt_sched_policy_ops_t *hcrt__heft_policy(hcrt__heft_policy_id_t id)
{
    if ((int)id < 0 || id >= HCRT_SCHED_TASK_NPOLICIES)
        return NULL;
    return policies[id];
}

const hcrt_sched_policy_ops_t *hcrt__heft_policy_find(const char *name)
{
    for (int i = 0; name != NULL && i < HCRT_SCHED_TASK_NPOLICIES; i++)
        if (strcmp(policies[i]->name, name) == 0)
            return policies[i];
    return NULL;
}
