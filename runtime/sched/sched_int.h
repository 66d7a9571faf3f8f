/*
 * sched_int.h - internals shared by the task-graph scheduler's files
 * (taskgraph.c, heft_cost.c, heft_ctx.c, heft.c, heft_policy.c).
 */
#ifndef HCRT_SCHED_INT_H
#define HCRT_SCHED_INT_H

#include <stdint.h>
#include <stdlib.h>

#include "sched/heft.h"

/* ---- growable arrays ------------------------------------------------- */

/* Grows `*p` (elements of `size` bytes) so that index `need - 1` fits;
 * doubling keeps incremental graph building amortised O(1). */
hcrt_status_t hcrt__sched_grow(void **p, int64_t *cap, int64_t need,
                               size_t size);

/* ---- kernel id -> dense slot hash (open addressing) ------------------- */

typedef struct hcrt__kmap {
    uint64_t *keys;
    int32_t *slots; /* -1: empty */
    int64_t cap;    /* power of two */
    int32_t count;
} hcrt__kmap_t;

void hcrt__kmap_fini(hcrt__kmap_t *m);
/* Slot of `key` or -1. */
int32_t hcrt__kmap_get(const hcrt__kmap_t *m, uint64_t key);
/* Slot of `key`, inserting it as slot `count` if new (*is_new set). */
hcrt_status_t hcrt__kmap_put(hcrt__kmap_t *m, uint64_t key, int32_t *slot,
                             int *is_new);

/* ---- cost model ------------------------------------------------------ */

struct hcrt__heft_cost {
    int nnodes;
    double alpha;
    double default_time;
    double *speed;  /* [nnodes] */
    double lat, bw; /* the uniform link */
    double *latm;   /* [nnodes * nnodes] or NULL when uniform */
    double *bwm;
    hcrt__kmap_t kernels;
    int64_t kcap;    /* rows allocated in est/nsamp */
    double *est;     /* [kernel slot * nnodes + node] */
    uint64_t *nsamp; /* same shape: 0 = not learned on that node */
};

/* Fills `row` (nnodes values) with the expected time of `kernel` on every
 * node, with the fallbacks of hcrt__heft_cost_exec, in O(nnodes). */
void hcrt__heft_cost_row(const hcrt__heft_cost_t *cm, uint64_t kernel,
                         double *row);
/* Means over ordered pairs of distinct nodes, for HEFT's mean comm cost. */
void hcrt__heft_cost_link_means(const hcrt__heft_cost_t *cm, double *lat,
                                double *inv_bw);

/* ---- task graph ------------------------------------------------------ */

typedef struct hcrt__tg_task {
    uint64_t kernel;
    double work;
    int64_t cost_off; /* into costs[], or -1: ask the cost model */
    int32_t pin;      /* node or -1 */
} hcrt__tg_task_t;

typedef struct hcrt__tg_edge {
    int32_t from, to;
    uint64_t bytes;
    double cost; /* >= 0 fixed, < 0 from bytes and link */
} hcrt__tg_edge_t;

typedef struct hcrt__tg_data {
    uint64_t bytes;
    int64_t hold_off; /* into holders[] */
    int32_t nhold;
} hcrt__tg_data_t;

typedef struct hcrt__tg_access {
    int32_t task, data;
    int32_t mode;
} hcrt__tg_access_t;

struct hcrt__taskgraph {
    int nnodes;
    hcrt__tg_task_t *tasks;
    int64_t ntasks, tcap;
    double *costs;
    int64_t ncosts, ccap;
    hcrt__tg_edge_t *edges;
    int64_t nedges, ecap;
    hcrt__tg_data_t *data;
    int64_t ndata, dcap;
    int32_t *holders;
    int64_t nholders, hcap;
    hcrt__tg_access_t *acc;
    int64_t nacc, acap;
    double *busy; /* [nnodes]: a node's earlier work ends then (HEFT) */
};

/* ---- per-schedule context (heft_ctx.c) -------------------------------- */

/* Everything a policy needs, derived once from graph + model: CSR
 * adjacency, a topological order, per-task rows of run times (shared per
 * kernel), mean costs, and the initial data reads of each task. */
