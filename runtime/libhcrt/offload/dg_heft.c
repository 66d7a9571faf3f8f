/*
 * dg_heft.c - turns a taken batch into HEFT's task graph (runtime/sched) and
 * puts data tasks next to the kernels that use their data afterwards.
 */
#include <stdlib.h>
#include <string.h>

#include "libhcrt/offload/depgraph.h"
#include "libhcrt/offload/offload_int.h"

enum { MAX_HOLDERS = 64 };

static hcrt_status_t add_one_task(const hcrt__dg_batch_t *b, int32_t i,
                                  hcrt__taskgraph_t *tg, double *zeros)
{
    const hcrt__dg_task_t *t = &b->tasks[i];
    int32_t id;
    hcrt_status_t st;
    if (t->kind == HCRT_OFL_KERNEL || t->kind == HCRT_OFL_HOST_TASK)
        st = hcrt__taskgraph_add_task(tg, t->kernel, t->work, &id);
    else /* data tasks only move data: the edges carry their cost */
        st = hcrt__taskgraph_add_task_costs(tg, zeros, &id);
    if (st == HCRT_OK && t->pin >= 0 && t->pin < hcrt__taskgraph_nnodes(tg))
        st = hcrt__taskgraph_pin(tg, id, t->pin);
    return st;
}

/* The ranges written so far in the batch, merged, sorted, disjoint: a
 * kernel input outside them exists before the batch (a HEFT data item). */
typedef struct ranges {
    uintptr_t *lo, *hi;
    int32_t n, cap, cap2;
} ranges_t;

