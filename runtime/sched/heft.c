/*
 * heft.c - Heterogeneous Earliest Finish Time (Topcuoglu, Hariri and Wu,
 * IEEE TPDS 13(3), 2002), the default task placement of the runtime.
 *
 * Phase 1 ranks every task by its upward rank, the length of the critical
 * path from it to an exit task with mean run and transfer times. Phase 2
 * takes tasks by decreasing rank and puts each where it finishes earliest,
 * allowing it into an idle gap between tasks already placed on a node
 * ("insertion-based" policy of the paper) when its inputs are ready in time.
 */
#include <string.h>

#include "sched/sched_int.h"

hcrt_status_t hcrt__heft_schedule_init(hcrt__heft_schedule_t *s, int32_t ntasks)
{
    size_t n = ntasks > 0 ? (size_t)ntasks : 1;
    memset(s, 0, sizeof(*s));
    s->node = malloc(sizeof(int32_t) * n);
    s->start = malloc(sizeof(double) * n);
    s->finish = malloc(sizeof(double) * n);
    if (s->node == NULL || s->start == NULL || s->finish == NULL) {
        hcrt__heft_schedule_fini(s);
        return HCRT_ERR_NOMEM;
    }
    s->ntasks = ntasks;
    return HCRT_OK;
}

void hcrt__heft_schedule_fini(hcrt__heft_schedule_t *s)
{
    free(s->node);
    free(s->start);
    free(s->finish);
    free(s->rank);
    memset(s, 0, sizeof(*s));
}

/* Upward ranks in reverse topological order: each successor is final
 * before its predecessors are computed. */
static void upward_ranks(const hcrt__heft_ctx_t *c, double *rank)
{
    for (int32_t i = c->n - 1; i >= 0; i--) {
        int32_t t = c->topo[i];
        double best = 0.0;
        for (int64_t k = c->succ_off[t]; k < c->succ_off[t + 1]; k++) {
            int64_t e = c->succ[k];
            double v =
                hcrt__heft_edge_mean_comm(c, e) + rank[c->g->edges[e].to];
            best = v > best ? v : best;
        }
        rank[t] = hcrt__heft_mean_exec(c, t) + best;
    }
}

hcrt_status_t hcrt__heft_upward_ranks(const hcrt__taskgraph_t *g,
                                      const hcrt__heft_cost_t *cm,
                                      double *ranks)
{
    hcrt__heft_ctx_t c;
    hcrt_status_t st = hcrt__heft_ctx_init(&c, g, cm);
    if (st != HCRT_OK)
        return st;
    upward_ranks(&c, ranks);
    hcrt__heft_ctx_fini(&c);
    return HCRT_OK;
}

/* ---- idle time per node -------------------------------------------- */

/* A node's timeline as its idle gaps before the last busy moment (sorted,
 * disjoint, non-empty) plus that moment. Keeping the gaps rather than the
 * busy intervals makes the insertion search skip tightly packed stretches:
 * on 10^5 tasks over 1024 nodes that is the difference between seconds and
 * minutes. */
typedef struct gap {
    double a, b;
} gap_t;

typedef struct node_time {
    gap_t *gap;
    int64_t len, cap;
    double tail; /* end of the last task placed on the node */
} node_time_t;

/* Earliest start >= ready of a run of length w on this node: the first gap
 * that fits (insertion-based policy), else after the last task. Sets *at to
 * the gap used, or -1. Gaps are sorted and disjoint, so their ends are
 * sorted too and a binary search skips every gap closing before `ready`. */
static double earliest_start(const node_time_t *nt, double ready, double w,
                             int64_t *at)
{
    int64_t lo = 0, hi = nt->len;
    *at = -1;
    if (ready >= nt->tail)
        return ready;
    while (lo < hi) { /* first gap with b > ready */
        int64_t mid = lo + (hi - lo) / 2;
        if (nt->gap[mid].b > ready)
            hi = mid;
        else
            lo = mid + 1;
    }
    for (int64_t i = lo; i < nt->len; i++) {
        double s = nt->gap[i].a > ready ? nt->gap[i].a : ready;
        if (s + w <= nt->gap[i].b) {
            *at = i;
            return s;
        }
    }
    return nt->tail;
}

