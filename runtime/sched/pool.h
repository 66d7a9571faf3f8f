/*
 * pool.h - hierarchical and HetProbe loop schedules over a cluster team
 * (internal; pool.c, hp_*.c; used by libhcrt's cluster_loops.c; the probe
 * exchange's transport: pool_xchg.h).
 *
 * A "pool" is one node's view of one loop instance, shared by the node's
 * threads of that instance (keyed by the construct's sequence number).
 * Iterations are logical indices 0 .. trip-1; the caller maps them back to
 * loop values. The caller describes the team (hcrt__cl_team_t) and owns the
 * loop's DSM word and sequence numbers; the schedulers call nothing above
 * them.
 */
#ifndef HCRT_POOL_H
#define HCRT_POOL_H

#include <stdint.h>

#include "hcrt/abi.h"

typedef enum hcrt__cl_pool_kind {
    HCRT_CLP_DYNAMIC = 0,   /* node pools refilled from a global counter */
    HCRT_CLP_GUIDED = 1,    /* same, decreasing chunks */
    HCRT_CLP_HETPROBE = 2,  /* probe, decide, split the rest */
    HCRT_CLP_HETPROBE_I = 3 /* the same, again every re-probe window */
} hcrt__cl_pool_kind_t;

typedef struct hcrt__cl_pool hcrt__cl_pool_t;

/* The cluster team running the loop, as the caller numbers it. */
typedef struct hcrt__cl_team {
    int nn, me;       /* nodes, this node */
    int local, total; /* threads of this node, of the whole team */
    const int *thr;   /* threads of each node (nn), for HetProbe pools */
} hcrt__cl_team_t;

/* Sequence numbers a loop of `kind` claims after its own (one per probe
 * window: the tags of its exchanges), the same on every thread of every
 * node; the caller reserves them before hcrt__cl_pool_join. */
int hcrt__cl_pool_windows(hcrt__cl_pool_kind_t kind, uint64_t trip, int pct,
                          int total);

/* Joins (or creates, for the node's first thread) this node's pool of the
 * loop instance `seq`. `pct` is a schedule(hetprobe[_i], pct) percentage
 * (0: the setting); `slot` the instance's DSM word (dynamic and guided
 * pools refill from it). Every thread of the node that joins must call
 * hcrt__cl_pool_next until it returns 0. */
hcrt__cl_pool_t *hcrt__cl_pool_join(hcrt_ident_t *loc,
                                    hcrt__cl_pool_kind_t kind, uint32_t seq,
                                    uint64_t trip, uint64_t chunk, int pct,
                                    const hcrt__cl_team_t *team,
                                    uint64_t *slot);
/* 1 when the pool runs every iteration on node 0 by a stable cached
 * HetProbe decision, 0 otherwise (for the caller's note of the loop). */
int hcrt__cl_pool_head_alone(const hcrt__cl_pool_t *p);
/* The calling thread's next chunk [*first, *first + *n); 0 when the thread
 * is done with the loop (it has then left the pool). */
int hcrt__cl_pool_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n);

/* The loop was cancelled: no more iterations for this node (dynamic and
 * guided; HetProbe pools run out their windows). The thread still calls
 * hcrt__cl_pool_next until it returns 0. */
void hcrt__cl_pool_cancel(hcrt__cl_pool_t *p);

/* Node shares of schedule(static) across nodes: node k's first logical
 * iteration of `trip` (start[nn] = trip), weighted by HCRT_SCHED_CSR x the
 * node's threads thr[k]; identical for every loop of equal trip count. */
void hcrt__cl_static_split(uint64_t trip, int nn, const int *thr,
                           uint64_t *start);
/* Whether HCRT_SCHED_CSR weights static loops (else plain blocks). */
int hcrt__cl_static_weighted(void);

/* HCRT_STATS section of the decisions (head). */
void hcrt__cl_sched_stats_init(void);

#endif /* HCRT_POOL_H */
