/*
 * hetprobe_int.h - internals shared by hetprobe*.c: ordered lists of
 * iteration segments and the scheduler's state.
 */
#ifndef HCRT_SCHED_HETPROBE_INT_H
#define HCRT_SCHED_HETPROBE_INT_H

#include <stdint.h>

#include "sched/hetprobe.h"

/* ---- segment lists (hetprobe_seg.c) ------------------------------------ */

/* Logical iterations [begin, end), begin < end. */
typedef struct hcrt__hetprobe_seg {
    uint64_t begin, end;
} hcrt__hetprobe_seg_t;

/* An ordered list of disjoint segments, consumed from the front (head) and
 * appended at the back. After a HetProbe-I re-split a node's work is such a
 * list: the gaps between segments are the "jumps" of the iteration space. */
typedef struct hcrt__hetprobe_segq {
    hcrt__hetprobe_seg_t *v;
    int64_t head, len, cap; /* live segments are v[head .. len) */
    uint64_t count;         /* iterations in the list */
} hcrt__hetprobe_segq_t;

void hcrt__hetprobe_segq_fini(hcrt__hetprobe_segq_t *q);
void hcrt__hetprobe_segq_clear(hcrt__hetprobe_segq_t *q);
/* Appends [b, e), merging with the last segment when adjacent. */
hcrt_status_t hcrt__hetprobe_segq_push(hcrt__hetprobe_segq_t *q, uint64_t b,
                                       uint64_t e);
/* Moves the first `n` iterations (n <= count) to the back of dst (dst may
 * be NULL: dropped). */
hcrt_status_t hcrt__hetprobe_segq_move(hcrt__hetprobe_segq_t *src, uint64_t n,
                                       hcrt__hetprobe_segq_t *dst);
/* Takes at most `n` iterations from the front, without crossing a jump:
 * the other half of a segment is left for the next call. */
int hcrt__hetprobe_segq_take(hcrt__hetprobe_segq_t *q, uint64_t n,
                             hcrt__hetprobe_seg_t *out);
/* Empties the `nq` lists into dst (which must be empty or one of them),
 * in increasing order: the remainder of a HetProbe-I window. */
hcrt_status_t hcrt__hetprobe_segq_merge(hcrt__hetprobe_segq_t *const *qs,
                                        int nq, hcrt__hetprobe_segq_t *dst);

/* ---- the scheduler (hetprobe.c) ---------------------------------------- */

typedef enum hcrt__hetprobe_phase {
    HCRT_HP_PHASE_PROBE = 0, /* probe slices out, waiting for measurements */
    HCRT_HP_PHASE_RUN = 1    /* a decision is in force */
} hcrt__hetprobe_phase_t;

typedef struct hcrt__hetprobe_thread {
    uint64_t quota; /* probe iterations still to hand to this thread */
    int done;       /* told DONE: must never get work again */
} hcrt__hetprobe_thread_t;

typedef struct hcrt__hetprobe_node {
    int threads;
    int thread_off;              /* into hp->thr */
    double prior;                /* CSR before any measurement */
    double est;                  /* CSR estimate sizing the next probe slice */
    hcrt__hetprobe_segq_t probe; /* probe slice of the current window */
    hcrt__hetprobe_segq_t queue; /* iterations given by the decision in force */
    uint64_t probe_left;         /* probe iterations not yet completed */
    int counters_in;             /* counters for this window received */
    /* measurements of the current probe window */
    double win_time;
    uint64_t win_iters;
    uint64_t faults;
    double period_us, cmpki;
    /* whole-run measurements */
    double run_time;
    uint64_t run_iters;
} hcrt__hetprobe_node_t;

struct hcrt__hetprobe {
    hcrt__hetprobe_params_t p;
    int nnodes;
    int total_threads;
    uint64_t trip;
    hcrt__hetprobe_node_t *node;
    hcrt__hetprobe_thread_t *thr;
    hcrt__hetprobe_segq_t pool; /* neither probe slice nor node queue */
    hcrt__hetprobe_phase_t phase;
    int window;            /* probe windows started so far - 1 */
    int reprobe_ok;        /* HetProbe-I and the remainder is large */
    int reprobe_pending;   /* waiting for outstanding chunks to re-probe */
    uint64_t window_iters; /* HetProbe-I: iterations per window */
    uint64_t min_reprobe;  /* HetProbe-I: smallest remainder re-probed */
    uint64_t handed_since; /* handed out since the decision in force */
    uint64_t handed, completed, outstanding;
    uint64_t epoch;
    hcrt__hetprobe_decision_t *dec; /* every decision, in order */
    int ndec, deccap;
    hcrt__hetprobe_node_meas_t *obs; /* [nnodes] observation for the cache */
    int obs_probed;
};

/* Allocates the per-node arrays of a decision (hetprobe_decide.c). */
hcrt_status_t hcrt__hetprobe_decision_alloc(hcrt__hetprobe_decision_t *d,
                                            int nnodes, int with_meas);
void hcrt__hetprobe_decision_free(hcrt__hetprobe_decision_t *d);
/* Deep copy (dst's arrays allocated here). */
hcrt_status_t
hcrt__hetprobe_decision_copy(hcrt__hetprobe_decision_t *dst,
                             const hcrt__hetprobe_decision_t *src);

#endif /* HCRT_SCHED_HETPROBE_INT_H */
