/*
 * taskgraph.c - the recorded task graph: tasks, edges and data items kept in
 * flat growable arrays so that recording a graph of 10^5 tasks costs a few
 * dozen reallocations, not one malloc per edge.
 */
#include <string.h>

#include "sched/sched_int.h"

hcrt_status_t hcrt__sched_grow(void **p, int64_t *cap, int64_t need,
                               size_t size)
{
    if (need <= *cap)
        return HCRT_OK;
    int64_t ncap = *cap ? *cap : 16;
    while (ncap < need)
        ncap *= 2;
    void *np = realloc(*p, (size_t)ncap * size);
    if (np == NULL)
        return HCRT_ERR_NOMEM;
    *p = np;
    *cap = ncap;
    return HCRT_OK;
}

hcrt_status_t hcrt__taskgraph_create(int nnodes, hcrt__taskgraph_t **out)
{
    if (nnodes < 1 || out == NULL)
        return HCRT_ERR_INVALID;
    hcrt__taskgraph_t *g = calloc(1, sizeof(*g));
    if (g == NULL)
        return HCRT_ERR_NOMEM;
    g->nnodes = nnodes;
    g->busy = calloc((size_t)nnodes, sizeof(double));
    if (g->busy == NULL) {
        free(g);
        return HCRT_ERR_NOMEM;
    }
    *out = g;
    return HCRT_OK;
}

void hcrt__taskgraph_destroy(hcrt__taskgraph_t *g)
{
    if (g == NULL)
        return;
    free(g->tasks);
    free(g->costs);
    free(g->edges);
    free(g->data);
    free(g->holders);
    free(g->acc);
    free(g->busy);
    free(g);
}

void hcrt__taskgraph_clear(hcrt__taskgraph_t *g)
{
    g->ntasks = g->ncosts = g->nedges = 0;
    g->ndata = g->nholders = g->nacc = 0;
    memset(g->busy, 0, sizeof(double) * (size_t)g->nnodes);
}

hcrt_status_t hcrt__taskgraph_set_busy(hcrt__taskgraph_t *g, int node,
                                       double until)
{
    if (node < 0 || node >= g->nnodes || !(until >= 0))
        return HCRT_ERR_INVALID;
    g->busy[node] = until;
    return HCRT_OK;
}

static hcrt_status_t push_task(hcrt__taskgraph_t *g, uint64_t kernel,
                               double work, int64_t cost_off, int32_t *out_id)
{
    if (g->ntasks >= INT32_MAX)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__sched_grow((void **)&g->tasks, &g->tcap,
                                        g->ntasks + 1, sizeof(*g->tasks));
    if (st != HCRT_OK)
        return st;
    hcrt__tg_task_t *t = &g->tasks[g->ntasks];
    t->kernel = kernel;
    t->work = work;
    t->cost_off = cost_off;
    t->pin = -1;
    if (out_id != NULL)
        *out_id = (int32_t)g->ntasks;
    g->ntasks++;
    return HCRT_OK;
}

hcrt_status_t hcrt__taskgraph_add_task(hcrt__taskgraph_t *g, uint64_t kernel,
                                       double work, int32_t *out_id)
{
    if (!(work >= 0.0))
        return HCRT_ERR_INVALID; /* also rejects NaN */
    return push_task(g, kernel, work, -1, out_id);
}

hcrt_status_t hcrt__taskgraph_add_task_costs(hcrt__taskgraph_t *g,
                                             const double *costs,
                                             int32_t *out_id)
{
    for (int p = 0; p < g->nnodes; p++)
        if (!(costs[p] >= 0.0))
            return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__sched_grow(
        (void **)&g->costs, &g->ccap, g->ncosts + g->nnodes, sizeof(*g->costs));
    if (st != HCRT_OK)
        return st;
    st = push_task(g, 0, 1.0, g->ncosts, out_id);
    if (st != HCRT_OK)
        return st;
    memcpy(g->costs + g->ncosts, costs, sizeof(double) * g->nnodes);
    g->ncosts += g->nnodes;
    return HCRT_OK;
}

hcrt_status_t hcrt__taskgraph_pin(hcrt__taskgraph_t *g, int32_t task, int node)
{
    if (task < 0 || task >= g->ntasks || node < -1 || node >= g->nnodes)
        return HCRT_ERR_INVALID;
    g->tasks[task].pin = node;
    return HCRT_OK;
}

hcrt_status_t hcrt__taskgraph_add_edge(hcrt__taskgraph_t *g, int32_t from,
                                       int32_t to, uint64_t bytes, double cost)
{
    if (from < 0 || from >= g->ntasks || to < 0 || to >= g->ntasks ||
        from == to || cost != cost)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__sched_grow((void **)&g->edges, &g->ecap,
                                        g->nedges + 1, sizeof(*g->edges));
    if (st != HCRT_OK)
        return st;
    g->edges[g->nedges++] =
        (hcrt__tg_edge_t){.from = from, .to = to, .bytes = bytes, .cost = cost};
    return HCRT_OK;
}

hcrt_status_t hcrt__taskgraph_add_data(hcrt__taskgraph_t *g, uint64_t bytes,
                                       const int *holders, int nholders,
                                       int32_t *out_id)
{
    if (nholders < 1 || nholders > g->nnodes || g->ndata >= INT32_MAX)
        return HCRT_ERR_INVALID; /* a buffer with no copy cannot be read */
    for (int i = 0; i < nholders; i++)
        if (holders[i] < 0 || holders[i] >= g->nnodes)
            return HCRT_ERR_INVALID;
    hcrt_status_t st =
        hcrt__sched_grow((void **)&g->holders, &g->hcap, g->nholders + nholders,
                         sizeof(*g->holders));
    if (st == HCRT_OK)
        st = hcrt__sched_grow((void **)&g->data, &g->dcap, g->ndata + 1,
                              sizeof(*g->data));
    if (st != HCRT_OK)
        return st;
    for (int i = 0; i < nholders; i++)
        g->holders[g->nholders + i] = holders[i];
    g->data[g->ndata] = (hcrt__tg_data_t){
        .bytes = bytes, .hold_off = g->nholders, .nhold = nholders};
    g->nholders += nholders;
    if (out_id != NULL)
        *out_id = (int32_t)g->ndata;
    g->ndata++;
    return HCRT_OK;
}

hcrt_status_t hcrt__taskgraph_add_access(hcrt__taskgraph_t *g, int32_t task,
                                         int32_t data,
                                         hcrt__taskgraph_access_t mode)
{
    if (task < 0 || task >= g->ntasks || data < 0 || data >= g->ndata ||
        mode < HCRT_TG_READ || mode > HCRT_TG_READWRITE)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__sched_grow((void **)&g->acc, &g->acap, g->nacc + 1,
                                        sizeof(*g->acc));
    if (st != HCRT_OK)
        return st;
    g->acc[g->nacc++] =
        (hcrt__tg_access_t){.task = task, .data = data, .mode = (int)mode};
    return HCRT_OK;
}

int32_t hcrt__taskgraph_ntasks(const hcrt__taskgraph_t *g)
{
    return (int32_t)g->ntasks;
}

int64_t hcrt__taskgraph_nedges(const hcrt__taskgraph_t *g)
{
    return g->nedges;
}

int hcrt__taskgraph_nnodes(const hcrt__taskgraph_t *g)
{
    return g->nnodes;
}

uint64_t hcrt__taskgraph_kernel(const hcrt__taskgraph_t *g, int32_t task)
{
    return g->tasks[task].kernel;
}