typedef struct hcrt__heft_ctx {
    const hcrt__taskgraph_t *g;
    const hcrt__heft_cost_t *cm;
    int P;
    int32_t n;
    int64_t *succ_off, *pred_off; /* [n + 1] */
    int64_t *succ, *pred;         /* edge indices */
    int64_t *in_off;              /* [n + 1] into in_data */
    int32_t *in_data;             /* data items read before any write */
    int32_t *topo;                /* [n] */
    int32_t *kslot;               /* [n] row of ktab, -1: explicit costs */
    double *ktab;                 /* [nk * P] */
    double *kmean;                /* [nk] */
    int uniform;                  /* every link equal: enables fast paths */
    double mean_lat, mean_inv_bw;
    /* scratch for policies */
    double *drt;      /* [P] data-ready time of the current task */
    int32_t *touched; /* nodes holding a predecessor or an input */
    int32_t ntouched;
    unsigned char *mark; /* [P] */
    double *loc;         /* [P] latest local input per touched node */
} hcrt__heft_ctx_t;

hcrt_status_t hcrt__heft_ctx_init(hcrt__heft_ctx_t *c,
                                  const hcrt__taskgraph_t *g,
                                  const hcrt__heft_cost_t *cm);
void hcrt__heft_ctx_fini(hcrt__heft_ctx_t *c);

static inline double hcrt__heft_exec(const hcrt__heft_ctx_t *c, int32_t t,
                                     int p)
{
    const hcrt__tg_task_t *tk = &c->g->tasks[t];
    if (tk->cost_off >= 0)
        return c->g->costs[tk->cost_off + p];
    return tk->work * c->ktab[(int64_t)c->kslot[t] * c->P + p];
}

/* Run times of t on all nodes as row[p] * scale: hoists the lookup out of
 * the per-node loops. */
static inline const double *hcrt__heft_exec_row(const hcrt__heft_ctx_t *c,
                                                int32_t t, double *scale)
{
    const hcrt__tg_task_t *tk = &c->g->tasks[t];
    if (tk->cost_off >= 0) {
        *scale = 1.0;
        return c->g->costs + tk->cost_off;
    }
    *scale = tk->work;
    return c->ktab + (int64_t)c->kslot[t] * c->P;
}

double hcrt__heft_mean_exec(const hcrt__heft_ctx_t *c, int32_t t);
/* Transfer time of edge `e` between nodes a and b (0 when a == b). */
double hcrt__heft_edge_comm(const hcrt__heft_ctx_t *c, int64_t e, int a, int b);
double hcrt__heft_edge_mean_comm(const hcrt__heft_ctx_t *c, int64_t e);
/* Time for data item d to reach node p from its nearest holder. */
double hcrt__heft_data_comm(const hcrt__heft_ctx_t *c, int32_t d, int p);
/* Fills c->drt[p] for every node: when all inputs of t could be on p,
 * given the placements so far (node/finish of the predecessors). Also
 * leaves the nodes already holding inputs in c->touched. */
void hcrt__heft_ready_times(hcrt__heft_ctx_t *c, int32_t t, const int32_t *node,
                            const double *finish);

/* ---- ready-task heap --------------------------------------------------- */

/* Max-heap on key, ties to the smaller task id: deterministic list
 * scheduling that always respects precedence. */
typedef struct hcrt__heft_heap {
    int32_t *ids;
    int32_t len;
    const double *key;
} hcrt__heft_heap_t;

void hcrt__heft_heap_push(hcrt__heft_heap_t *h, int32_t id);
int32_t hcrt__heft_heap_pop(hcrt__heft_heap_t *h);

/* Generic list scheduler: repeatedly takes the ready task with the highest
 * key and lets `place` pick its node and start. */
typedef int (*hcrt__heft_place_fn)(hcrt__heft_ctx_t *c, int32_t t,
                                   hcrt__heft_schedule_t *s, void *state,
                                   double *start);
hcrt_status_t hcrt__heft_list_schedule(hcrt__heft_ctx_t *c, const double *key,
                                       hcrt__heft_place_fn place, void *state,
                                       hcrt__heft_schedule_t *s);

#endif /* HCRT_SCHED_INT_H */
