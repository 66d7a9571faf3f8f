/*
 * heft_ctx.c - what every placement policy derives from a graph and a cost
 * model before placing anything: CSR adjacency, a topological order (which
 * also rejects cycles), run-time rows per kernel, mean costs, data-ready
 * times, and the generic list scheduler the three policies share.
 */
#include <string.h>

#include "sched/sched_int.h"

/* CSR of the edges by endpoint: off[n + 1], idx[nedges] (edge numbers in
 * insertion order within each task, so results are deterministic). */
static hcrt_status_t build_csr(const hcrt__taskgraph_t *g, int by_to,
                               int64_t **off, int64_t **idx)
{
    int64_t n = g->ntasks, m = g->nedges;
    *off = calloc(n + 1, sizeof(int64_t));
    *idx = malloc(sizeof(int64_t) * (m ? m : 1));
    if (*off == NULL || *idx == NULL)
        return HCRT_ERR_NOMEM;
    for (int64_t e = 0; e < m; e++)
        (*off)[(by_to ? g->edges[e].to : g->edges[e].from) + 1]++;
    for (int64_t i = 0; i < n; i++)
        (*off)[i + 1] += (*off)[i];
    int64_t *fill = malloc(sizeof(int64_t) * (n ? n : 1));
    if (fill == NULL)
        return HCRT_ERR_NOMEM;
    memcpy(fill, *off, sizeof(int64_t) * n);
    for (int64_t e = 0; e < m; e++)
        (*idx)[fill[by_to ? g->edges[e].to : g->edges[e].from]++] = e;
    free(fill);
    return HCRT_OK;
}

/* Initial reads: data items a task reads before any task (in insertion
 * order) wrote them; their bytes come from the holders, not from an edge. */
static hcrt_status_t build_inputs(hcrt__heft_ctx_t *c)
{
    const hcrt__taskgraph_t *g = c->g;
    int64_t n = g->ntasks;
    c->in_off = calloc(n + 1, sizeof(int64_t));
    c->in_data = malloc(sizeof(int32_t) * (g->nacc ? g->nacc : 1));
    int64_t *order = malloc(sizeof(int64_t) * (g->nacc ? g->nacc : 1));
    unsigned char *written = calloc(g->ndata ? g->ndata : 1, 1);
    hcrt_status_t st = HCRT_ERR_NOMEM;
    if (c->in_off == NULL || c->in_data == NULL || order == NULL ||
        written == NULL)
        goto out;
    for (int64_t a = 0; a < g->nacc; a++) /* counting sort by task */
        c->in_off[g->acc[a].task + 1]++;
    for (int64_t i = 0; i < n; i++)
        c->in_off[i + 1] += c->in_off[i];
    int64_t *fill = calloc(n ? n : 1, sizeof(int64_t));
    if (fill == NULL)
        goto out;
    for (int64_t a = 0; a < g->nacc; a++) {
        int32_t t = g->acc[a].task;
        order[c->in_off[t] + fill[t]++] = a;
    }
    free(fill);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t begin = c->in_off[i], end = c->in_off[i + 1];
        c->in_off[i] = k;
        for (int64_t j = begin; j < end; j++) {
            const hcrt__tg_access_t *a = &g->acc[order[j]];
            if ((a->mode & HCRT_TG_READ) && !written[a->data])
                c->in_data[k++] = a->data;
        }
        for (int64_t j = begin; j < end; j++)
            if (g->acc[order[j]].mode & HCRT_TG_WRITE)
                written[g->acc[order[j]].data] = 1;
    }
    c->in_off[n] = k;
    st = HCRT_OK;
out:
    free(order);
    free(written);
    return st;
}

/* Kahn's algorithm; lowest id first among ready tasks keeps it stable. */
static hcrt_status_t build_topo(hcrt__heft_ctx_t *c)
{
    int32_t n = c->n, head = 0, tail = 0;
    int64_t *deg = malloc(sizeof(int64_t) * (n ? n : 1));
    c->topo = malloc(sizeof(int32_t) * (n ? n : 1));
    if (deg == NULL || c->topo == NULL) {
        free(deg);
        return HCRT_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++) {
        deg[i] = c->pred_off[i + 1] - c->pred_off[i];
        if (deg[i] == 0)
            c->topo[tail++] = i;
    }
    while (head < tail) {
        int32_t u = c->topo[head++];
        for (int64_t k = c->succ_off[u]; k < c->succ_off[u + 1]; k++) {
            int32_t v = c->g->edges[c->succ[k]].to;
            if (--deg[v] == 0)
                c->topo[tail++] = v;
        }
    }
    free(deg);
    return tail == n ? HCRT_OK : HCRT_ERR_INVALID; /* leftover: a cycle */
}

