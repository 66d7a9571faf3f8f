/*
 * task_int.h - state shared by the files of task sharing (task_steal.c,
 * task_thief.c, task_region.c) and the messages between nodes.
 */
#ifndef HCRT_TASK_INT_H
#define HCRT_TASK_INT_H

#include <stdint.h>

#include "libhcrt/task_share.h"
#include "sched/task_place.h"

/* Event types (event.h): a thief asks a node for a task; it tells the
 * owner the task is done. */
#define HCRT_TS_EV_STEAL 50
#define HCRT_TS_EV_DONE 51

/* Barrier number of a spread region's end (every thread's last phase). */
#define HCRT_TS_END UINT32_MAX

enum { HCRT_TS_TASK = 1, HCRT_TS_NONE = 2, HCRT_TS_OVER = 3 };

typedef struct hcrt_ts_steal_req {
    uint32_t gen;  /* the spread region (count of them on every rank) */
    uint32_t seq;  /* the barrier the thief waits in (0: a task waits) */
    uint64_t want; /* non-zero: only a task created under the thief's task
                      with this cookie (steal-back by a waiting task) */
} hcrt_ts_steal_req_t;

typedef struct hcrt_ts_steal_rep {
    int32_t status;        /* HCRT_TS_* */
    int32_t kflags;        /* the task's allocation flags */
    uint64_t cookie;       /* the owner's record: generation << 32 | index */
    uint64_t site;         /* hcrt_task_site_t.id */
    uint32_t size, shsize; /* bytes of the task (privates) and shareds,
                              which follow as reply buffers 0 and 1 */
    uint32_t depth;        /* the task's depth on its owner */
    uint32_t worth_depth;  /* its site's tasks travel down to this depth on
                              the owner (hcrt__tp_site_worth_depth) */
} hcrt_ts_steal_rep_t;

typedef struct hcrt_ts_done {
    uint64_t cookie;
    uint64_t run_ns;  /* the task and its descendants on the thief */
    uint64_t cost_ns; /* the steal's own cost: request to start, release */
} hcrt_ts_done_t;

typedef struct hcrt__ts_state {
    /* settings */
    hcrt_tp_params_t params;
    uint32_t ring_cap, nrecs, max_bytes;
    /* this rank */
    int rank, size;
    int started_events;  /* the event system is ours to stop */
    int solo;            /* the spread region's team has one thread */
    uint32_t gen;        /* spread regions begun (atomic) */
    uint32_t passed;     /* the last barrier this node's team passed */
    uint64_t seq;        /* exports so far (atomic) */
    hcrt_tp_mean_t cost; /* the cost of a steal, as thieves report it */
    /* counters (atomic) */
    uint64_t inflight;           /* taken by other nodes, not done */
    uint64_t taken_seq;          /* the newest seq other nodes took */
    uint64_t unsent;             /* solo: taken, data not sent yet */
    uint64_t remote_ns;          /* task time other nodes ran, this region */
    uint64_t remote_ns_total;    /* ... in all */
    uint64_t served_req, served; /* steal requests served / with a task */
    uint64_t asked, got, over;   /* as a thief: requests, tasks, OVERs */
    uint64_t stolen_ns;          /* as a thief: time in stolen tasks */
    uint64_t steal_rtt_ns;       /* as a thief: request round trips */
} hcrt__ts_state_t;

extern hcrt__ts_state_t hcrt__ts;

double hcrt__ts_steal_cost(void);
/* The task another node runs that this thread's tasks are created under
 * (the origin of this node's records; 0: none). */
typedef struct hcrt_ts_origin {
    int rank;
    uint64_t cookie;
} hcrt_ts_origin_t;
extern _Thread_local hcrt_ts_origin_t hcrt__ts_origin;
/* Asks rank `v` for a task created under our task `want` and runs it;
 * 1 if it ran one (task_thief.c). */
int hcrt__ts_steal_back(int32_t gtid, int v, uint64_t want);
void hcrt__ts_tables_init(void);
void hcrt__ts_tables_reset(int solo);
void hcrt__ts_tables_end(void);
/* A thread starts a spread region: no frame of held tasks yet. */
void hcrt__ts_frame_reset(void);
/* Calls fn for every registered task site (task_sites.c). */
void hcrt__ts_sites_each(void (*fn)(hcrt_ts_site_t *, void *), void *arg);

#endif /* HCRT_TASK_INT_H */
