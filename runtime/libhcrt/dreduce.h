/*
 * dreduce.h - the task-based dynamic reduction across ranks (internal;
 * docs/reduce.md, DESIGN.md §9, seed distributed-reduction §1-3).
 *
 * Each instance is collective over every rank (the k-th instance started
 * on each rank is the same reduction). Its scheduler rank (the head, or
 * id % ranks with HCRT_REDUCE_SCHED=spread) runs sched/dred.c's decisions:
 * ready messages in, tasks out. Data moves giver to holder point to point
 * on the reduction's own communicator; the scheduler never sees it. The
 * end is sent to every rank with the status.
 *
 * Progress happens inside hcrt__dr_progress (called by the waits and tests
 * of the public API and by the OpenMP reduction), under one lock.
 */
#ifndef HCRT_DREDUCE_H
#define HCRT_DREDUCE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hcrt/hcrt.h"

/* What the engine asks of an instance's data. */
typedef struct hcrt__dr_ops {
    /* The bytes to hand to a holder: this rank's partial as it is now. */
    hcrt_status_t (*give)(void *ctx, const void **buf, size_t *len);
    /* The hand-over completed (free what give packed); may be NULL. */
    void (*given)(void *ctx);
    /* Folds `len` received bytes into this rank's partial. */
    hcrt_status_t (*fold)(void *ctx, void *in, size_t len);
    /* Called while waiting (cancellation checks); may be NULL. */
    void (*poll)(void *ctx);
    /* FT mode (docs/reduce.md "Failures"); all NULL: the instance cannot
     * be recovered, and a loss during it ends the job. */
    /* This rank's raw input, unchanged until the instance ends. */
    hcrt_status_t (*raw)(void *ctx, const void **buf, size_t *len);
    /* Folds `len` bytes of `in` into `inout` (another item's buffer). */
    hcrt_status_t (*combine)(void *ctx, void *inout, const void *in,
                             size_t len);
    /* The root has the result: in `buf` (an item other than its partial),
     * or NULL: its partial (as it is, if it folded nothing). */
    void (*result)(void *ctx, const void *buf, size_t len);
} hcrt__dr_ops_t;

typedef struct hcrt__dr hcrt__dr_t;

/* Sets up the communicator (collective; at start-up, before any use).
 * own_mpi: the runtime finalises MPI, so FT mode's replica thread can
 * stop before (hcrt__dr_fini). */
void hcrt__dr_init(MPI_Comm world, int own_mpi);
/* At shutdown, before MPI_Finalize: stops FT mode's replica thread. */
void hcrt__dr_fini(void);
/* Starts this rank's part of the next instance: `bytes` is its partial's
 * size (for the performance counter), `window` what the OpenMP decision
 * for the site's next reduction looks at (its largest over the ranks),
 * `root` gets the result. */
hcrt_status_t hcrt__dr_start(const hcrt__dr_ops_t *ops, void *ctx, size_t bytes,
                             uint64_t window, int root, hcrt__dr_t **out);
/* 1 when the instance ended on this rank (root: its partial is the
 * result), with *status: HCRT_OK, or why not. Makes progress. */
int hcrt__dr_test(hcrt__dr_t *r, hcrt_status_t *status);
/* Waits for the end (every wait bounded by the fault detector). */
hcrt_status_t hcrt__dr_wait(hcrt__dr_t *r);
/* What the end said: the rank whose input was lost (-1: none), inputs
 * recovered, and the reason in words. */
void hcrt__dr_outcome(const hcrt__dr_t *r, int *lost_rank, int *recovered,
                      const char **why);
/* The decision the scheduler sent with the end (OpenMP: the mode of the
 * site's next reduction). */
int hcrt__dr_hint(const hcrt__dr_t *r);
/* Frees an ended instance. */
void hcrt__dr_free(hcrt__dr_t *r);
/* Makes progress on every instance of this rank (lock taken inside). */
void hcrt__dr_progress(void);

/* The measured spread of the ranks' reduction-task costs (slowest over
 * fastest; 1 when unknown) at the head. */
double hcrt__dr_perf_spread(void);

/* Statistics: registered at start-up (HCRT_STATS). */
void hcrt__dr_stats_init(void);

#endif /* HCRT_DREDUCE_H */