/* One row of run times per distinct kernel in the graph. */
static hcrt_status_t build_kernels(hcrt__heft_ctx_t *c)
{
    hcrt__kmap_t map = {0};
    int P = c->P;
    int64_t cap = 0;
    hcrt_status_t st = HCRT_OK;
    c->kslot = malloc(sizeof(int32_t) * (c->n ? c->n : 1));
    if (c->kslot == NULL)
        return HCRT_ERR_NOMEM;
    for (int32_t t = 0; t < c->n && st == HCRT_OK; t++) {
        int is_new;
        c->kslot[t] = -1;
        if (c->g->tasks[t].cost_off >= 0)
            continue;
        st = hcrt__kmap_put(&map, c->g->tasks[t].kernel, &c->kslot[t], &is_new);
        if (st != HCRT_OK || !is_new)
            continue;
        int64_t kcap = cap;
        st = hcrt__sched_grow((void **)&c->ktab, &cap,
                              (int64_t)(c->kslot[t] + 1) * P, sizeof(double));
        if (st == HCRT_OK)
            st = hcrt__sched_grow((void **)&c->kmean, &kcap, c->kslot[t] + 1,
                                  sizeof(double));
        if (st != HCRT_OK)
            break;
        double *row = c->ktab + (int64_t)c->kslot[t] * P, sum = 0.0;
        hcrt__heft_cost_row(c->cm, c->g->tasks[t].kernel, row);
        for (int p = 0; p < P; p++)
            sum += row[p];
        c->kmean[c->kslot[t]] = sum / P;
    }
    hcrt__kmap_fini(&map);
    return st;
}

hcrt_status_t hcrt__heft_ctx_init(hcrt__heft_ctx_t *c,
                                  const hcrt__taskgraph_t *g,
                                  const hcrt__heft_cost_t *cm)
{
    memset(c, 0, sizeof(*c));
    if (g == NULL || cm == NULL || g->nnodes != cm->nnodes)
        return HCRT_ERR_INVALID;
    c->g = g;
    c->cm = cm;
    c->P = g->nnodes;
    c->n = (int32_t)g->ntasks;
    c->uniform = cm->latm == NULL;
    hcrt__heft_cost_link_means(cm, &c->mean_lat, &c->mean_inv_bw);
    c->drt = malloc(sizeof(double) * c->P);
    c->touched = malloc(sizeof(int32_t) * c->P);
    c->mark = calloc(c->P, 1);
    c->loc = calloc(c->P, sizeof(double));
    hcrt_status_t st = HCRT_ERR_NOMEM;
    if (c->drt == NULL || c->touched == NULL || c->mark == NULL ||
        c->loc == NULL)
        goto err;
    if ((st = build_csr(g, 0, &c->succ_off, &c->succ)) != HCRT_OK ||
        (st = build_csr(g, 1, &c->pred_off, &c->pred)) != HCRT_OK ||
        (st = build_inputs(c)) != HCRT_OK || (st = build_topo(c)) != HCRT_OK ||
        (st = build_kernels(c)) != HCRT_OK)
        goto err;
    return HCRT_OK;
err:
    hcrt__heft_ctx_fini(c);
    return st;
}

void hcrt__heft_ctx_fini(hcrt__heft_ctx_t *c)
{
    free(c->succ_off);
    free(c->pred_off);
    free(c->succ);
    free(c->pred);
    free(c->in_off);
    free(c->in_data);
    free(c->topo);
    free(c->kslot);
    free(c->ktab);
    free(c->kmean);
    free(c->drt);
    free(c->touched);
    free(c->mark);
    free(c->loc);
    memset(c, 0, sizeof(*c));
}

double hcrt__heft_mean_exec(const hcrt__heft_ctx_t *c, int32_t t)
{
    const hcrt__tg_task_t *tk = &c->g->tasks[t];
    if (tk->cost_off < 0)
        return tk->work * c->kmean[c->kslot[t]];
    double sum = 0.0;
    for (int p = 0; p < c->P; p++)
        sum += c->g->costs[tk->cost_off + p];
    return sum / c->P;
}

