/*
 * depgraph.h - records the tasks of a head region with their dependences
 * instead of running them, and hands the graph over at a flush point
 * (taskwait, barrier, end of single/region, size bound). See docs/offload.md.
 *
 * Dependences follow libomp (kmp_taskdeps.cpp) exactly: depend items match
 * by base address only (not by overlapping storage), per address an
 * in/mutexinoutset/inoutset group ("set") after the last out, out/inout
 * after the whole last set (or the last out), omp_all_memory after all.
 * Overlapping maps without a depend add no edge (OpenMP does not order
 * them); the data manager keeps the copies coherent regardless.
 */
#ifndef HCRT_OFFLOAD_DEPGRAPH_H
#define HCRT_OFFLOAD_DEPGRAPH_H

#include "libhcrt/offload/offload.h"
#include "sched/heft.h"

/* One recorded task of a batch. Ids are dense, in recording order, which is
 * always a topological order of the edges. */
typedef struct hcrt__dg_task {
    hcrt__ofl_kind_t kind;
    uint64_t kernel;
    double work;
    int pin;
    uint64_t seq;           /* global sequence number across batches */
    int32_t map_off, nmaps; /* into hcrt__dg_batch_t.maps */
    int32_t dep_off, ndeps; /* into hcrt__dg_batch_t.deps (both lists) */
    int32_t mtx_off, nmtx;  /* into hcrt__dg_batch_t.mtx */
    int32_t ext_off, next;  /* into hcrt__dg_batch_t.ext */
} hcrt__dg_task_t;

/* from -> to; `bytes` = overlap of what `from` may write (its maps) with
 * what `to` maps, i.e. the data that flows along the edge (0: ordering). */
typedef struct hcrt__dg_edge {
    int32_t from, to;
    uint64_t bytes;
} hcrt__dg_edge_t;

/* A taken graph. The caller owns it (hcrt__dg_batch_fini). `mtx` lists, per
 * task, the mutexinoutset group ids it belongs to: two tasks sharing an id
 * must not run at the same time (in any order). `ext` lists predecessors
 * recorded in earlier batches (global `seq`), only non-empty after a size
 * bound flush without hcrt__dg_sync. */
typedef struct hcrt__dg_batch {
    int32_t ntasks, nedges, nmaps, ndeps, nmtx, next, nmtx_groups;
    hcrt__dg_task_t *tasks;
    hcrt__dg_edge_t *edges; /* sorted by (to, from) */
    hcrt__ofl_map_t *maps;
    hcrt_depend_info_t *deps;
    int32_t *mtx;
    uint64_t *ext;
} hcrt__dg_batch_t;

typedef struct hcrt__dg hcrt__dg_t;

hcrt_status_t hcrt__dg_create(hcrt__dg_t **out);
void hcrt__dg_destroy(hcrt__dg_t *dg);

/* Records one task; *out_id (may be NULL) gets its id in the batch. */
hcrt_status_t hcrt__dg_record(hcrt__dg_t *dg, const hcrt__ofl_task_desc_t *d,
                              int32_t *out_id);
/* Tasks recorded since the last take (the runtime's size bound). */
int32_t hcrt__dg_pending(const hcrt__dg_t *dg);

/* Hands over the recorded tasks and edges and starts an empty batch. The
 * per-address dependence state is kept, so tasks recorded next still
 * depend on these (as `ext`) until hcrt__dg_sync. */
hcrt_status_t hcrt__dg_take(hcrt__dg_t *dg, hcrt__dg_batch_t *out);
/* Forgets all dependence state: call once every recorded task finished
 * (after taskwait or barrier), as libomp's dependence hash dies with them. */
void hcrt__dg_sync(hcrt__dg_t *dg);

void hcrt__dg_batch_fini(hcrt__dg_batch_t *b);
/* Whether the batch has the edge from -> to (binary search). */
int hcrt__dg_batch_has_edge(const hcrt__dg_batch_t *b, int32_t from,
                            int32_t to);

/* ---- feeding HEFT -------------------------------------------------------- */

/* Location of a buffer before the batch runs, for HEFT's data items: fills
 * up to `max` nodes holding a valid copy of [begin, begin + size) and
 * returns how many (0: only the host has it, i.e. the head). */
typedef int (*hcrt__dg_holders_cb)(void *arg, const void *begin, int64_t size,
                                   int *nodes, int max);

/* Builds the HEFT task graph of `b` into `tg` (cleared first; same node
 * count as the cost model): one HEFT task per recorded task with the same
 * id, host tasks pinned to node 0, data tasks free of cost, edges with
 * their bytes, and, for each task that reads mapped data no earlier task
 * of the batch wrote, a data item at its current holders (`holders` may be
 * NULL: the head). */
hcrt_status_t hcrt__dg_build_taskgraph(const hcrt__dg_batch_t *b,
                                       hcrt__taskgraph_t *tg,
                                       hcrt__dg_holders_cb holders, void *arg);

/* After placement: moves each enter/update data task onto the node of the
 * first later kernel of the batch whose maps overlap its own (OMPC: a data
 * task goes with the task that uses its data); exit data tasks stay where
 * placed (the data manager picks their source anyway). */
void hcrt__dg_colocate(const hcrt__dg_batch_t *b, int32_t *node);

#endif /* HCRT_OFFLOAD_DEPGRAPH_H */