/* Index of the last range starting before `a`, or -1. */
static int32_t ranges_floor(const ranges_t *r, uintptr_t a)
{
    int32_t lo = 0, hi = r->n - 1, res = -1;
    while (lo <= hi) {
        int32_t mid = (lo + hi) / 2;
        if (r->lo[mid] < a) {
            res = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return res;
}

static int ranges_hit(const ranges_t *r, uintptr_t a, uintptr_t e)
{
    int32_t i = ranges_floor(r, e); /* last range starting before e */
    return i >= 0 && r->hi[i] > a;
}

static hcrt_status_t ranges_add(ranges_t *r, uintptr_t a, uintptr_t e)
{
    int32_t i = ranges_floor(r, a), j;
    if (i >= 0 && r->hi[i] >= a) { /* grow range i */
        if (e > r->hi[i])
            r->hi[i] = e;
    } else {
        hcrt_status_t st = hcrt__ofl_grow((void **)&r->lo, &r->cap, r->n + 1,
                                          sizeof(uintptr_t));
        if (st == HCRT_OK)
            st = hcrt__ofl_grow((void **)&r->hi, &r->cap2, r->n + 1,
                                sizeof(uintptr_t));
        if (st != HCRT_OK)
            return st;
        i++;
        memmove(&r->lo[i + 1], &r->lo[i],
                (size_t)(r->n - i) * sizeof(uintptr_t));
        memmove(&r->hi[i + 1], &r->hi[i],
                (size_t)(r->n - i) * sizeof(uintptr_t));
        r->lo[i] = a;
        r->hi[i] = e;
        r->n++;
    }
    for (j = i + 1; j < r->n && r->lo[j] <= r->hi[i]; j++) /* swallow */
        if (r->hi[j] > r->hi[i])
            r->hi[i] = r->hi[j];
    memmove(&r->lo[i + 1], &r->lo[j], (size_t)(r->n - j) * sizeof(uintptr_t));
    memmove(&r->hi[i + 1], &r->hi[j], (size_t)(r->n - j) * sizeof(uintptr_t));
    r->n -= j - i - 1;
    return HCRT_OK;
}

static hcrt_status_t note_writes(const hcrt__dg_batch_t *b, int32_t i,
                                 ranges_t *w)
{
    const hcrt__dg_task_t *t = &b->tasks[i];
    hcrt_status_t st = HCRT_OK;
    for (int32_t j = 0; j < t->nmaps && st == HCRT_OK; j++) {
        const hcrt__ofl_map_t *m = &b->maps[t->map_off + j];
        if (hcrt__ofl_map_writes(t->kind, m, b->deps + t->dep_off, t->ndeps))
            st = ranges_add(w, (uintptr_t)m->begin,
                            (uintptr_t)m->begin + (uintptr_t)m->size);
    }
    return st;
}

/* Data items: what each kernel reads that exists before the batch. */
static hcrt_status_t add_inputs(const hcrt__dg_batch_t *b, int32_t i,
                                const ranges_t *written, hcrt__taskgraph_t *tg,
                                hcrt__dg_holders_cb holders, void *arg)
{
    const hcrt__dg_task_t *t = &b->tasks[i];
    if (t->kind != HCRT_OFL_KERNEL)
        return HCRT_OK;
    int nodes[MAX_HOLDERS];
    for (int32_t j = 0; j < t->nmaps; j++) {
        const hcrt__ofl_map_t *m = &b->maps[t->map_off + j];
        int writes =
            hcrt__ofl_map_writes(t->kind, m, b->deps + t->dep_off, t->ndeps);
        if (!hcrt__ofl_map_is_data(m) ||
            (writes && !(m->type & HCRT_OFL_MAP_TO)) || /* output only */
            ranges_hit(written, (uintptr_t)m->begin,
                       (uintptr_t)m->begin + (uintptr_t)m->size))
            continue;
        int n =
            holders ? holders(arg, m->begin, m->size, nodes, MAX_HOLDERS) : 0;
        if (n <= 0) { /* only the host has it: the head */
            nodes[0] = 0;
            n = 1;
        }
        int32_t d;
        hcrt_status_t st =
            hcrt__taskgraph_add_data(tg, (uint64_t)m->size, nodes, n, &d);
        if (st == HCRT_OK)
            st = hcrt__taskgraph_add_access(tg, i, d, HCRT_TG_READ);
        if (st != HCRT_OK)
            return st;
    }
    return HCRT_OK;
}

hcrt_status_t hcrt__dg_build_taskgraph(const hcrt__dg_batch_t *b,
                                       hcrt__taskgraph_t *tg,
                                       hcrt__dg_holders_cb holders, void *arg)
{
    if (b == NULL || tg == NULL)
        return HCRT_ERR_INVALID;
    hcrt__taskgraph_clear(tg);
    double *zeros = calloc((size_t)hcrt__taskgraph_nnodes(tg), sizeof(double));
    if (zeros == NULL)
        return HCRT_ERR_NOMEM;
    hcrt_status_t st = HCRT_OK;
    for (int32_t i = 0; i < b->ntasks && st == HCRT_OK; i++)
        st = add_one_task(b, i, tg, zeros);
    for (int32_t e = 0; e < b->nedges && st == HCRT_OK; e++)
        st = hcrt__taskgraph_add_edge(tg, b->edges[e].from, b->edges[e].to,
                                      b->edges[e].bytes, -1.0);
    ranges_t written = {0};
    for (int32_t i = 0; i < b->ntasks && st == HCRT_OK; i++) {
        st = add_inputs(b, i, &written, tg, holders, arg);
        if (st == HCRT_OK)
            st = note_writes(b, i, &written);
    }
    free(written.lo);
    free(written.hi);
    free(zeros);
    return st;
}

static int maps_overlap(const hcrt__dg_batch_t *b, const hcrt__dg_task_t *x,
                        const hcrt__dg_task_t *y)
{
    for (int32_t i = 0; i < x->nmaps; i++)
        for (int32_t j = 0; j < y->nmaps; j++) {
            const hcrt__ofl_map_t *a = &b->maps[x->map_off + i];
            const hcrt__ofl_map_t *c = &b->maps[y->map_off + j];
            if (hcrt__ofl_map_is_data(a) && hcrt__ofl_map_is_data(c) &&
                hcrt__ofl_overlap((uintptr_t)a->begin, a->size,
                                  (uintptr_t)c->begin, c->size))
                return 1;
        }
    return 0;
}

void hcrt__dg_colocate(const hcrt__dg_batch_t *b, int32_t *node)
{
    for (int32_t i = 0; i < b->ntasks; i++) {
        const hcrt__dg_task_t *t = &b->tasks[i];
        if (t->kind != HCRT_OFL_DATA_ENTER && t->kind != HCRT_OFL_DATA_UPDATE)
            continue;
        if (t->pin >= 0) {
            node[i] = t->pin;
            continue;
        }
        node[i] = 0; /* no user in this batch: the head keeps the copy */
        for (int32_t j = i + 1; j < b->ntasks; j++)
            if (b->tasks[j].kind == HCRT_OFL_KERNEL &&
                maps_overlap(b, t, &b->tasks[j])) {
                node[i] = node[j];
                break;
            }
    }
}