double hcrt__heft_edge_comm(const hcrt__heft_ctx_t *c, int64_t e, int a, int b)
{
    const hcrt__tg_edge_t *ed = &c->g->edges[e];
    if (a == b)
        return 0.0;
    if (ed->cost >= 0.0)
        return ed->cost;
    return hcrt__heft_cost_comm(c->cm, a, b, ed->bytes);
}

double hcrt__heft_edge_mean_comm(const hcrt__heft_ctx_t *c, int64_t e)
{
    const hcrt__tg_edge_t *ed = &c->g->edges[e];
    if (c->P < 2)
        return 0.0; /* one node: nothing ever moves */
    if (ed->cost >= 0.0)
        return ed->cost;
    return c->mean_lat + (double)ed->bytes * c->mean_inv_bw;
}

double hcrt__heft_data_comm(const hcrt__heft_ctx_t *c, int32_t d, int p)
{
    const hcrt__tg_data_t *dd = &c->g->data[d];
    double best = -1.0;
    for (int32_t h = 0; h < dd->nhold; h++) {
        double v = hcrt__heft_cost_comm(c->cm, c->g->holders[dd->hold_off + h],
                                        p, dd->bytes);
        if (best < 0.0 || v < best)
            best = v;
    }
    return best;
}

static void touch(hcrt__heft_ctx_t *c, int p)
{
    if (!c->mark[p]) {
        c->mark[p] = 1;
        c->touched[c->ntouched++] = p;
    }
}

/* Exact data-ready time of task t on node p. */
static double ready_on(const hcrt__heft_ctx_t *c, int32_t t, int p,
                       const int32_t *node, const double *finish)
{
    double drt = 0.0;
    for (int64_t k = c->pred_off[t]; k < c->pred_off[t + 1]; k++) {
        int32_t u = c->g->edges[c->pred[k]].from;
        double v = finish[u] + hcrt__heft_edge_comm(c, c->pred[k], node[u], p);
        drt = v > drt ? v : drt;
    }
    for (int64_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
        double v = hcrt__heft_data_comm(c, c->in_data[k], p);
        drt = v > drt ? v : drt;
    }
    return drt;
}

/* Transfer time between any two distinct nodes when links are uniform. */
static double far_comm(const hcrt__heft_ctx_t *c, uint64_t bytes, double cost)
{
    return cost >= 0.0 ? cost : c->cm->lat + (double)bytes / c->cm->bw;
}

/* Uniform links: an input costs its edge's transfer time on every node but
 * its own. So a node holding no input sees the latest arrival M1 (from node
 * n1); n1 itself sees the latest arrival M2 from elsewhere; a touched node
 * also waits for its local inputs' finish times. O(P + deg) per task,
 * which keeps a 10^5-task, 1024-node graph (or a 10^5-way join) fast. */
static void ready_uniform(hcrt__heft_ctx_t *c, int32_t t, const int32_t *node,
                          const double *finish)
{
    double m1 = 0.0, m2 = 0.0, items = 0.0;
    int n1 = -1;
    for (int32_t i = 0; i < c->ntouched; i++)
        c->loc[c->touched[i]] = 0.0;
    for (int64_t k = c->pred_off[t]; k < c->pred_off[t + 1]; k++) {
        int32_t u = c->g->edges[c->pred[k]].from;
        double v = finish[u] + far_comm(c, c->g->edges[c->pred[k]].bytes,
                                        c->g->edges[c->pred[k]].cost);
        if (n1 < 0 || v > m1) {
            m1 = v;
            n1 = node[u];
        }
        if (finish[u] > c->loc[node[u]])
            c->loc[node[u]] = finish[u];
    }
    for (int64_t k = c->pred_off[t]; k < c->pred_off[t + 1]; k++) {
        int32_t u = c->g->edges[c->pred[k]].from;
        double v = finish[u] + far_comm(c, c->g->edges[c->pred[k]].bytes,
                                        c->g->edges[c->pred[k]].cost);
        if (node[u] != n1 && v > m2)
            m2 = v;
    }
    for (int64_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
        const hcrt__tg_data_t *d = &c->g->data[c->in_data[k]];
        double v = far_comm(c, d->bytes, -1.0);
        items = v > items ? v : items;
    }
    for (int p = 0; p < c->P; p++)
        c->drt[p] = m1 > items ? m1 : items;
    for (int32_t i = 0; i < c->ntouched; i++) {
        int p = c->touched[i];
        double v = p == n1 ? m2 : m1;
        v = c->loc[p] > v ? c->loc[p] : v;
        for (int64_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
            double w = hcrt__heft_data_comm(c, c->in_data[k], p);
            v = w > v ? w : v;
        }
        c->drt[p] = v;
    }
}

