/*
 * dred.h - the decisions of the task-based dynamic reduction (internal, no
 * MPI; seed distributed-reduction §1-3, DESIGN.md §9, docs/reduce.md).
 *
 * One `hcrt__dred_t` per reduction instance lives at its scheduler rank.
 * Every participant's "ready" message enters a FIFO queue; the scheduler
 * takes messages two at a time and makes a task of each pair: one holder
 * fetches the other's data and folds it (the root's pairs go to the root,
 * otherwise the holder whose last reduction tasks ran faster, by the
 * per-rank performance counter `hcrt__dred_perf_t`). A finished task is a
 * new ready message whose path is the union of the two. The instance is
 * done when a message at the root covers every participant.
 *
 * Data is named by items: item 0 of a rank is its own contribution (raw,
 * then its running partial); item 1 + k is rank k's raw input as a buddy
 * replica holds it (or k itself, re-read); a task's result gets a fresh id
 * when its holder side was a raw item. Without failures only item 0 exists.
 *
 * Failures (seed §3): `hcrt__dred_fail` removes a rank. A message it held
 * in the queue, or the task it was running (case 1/2) or feeding (case 3),
 * is recovered: the survivor's latest message goes back to the queue and
 * the lost path is split into single-rank messages flagged for recovery,
 * each served from the rank's own raw input if it is alive, else from its
 * buddy's replica if that was complete. When a contribution exists
 * nowhere the instance ends with an exact status (the rank lost, why).
 */
#ifndef HCRT_SCHED_DRED_H
#define HCRT_SCHED_DRED_H

#include <stdint.h>

#include "hcrt/hcrt.h"

/* Per-rank performance counter: the cost of each rank's recent reduction
 * tasks, ns per byte, shared by every instance a scheduler runs. */
typedef struct hcrt__dred_perf {
    int nranks;
    double alpha;     /* weight of the newest task (1: the last only) */
    double *ns_per_b; /* 0: never measured */
} hcrt__dred_perf_t;

hcrt_status_t hcrt__dred_perf_init(hcrt__dred_perf_t *p, int nranks,
                                   double alpha);
void hcrt__dred_perf_fini(hcrt__dred_perf_t *p);
void hcrt__dred_perf_note(hcrt__dred_perf_t *p, int rank, double ns,
                          double bytes);
/* The slowest measured rank's cost over the fastest's (1 if < 2 known). */
double hcrt__dred_perf_spread(const hcrt__dred_perf_t *p);

enum {
    HCRT_DRED_RECOVER = 1, /* a single-rank message rebuilt after a loss */
};

typedef struct hcrt__dred_msg {
    int holder;     /* the rank whose memory has the data */
    int item;       /* which of its items */
    uint32_t flags; /* HCRT_DRED_RECOVER */
    uint64_t *path; /* bitset of the ranks whose inputs it folds */
    int npath;
} hcrt__dred_msg_t;

/* One fold: `holder` fetches `giver`'s item and folds it into its own
 * `holder_item`; the result is its item `out_item`. giver == holder is a
 * local fold (both items on one rank). */
typedef struct hcrt__dred_task {
    int id;
    int holder, holder_item;
    int giver, giver_item;
    int out_item;
    uint32_t flags; /* HCRT_DRED_RECOVER if either side was rebuilt */
} hcrt__dred_task_t;

typedef enum hcrt_dred_state {
    HCRT_DRED_RUNNING = 0,
    HCRT_DRED_DONE = 1,      /* the root's item `final_item` has it all */
    HCRT_DRED_LOST = 2,      /* a contribution exists nowhere: lost_rank */
    HCRT_DRED_ROOT_LOST = 3, /* the root failed */
} hcrt_dred_state_t;

/* What the tree that formed looked like: one row per task. */
typedef struct hcrt__dred_log {
    int holder, giver, npath; /* npath: ranks in the result */
} hcrt__dred_log_t;

typedef struct hcrt__dred {
    int nranks, root, words;
    hcrt__dred_perf_t *perf; /* not owned; NULL: first come, first holder */

    hcrt__dred_msg_t *queue; /* FIFO ring of ready messages */
    int qhead, qlen, qcap;

    hcrt__dred_task_t *tasks; /* tasks handed out and not yet done */
    hcrt__dred_msg_t *tmsg;   /* each task's two messages (2 per task) */
    int ntasks, tcap, next_task, next_item;

    uint8_t *arrived, *failed, *replica; /* per rank */
    int *buddy;                          /* where rank k's replica lives */

    int nparts;   /* participants: nranks less the ranks excluded */
    int excluded; /* the first rank excluded at the start, or -1 */

    hcrt_dred_state_t state;
    int final_item, lost_rank;
    const char *why; /* the state's reason, for users */
    int recovered;   /* inputs rebuilt from a raw copy or replica */

    hcrt__dred_log_t *log;
    int nlog, logcap;
} hcrt__dred_t;

hcrt_status_t hcrt__dred_init(hcrt__dred_t *d, int nranks, int root,
                              hcrt__dred_perf_t *perf);
void hcrt__dred_fini(hcrt__dred_t *d);

/* `rank` was lost before the instance began: it takes no part, and the
 * instance folds the others' inputs (the root: ROOT_LOST). */
void hcrt__dred_exclude(hcrt__dred_t *d, int rank);
/* Rank `rank` called the reduction: its item 0 is ready. */
hcrt_status_t hcrt__dred_arrive(hcrt__dred_t *d, int rank);
/* Its raw input is now also held by `buddy` (the replica is complete). */
void hcrt__dred_replica_done(hcrt__dred_t *d, int rank, int buddy);
/* The next task to hand out, if two messages wait: 1 and *t set, else 0.
 * Also moves the state to DONE when the root holds everything. */
int hcrt__dred_next(hcrt__dred_t *d, hcrt__dred_task_t *t);
/* Task `id` finished after `ns` on its holder, folding `bytes`. */
hcrt_status_t hcrt__dred_task_done(hcrt__dred_t *d, int id, double ns,
                                   double bytes);
/* Task `id`'s holder could not fetch its giver's data (the giver failed,
 * case 3): the holder's message goes back, the giver's path is split. The
 * holder says so, not the failure notice: a fetch that completed just
 * before the giver died was folded, and its task ends in task_done. */
void hcrt__dred_task_failed(hcrt__dred_t *d, int id);
/* `rank` failed: recover what it held (seed §3) - its queued messages and
 * the tasks it ran (cases 1-2) - or end the instance with LOST /
 * ROOT_LOST. Tasks it fed wait for their holder's task_failed/done. */
void hcrt__dred_fail(hcrt__dred_t *d, int rank);

/* The default buddy of rank k among n: the next rank. */
static inline int hcrt__dred_buddy(int k, int n)
{
    return (k + 1) % n;
}

#endif /* HCRT_SCHED_DRED_H */