/* Removes [s, f) from gap `at` (or appends after the tail when at < 0),
 * keeping only non-empty gaps. */
static hcrt_status_t occupy(node_time_t *nt, int64_t at, double s, double f)
{
    hcrt_status_t st = hcrt__sched_grow((void **)&nt->gap, &nt->cap,
                                        nt->len + 1, sizeof(gap_t));
    if (st != HCRT_OK)
        return st;
    if (at < 0) {
        if (s > nt->tail)
            nt->gap[nt->len++] = (gap_t){nt->tail, s};
        nt->tail = f;
        return HCRT_OK;
    }
    gap_t g = nt->gap[at];
    int keep_left = s > g.a, keep_right = g.b > f;
    if (keep_left && keep_right) { /* split in two */
        memmove(nt->gap + at + 1, nt->gap + at, sizeof(gap_t) * (nt->len - at));
        nt->len++;
        nt->gap[at] = (gap_t){g.a, s};
        nt->gap[at + 1] = (gap_t){f, g.b};
    } else if (keep_left || keep_right) {
        nt->gap[at] = keep_left ? (gap_t){g.a, s} : (gap_t){f, g.b};
    } else { /* filled exactly */
        memmove(nt->gap + at, nt->gap + at + 1,
                sizeof(gap_t) * (nt->len - at - 1));
        nt->len--;
    }
    return HCRT_OK;
}

typedef struct heft_state {
    node_time_t *nodes; /* [P] */
    hcrt_status_t st;   /* first allocation failure while placing */
} heft_state_t;

/* Phase 2 for one task: the node with the earliest finish (ties: lowest
 * node number, as in the paper's worked example). */
static int heft_place(hcrt__heft_ctx_t *c, int32_t t, hcrt__heft_schedule_t *s,
                      void *state, double *start)
{
    heft_state_t *hs = state;
    int pin = c->g->tasks[t].pin, best = -1;
    int lo = pin >= 0 ? pin : 0, hi = pin >= 0 ? pin + 1 : c->P;
    double best_eft = 0.0, best_est = 0.0;
    int64_t best_at = 0;
    double scale;
    const double *row = hcrt__heft_exec_row(c, t, &scale);
    (void)s;
    for (int p = lo; p < hi; p++) {
        int64_t at;
        double w = row[p] * scale;
        double est = earliest_start(&hs->nodes[p], c->drt[p], w, &at);
        if (best < 0 || est + w < best_eft) {
            best = p;
            best_eft = est + w;
            best_est = est;
            best_at = at;
        }
    }
    hcrt_status_t st = occupy(&hs->nodes[best], best_at, best_est, best_eft);
    if (st != HCRT_OK && hs->st == HCRT_OK)
        hs->st = st;
    *start = best_est;
    return best;
}

static hcrt_status_t heft_schedule(const hcrt__taskgraph_t *g,
                                   const hcrt__heft_cost_t *cm,
                                   hcrt__heft_schedule_t *out)
{
    hcrt__heft_ctx_t c;
    hcrt_status_t st = hcrt__heft_ctx_init(&c, g, cm);
    if (st != HCRT_OK)
        return st;
    heft_state_t hs = {calloc(c.P, sizeof(node_time_t)), HCRT_OK};
    free(out->rank);
    out->rank = malloc(sizeof(double) * (c.n ? c.n : 1));
    if (hs.nodes == NULL || out->rank == NULL) {
        st = HCRT_ERR_NOMEM;
        goto out;
    }
    for (int p = 0; p < c.P; p++) /* earlier work: no gap before it */
        hs.nodes[p].tail = g->busy[p];
    upward_ranks(&c, out->rank);
    st = hcrt__heft_list_schedule(&c, out->rank, heft_place, &hs, out);
    if (st == HCRT_OK)
        st = hs.st;
out:
    for (int p = 0; hs.nodes != NULL && p < c.P; p++)
        free(hs.nodes[p].gap);
    free(hs.nodes);
    hcrt__heft_ctx_fini(&c);
    return st;
}

const hcrt_sched_policy_ops_t hcrt__heft_policy_heft = {
    .name = "heft",
    .help = "upward rank + insertion-based earliest finish time "
            "(Topcuoglu et al. 2002)",
    .schedule = heft_schedule,
};