void hcrt__heft_ready_times(hcrt__heft_ctx_t *c, int32_t t, const int32_t *node,
                            const double *finish)
{
    for (int32_t i = 0; i < c->ntouched; i++)
        c->mark[c->touched[i]] = 0;
    c->ntouched = 0;
    for (int64_t k = c->pred_off[t]; k < c->pred_off[t + 1]; k++)
        touch(c, node[c->g->edges[c->pred[k]].from]);
    for (int64_t k = c->in_off[t]; k < c->in_off[t + 1]; k++) {
        const hcrt__tg_data_t *d = &c->g->data[c->in_data[k]];
        for (int32_t h = 0; h < d->nhold; h++)
            touch(c, c->g->holders[d->hold_off + h]);
    }
    if (!c->uniform) {
        for (int p = 0; p < c->P; p++)
            c->drt[p] = ready_on(c, t, p, node, finish);
        return;
    }
    ready_uniform(c, t, node, finish);
}

/* ---- heap and list scheduling ------------------------------------------ */

static int before(const hcrt__heft_heap_t *h, int32_t a, int32_t b)
{
    return h->key[a] > h->key[b] || (h->key[a] == h->key[b] && a < b);
}

void hcrt__heft_heap_push(hcrt__heft_heap_t *h, int32_t id)
{
    int32_t i = h->len++;
    while (i > 0 && before(h, id, h->ids[(i - 1) / 2])) {
        h->ids[i] = h->ids[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->ids[i] = id;
}

int32_t hcrt__heft_heap_pop(hcrt__heft_heap_t *h)
{
    int32_t top = h->ids[0], last = h->ids[--h->len], i = 0;
    for (;;) {
        int32_t l = 2 * i + 1, r = l + 1, m = i;
        int32_t mid = last;
        if (l < h->len && before(h, h->ids[l], mid)) {
            m = l;
            mid = h->ids[l];
        }
        if (r < h->len && before(h, h->ids[r], mid))
            m = r;
        if (m == i)
            break;
        h->ids[i] = h->ids[m];
        i = m;
    }
    if (h->len > 0)
        h->ids[i] = last;
    return top;
}

hcrt_status_t hcrt__heft_list_schedule(hcrt__heft_ctx_t *c, const double *key,
                                       hcrt__heft_place_fn place, void *state,
                                       hcrt__heft_schedule_t *s)
{
    int32_t n = c->n;
    if (s->ntasks != n || s->node == NULL)
        return HCRT_ERR_INVALID; /* sized for another graph */
    int64_t *deg = malloc(sizeof(int64_t) * (n ? n : 1));
    hcrt__heft_heap_t h = {malloc(sizeof(int32_t) * (n ? n : 1)), 0, key};
    if (deg == NULL || h.ids == NULL) {
        free(deg);
        free(h.ids);
        return HCRT_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++) {
        deg[i] = c->pred_off[i + 1] - c->pred_off[i];
        if (deg[i] == 0)
            hcrt__heft_heap_push(&h, i);
    }
    s->makespan = 0.0;
    while (h.len > 0) {
        int32_t t = hcrt__heft_heap_pop(&h);
        double start;
        hcrt__heft_ready_times(c, t, s->node, s->finish);
        int p = place(c, t, s, state, &start);
        s->node[t] = p;
        s->start[t] = start;
        s->finish[t] = start + hcrt__heft_exec(c, t, p);
        if (s->finish[t] > s->makespan)
            s->makespan = s->finish[t];
        for (int64_t k = c->succ_off[t]; k < c->succ_off[t + 1]; k++) {
            int32_t v = c->g->edges[c->succ[k]].to;
            if (--deg[v] == 0)
                hcrt__heft_heap_push(&h, v);
        }
    }
    free(deg);
    free(h.ids);
    return HCRT_OK;
}
