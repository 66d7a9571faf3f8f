/*
 * heft_check.c - independent validation of a schedule: a policy bug shows
 * up as a violated constraint, not just as an odd makespan.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "sched/sched_int.h"

static int close_enough(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-9 * (scale > 1.0 ? scale : 1.0);
}

/* a >= b up to rounding */
static int geq(double a, double b)
{
    return a >= b || close_enough(a, b);
}

static hcrt_status_t fail(char *why, size_t len, const char *fmt, ...)
{
    if (why != NULL && len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return HCRT_ERR_INVALID;
}

typedef struct busy {
    int32_t node, task;
    double start, finish; /* zero-length tasks sort before a busy one */
} busy_t;

static int by_node_start(const void *a, const void *b)
{
    const busy_t *x = a, *y = b;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->finish != y->finish)
        return x->finish < y->finish ? -1 : 1;
    return (x->task > y->task) - (x->task < y->task);
}

static hcrt_status_t check_tasks(const hcrt__heft_ctx_t *c,
                                 const hcrt__heft_schedule_t *s, char *why,
                                 size_t len)
{
    double span = 0.0;
    for (int32_t t = 0; t < c->n; t++) {
        int p = s->node[t], pin = c->g->tasks[t].pin;
        if (p < 0 || p >= c->P)
            return fail(why, len, "task %d on node %d of %d", t, p, c->P);
        if (pin >= 0 && p != pin)
            return fail(why, len, "task %d pinned to %d placed on %d", t, pin,
                        p);
        if (!geq(s->start[t], 0.0) ||
            !close_enough(s->finish[t], s->start[t] + hcrt__heft_exec(c, t, p)))
            return fail(why, len, "task %d: start %g finish %g, run time %g", t,
                        s->start[t], s->finish[t], hcrt__heft_exec(c, t, p));
        for (int64_t k = c->pred_off[t]; k < c->pred_off[t + 1]; k++) {
            int64_t e = c->pred[k];
            int32_t u = c->g->edges[e].from;
            double ready =
                s->finish[u] + hcrt__heft_edge_comm(c, e, s->node[u], p);
            if (!geq(s->start[t], ready))
                return fail(why, len,
                            "task %d starts at %g before input from task %d "
                            "arrives at %g",
                            t, s->start[t], u, ready);
        }
        for (int64_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
            double ready = hcrt__heft_data_comm(c, c->in_data[k], p);
            if (!geq(s->start[t], ready))
                return fail(why, len,
                            "task %d starts at %g before data item %d "
                            "arrives at %g",
                            t, s->start[t], c->in_data[k], ready);
        }
        span = s->finish[t] > span ? s->finish[t] : span;
    }
    if (!close_enough(span, s->makespan))
        return fail(why, len, "makespan %g but the last task ends at %g",
                    s->makespan, span);
    return HCRT_OK;
}

static hcrt_status_t check_overlap(const hcrt__heft_ctx_t *c,
                                   const hcrt__heft_schedule_t *s, char *why,
                                   size_t len)
{
    busy_t *ord = malloc(sizeof(busy_t) * (c->n ? c->n : 1));
    if (ord == NULL)
        return HCRT_ERR_NOMEM;
    for (int32_t i = 0; i < c->n; i++)
        ord[i] = (busy_t){s->node[i], i, s->start[i], s->finish[i]};
    qsort(ord, c->n, sizeof(busy_t), by_node_start);
    hcrt_status_t st = HCRT_OK;
    for (int32_t i = 1; i < c->n && st == HCRT_OK; i++) {
        int32_t a = ord[i - 1].task, b = ord[i].task;
        if (s->node[a] == s->node[b] && !geq(s->start[b], s->finish[a]))
            st = fail(why, len,
                      "tasks %d [%g, %g) and %d [%g, %g) overlap on node %d", a,
                      s->start[a], s->finish[a], b, s->start[b], s->finish[b],
                      s->node[a]);
    }
    free(ord);
    return st;
}

hcrt_status_t hcrt__heft_schedule_check(const hcrt__taskgraph_t *g,
                                        const hcrt__heft_cost_t *cm,
                                        const hcrt__heft_schedule_t *s,
                                        char *why, size_t whylen)
{
    hcrt__heft_ctx_t c;
    hcrt_status_t st = hcrt__heft_ctx_init(&c, g, cm);
    if (st != HCRT_OK)
        return fail(why, whylen,
                    "graph does not fit the model or has a "
                    "cycle");
    if (s->ntasks != c.n)
        st = fail(why, whylen, "schedule has %d tasks, graph %d", s->ntasks,
                  c.n);
    if (st == HCRT_OK)
        st = check_tasks(&c, s, why, whylen);
    if (st == HCRT_OK)
        st = check_overlap(&c, s, why, whylen);
    hcrt__heft_ctx_fini(&c);
    return st;
}
