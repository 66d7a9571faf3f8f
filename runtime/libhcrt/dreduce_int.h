/*
 * dreduce_int.h - state shared by dreduce.c (the ranks' side),
 * dreduce_sched.c (the scheduler's side) and dreduce_stats.c.
 */
#ifndef HCRT_DREDUCE_INT_H
#define HCRT_DREDUCE_INT_H

#include <pthread.h>

#include "libhcrt/dreduce.h"
#include "libhcrt/dreduce_omp.h"
#include "sched/dred.h"

#define DR_TAG_CTL 1
#define DR_TAG_DATA0 2
#define DR_TAG_SPAN 30000 /* data tags: DR_TAG_DATA0 + id % span */

enum { CTL_READY, CTL_DONE, CTL_FAILED, CTL_TASK, CTL_GIVE, CTL_END };

/* A control message (ranks <-> scheduler). */
typedef struct dr_ctl {
    uint32_t kind, id;
    int32_t rank, root;
    int32_t a, b;    /* TASK: task id, giver; GIVE: holder; END: lost, hint */
    int32_t status;  /* END: hcrt_status_t */
    int32_t extra;   /* END: inputs recovered */
    double ns;       /* DONE: the task's time on the holder */
    uint64_t bytes;  /* READY: partial size; DONE: bytes folded */
    uint64_t window; /* READY: what the OpenMP decision looks at */
} dr_ctl_t;

enum { ACT_NONE, ACT_GIVE, ACT_FETCH };

struct hcrt__dr {
    uint32_t id;
    int root;
    const hcrt__dr_ops_t *ops;
    void *ctx;
    size_t bytes;
    int ended, hint, lost_rank, recovered;
    hcrt_status_t status;
    const char *why;

    int act, task, peer; /* the action the scheduler gave this rank */
    MPI_Request req;
    void *rbuf;
    size_t rlen, rcap;
    uint64_t t0, start_ns, end_ns;
    struct hcrt__dr *next;
};

/* The scheduler's side of one instance. */
typedef struct dr_sched {
    uint32_t id;
    int root, ended;
    hcrt__dred_t d;
    uint64_t bytes, max_window, first_ns, last_ns, start_ns;
    struct dr_sched *next;
} dr_sched_t;

extern pthread_mutex_t hcrt__dr_lock;
extern MPI_Comm hcrt__dr_comm;
extern int hcrt__dr_rank, hcrt__dr_size;

/* Buffers of at least len bytes (*cap: their size), reused: a fresh
 * multi-MiB malloc costs a page fault per page. get/put with the lock
 * held (folds run under it), release without. */
void *hcrt__dr_buf_get(size_t len, size_t *cap);
void hcrt__dr_buf_put(void *p, size_t cap);
void hcrt__dr_buf_release(void *p, size_t cap);

/* Sends a control message (to itself: handled at once). */
void hcrt__dr_send(int to, const dr_ctl_t *m);
/* The scheduler's handling of READY / DONE / FAILED. */
void hcrt__dr_sched_handle(const dr_ctl_t *m);
/* The scheduler rank of instance `id`. */
int hcrt__dr_sched_rank(uint32_t id);
/* The rank side's handling of TASK / GIVE / END. */
void hcrt__dr_rank_handle(const dr_ctl_t *m);

/* Statistics of an ended instance at its scheduler. */
void hcrt__dr_stats_note(const dr_sched_t *s, int status, double secs);

#endif /* HCRT_DREDUCE_INT_H */
