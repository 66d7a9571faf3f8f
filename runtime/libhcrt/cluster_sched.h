/*
 * cluster_sched.h - hierarchical and HetProbe loop schedules over a cluster
 * team (internal; cluster_sched.c, used by cluster_loops.c).
 *
 * A "pool" is one node's view of one loop instance, shared by the node's
 * threads of that instance (keyed by the construct's sequence number).
 * Iterations are logical indices 0 .. trip-1; the caller maps them back to
 * loop values.
 */
#ifndef HCRT_CLUSTER_SCHED_H
#define HCRT_CLUSTER_SCHED_H

#include <stdint.h>

#include "hcrt/abi.h"

typedef enum hcrt__cl_pool_kind {
    HCRT_CLP_DYNAMIC = 0,   /* node pools refilled from a global counter */
    HCRT_CLP_GUIDED = 1,    /* same, decreasing chunks */
    HCRT_CLP_HETPROBE = 2,  /* probe, decide, split the rest */
    HCRT_CLP_HETPROBE_I = 3 /* the same, again every re-probe window */
} hcrt__cl_pool_kind_t;

typedef struct hcrt__cl_pool hcrt__cl_pool_t;

/* Joins (or creates, for the node's first thread) this node's pool of the
 * loop instance `seq`. `pct` is a schedule(hetprobe[_i], pct) percentage
 * (0: the setting). Every thread of the node that joins must call
 * hcrt__cl_pool_next until it returns 0. */
hcrt__cl_pool_t *hcrt__cl_pool_join(hcrt_ident_t *loc,
                                    hcrt__cl_pool_kind_t kind, uint32_t seq,
                                    uint64_t trip, uint64_t chunk, int pct);
/* The calling thread's next chunk [*first, *first + *n); 0 when the thread
 * is done with the loop (it has then left the pool). */
int hcrt__cl_pool_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n);

/* The loop was cancelled: no more iterations for this node (dynamic and
 * guided; HetProbe pools run out their windows). The thread still calls
 * hcrt__cl_pool_next until it returns 0. */
void hcrt__cl_pool_cancel(hcrt__cl_pool_t *p);

/* Node shares of schedule(static) across nodes: node k's first logical
 * iteration of `trip` (start[nnodes] = trip), weighted by HCRT_SCHED_CSR x
 * the node's threads; identical for every loop of equal trip count. */
void hcrt__cl_static_split(uint64_t trip, uint64_t *start);
/* Whether HCRT_SCHED_CSR weights static loops (else plain blocks). */
int hcrt__cl_static_weighted(void);

/* Settings: OMP_SCHEDULE=hetprobe[_i][,pct] seen at start-up, and
 * HCRT_SCHED_DEFAULT for schedule(auto). Returns the pool kind (and the
 * OMP_SCHEDULE percentage in *pct, if any), or -1 for "a plain schedule"
 * with *plain set to the KMP schedule to use. */
int hcrt__cl_sched_default(int32_t *plain, int *pct);

/* HCRT_STATS section of the decisions (head). */
void hcrt__cl_sched_stats_init(void);

#endif /* HCRT_CLUSTER_SCHED_H */
