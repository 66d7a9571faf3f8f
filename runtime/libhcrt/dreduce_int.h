/*
 * dreduce_int.h - state shared by dreduce.c (the ranks' side),
 * dreduce_sched.c (the scheduler's side) and dreduce_stats.c.
 */
#ifndef HCRT_DREDUCE_INT_H
#define HCRT_DREDUCE_INT_H

#include <pthread.h>

#include "base/bell.h"
#include "libhcrt/dreduce.h"
#include "libhcrt/dreduce_omp.h"
#include "sched/dred.h"

#define DR_TAG_REP 0 /* REPLICA reports (read before a loss is applied) */
#define DR_TAG_CTL 1
#define DR_TAG_DATA0 2
/* data tags: DR_TAG_DATA0 + (id % span) * tasks + task % tasks (a rank
 * may fetch several items of one instance after a recovery) */
#define DR_TAG_SPAN 4096
#define DR_TAG_TASKS 4096
#define DR_REP_SPAN (1 << 20) /* replica tags (their own comm): id % span */
#define DR_REP_SPAN_MIN 256   /* ... at least (MPI_TAG_UB / ranks) */

/* Kinds up to CTL_REPLICA go to the scheduler, the others to the ranks. */
enum {
    CTL_READY,
    CTL_DONE,
    CTL_FAILED,
    CTL_REPLICA,
    CTL_TASK,
    CTL_GIVE,
    CTL_END
};

/* A control message (ranks <-> scheduler). */
/* a, b: TASK: task id, giver; GIVE: holder, task id; END: lost, hint;
 * DONE/FAILED: task id; REPLICA: the rank whose input `rank` holds;
 * READY: b = the buddy its replica goes to, or -1.
 * hitem, gitem, oitem: TASK: the holder's, the giver's and the result's
 * items; GIVE: gitem; END: hitem = the final item, gitem = 1 when the
 * root has a result. */
typedef struct dr_ctl {
    uint32_t kind, id;
    int32_t rank, root;
    int32_t a, b;
    int32_t status; /* END: hcrt_status_t */
    int32_t extra;  /* END: inputs recovered */
    int32_t hitem, gitem, oitem;
    double ns;       /* DONE: the task's time on the holder */
    uint64_t bytes;  /* READY: partial size; DONE: bytes folded */
    uint64_t window; /* READY: what the OpenMP decision looks at */
    char why[96];    /* END: the reason, in words */
} dr_ctl_t;

enum { ACT_NONE, ACT_GIVE, ACT_FETCH };

/* One action the scheduler gave this rank in an instance. */
typedef struct dr_act {
    int kind, task, peer;
    int hitem, gitem, oitem;
    MPI_Request req;
    void *rbuf;
    size_t rlen, rcap;
    uint64_t t0;
} dr_act_t;

/* An item of this rank other than 0 and its raw input: a result of
 * folding into a raw item after a recovery (owned). */
typedef struct dr_item {
    int id;
    void *buf;
    size_t len;
} dr_item_t;

struct hcrt__dr {
    uint32_t id;
    int root;
    const hcrt__dr_ops_t *ops;
    void *ctx;
    size_t bytes;
    int ended, hint, lost_rank, recovered;
    hcrt_status_t status;
    const char *why;

    dr_act_t *acts; /* the actions the scheduler gave this rank */
    int nacts, capacts;
    dr_item_t *items;
    int nitems, capitems;
    MPI_Request rep_req; /* FT mode: the raw input to the buddy */
    int rep_peer;
    uint64_t rep_ns; /* when it was sent (HCRT_LOG=core:3 says how long) */
    uint64_t start_ns, end_ns;
    struct hcrt__dr *next;
};

/* The scheduler's side of one instance. */
typedef struct dr_sched {
    uint32_t id;
    int root, ended;
    hcrt__dred_t d;
    uint64_t bytes, max_window, first_ns, last_ns, start_ns;
    int *bud; /* FT mode: where each rank's replica goes (-1: none) */
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

/* ---- FT mode (dreduce_ft.c) ---- */
extern MPI_Comm hcrt__dr_rcomm; /* replicas of raw inputs */
extern uint32_t hcrt__dr_next_id;
hcrt__dr_t *hcrt__dr_find(uint32_t id);
/* This instance takes part in FT mode's recovery (replicas, lost peers). */
int hcrt__dr_ft(const hcrt__dr_t *r);
/* The next live rank after this one (-1: none): this rank's buddy. */
int hcrt__dr_buddy(void);
/* Sends this rank's raw input to its buddy r->rep_peer (start). */
void hcrt__dr_rep_send(hcrt__dr_t *r);
/* 1 when the replica send is done or abandoned (its buddy was lost). */
int hcrt__dr_rep_sent(hcrt__dr_t *r);
/* The replicas' tag: the instance and its root; read back (the id
 * nearest this rank's next one). */
int hcrt__dr_rep_tag(uint32_t id, int root);
void hcrt__dr_rep_tag_read(int tag, uint32_t *id, int *root);
/* The replicas' bell: a sender rings its buddy's replica thread. */
extern hcrt_bell_t hcrt__dr_bell;
extern int hcrt__dr_bell_up;
/* The thread that receives this rank's replicas (dreduce_rep.c). */
void hcrt__dr_rep_thread_start(void);
/* Stops it and frees the replicas (shutdown, before MPI_Finalize). */
void hcrt__dr_rep_fini(void);
/* From the reduction calls (lock held): frees replicas that came after
 * their instance ended here; without the thread, also receives and
 * reports them. */
void hcrt__dr_rep_poll(void);
/* The replica of rank k's raw input for instance id, if complete. */
void *hcrt__dr_rep_get(uint32_t id, int k, size_t *len);
/* An instance freed: its replicas go. */
void hcrt__dr_rep_forget(uint32_t id);
/* Gives up on a request to a lost peer; 1 when MPI may still use its
 * buffer (it did not complete: MPI drops it in the background). */
int hcrt__dr_req_abort(MPI_Request *req);
/* The scheduler's side of a loss (FT mode; dreduce_sched.c). */
void hcrt__dr_sched_losses(void);
/* The scheduler reads the REPLICA reports that came (before a loss). */
void hcrt__dr_poll_replicas(void);
void hcrt__dr_sched_ft_init(void);
/* own_mpi: the runtime finalises MPI (the replica thread may run). */
void hcrt__dr_ft_init(int own_mpi);

/* Statistics of an ended instance at its scheduler. */
void hcrt__dr_stats_note(const dr_sched_t *s, int status, double secs);

#endif /* HCRT_DREDUCE_INT_H */
