/*
 * task_share.h - tasks that other nodes' threads take (internal; the
 * design is in docs/tasks.md).
 *
 * In a TASKS region run on every node ("spread"), a task created at the
 * outer level whose site pays for it is *exported*: libomp still owns it
 * (its dependences, taskwait, taskgroup and barriers), and a record of it
 * waits in this node's ring. An idle thread
 * of another node (at a barrier or at the region's end) asks the node for
 * a task; the node's event gate hands over the oldest waiting one, whose
 * data travel by value (its code by site id). The thief runs it in a
 * taskgroup of its own and answers DONE; the owner then acquires, and the
 * task's routine, which waited for DONE, returns: libomp completes it.
 * Whoever claims a record first (a local thread or a thief) runs the task.
 * Tasks with dependences are not exported.
 *
 * Two ways to hold an exported task locally:
 *   - shared: the node's team has several threads: the task is also given
 *     to libomp at once (its routine claims the record first);
 *   - solo: a team of one thread, where libomp would run it at once: the
 *     ring holds it, and the thread runs held tasks (newest first) at its
 *     scheduling points: taskwait, taskgroup end, taskyield, barriers and
 *     the region's end.
 */
#ifndef HCRT_TASK_SHARE_H
#define HCRT_TASK_SHARE_H

#include <mpi.h>
#include <stdint.h>

#include "hcrt/abi.h"
#include "sched/task_place.h"

/* Task sharing is possible in this job (cluster mode, several ranks,
 * HCRT_TASKS_STEAL, the event system up). Set once at start-up. */
extern int hcrt__ts_on;
/* This rank runs a spread TASKS region now. */
extern volatile int hcrt__ts_spread;

/* ---- task sites (task_sites.c) ----------------------------------------- */
typedef struct hcrt_ts_site {
    const hcrt_task_site_t *desc;
    hcrt_tp_site_t tp;     /* durations: sched/task_place.h */
    uint64_t created;      /* tasks made in spread regions (atomic loads
                              and stores: a shared team may lose some) */
    uint64_t exported;     /* of which held for other nodes (atomic) */
    uint64_t ran_remote;   /* of which another node ran (atomic) */
    uint64_t kept_private; /* kept home: data outside the DSM (atomic) */
    uint32_t plain_from;   /* tasks this deep are plain but one in
                              sample_every (0: none): the decision's
                              shortcut, refreshed by the sampled tasks
                              (hcrt__tp_site_plain_from; atomic) */
    int warned;            /* the kept-home notice was printed */
} hcrt_ts_site_t;

hcrt_ts_site_t *hcrt__ts_site_of_entry(hcrt_task_entry_t entry);
hcrt_ts_site_t *hcrt__ts_site_of_id(uint64_t id);
/* Whether every word of [p, p+len) that may be a pointer points to memory
 * valid on every node (DSM memory, or read-only code and data). */
int hcrt__ts_words_travel(const void *p, size_t len);
/* The same for a task's shareds block, whose words are the addresses of
 * its shared variables: also the first words of each shared variable in
 * DSM memory (HCRT_TS_SHARED_PEEK bytes, within its page), where a
 * pointer the task follows is typically kept - a parent task's private
 * array passed down as a pointer argument lives in libomp's task block on
 * the parent's node, not in the DSM. */
#define HCRT_TS_SHARED_PEEK 64
int hcrt__ts_shareds_travel(const void *p, size_t len);

/* ---- the task block extension (tasks.c) ---------------------------------
 * Tasks that hcrt needs to see run (untied ones, timed or exported ones)
 * carry this record just below task->shareds; their routine is ext_entry. */
#define HCRT_EXT_UNTIED 0x1
#define HCRT_EXT_TIMED 0x2  /* its time is measured (ext.site) */
#define HCRT_EXT_EXPORT 0x4 /* it may run on another node */
#define HCRT_EXT_DEPTH 0x8  /* only its depth is tracked (a shared team) */

typedef struct hcrt_task_ext {
    hcrt_task_entry_t real; /* the task's own entry */
    hcrt_ts_site_t *site;   /* timed or exported: its site */
    uint32_t rec;           /* exported: record index + 1 */
    uint16_t mode;          /* HCRT_EXT_* */
    uint16_t kflags;        /* the flags the program allocated it with */
    uint32_t size, shsize;  /* sizeof_task and sizeof_shareds asked for */
    uint32_t depth;         /* tasks enclosing it, itself included */
} hcrt_task_ext_t;

/* The depth of the task the calling thread runs (0: the implicit task) in
 * a spread region: a task it creates is one deeper. Kept by the bodies
 * hcrt runs (tasks with the extension, a solo team's plain tasks, stolen
 * tasks); sched/task_place.h decides by site and depth. */
extern _Thread_local uint32_t hcrt__ts_depth;

/* The extension of `task`, or NULL if it has none. */
hcrt_task_ext_t *hcrt__task_ext(void *task);
/* Runs the body of `task` as its routine would (untied parts, timing). */
void hcrt__task_run_body(int32_t gtid, void *task, hcrt_task_ext_t *ext);
/* A task for a stolen one: allocated here with `flags`, its data copied
 * from the owner's bytes, never exported again by this allocation. */
void *hcrt__task_alloc_copy(int32_t gtid, int32_t flags, const void *task,
                            size_t size, const void *shareds, size_t shsize,
                            hcrt_task_entry_t entry, uint32_t depth);

/* ---- exporting (task_steal.c), on the creating thread ------------------ */
/* Non-zero while the calling thread is inside a construct whose tasks
 * libomp waits for by itself (a taskloop's implicit taskgroup): a task
 * created there stays an ordinary task of this node, never held. */
extern _Thread_local int hcrt__ts_local_only;
/* Whether tasks created by the calling thread may be exported now. */
int hcrt__ts_exporting(void);
/* The HCRT_EXT_* modes for a new task of `entry` (0: a plain task). */
uint32_t hcrt__ts_alloc_mode(hcrt_task_entry_t entry, int32_t flags,
                             size_t size, size_t shsize, uint32_t depth,
                             hcrt_ts_site_t **site);
/* __hcrt_omp_task / _with_deps of a task allocated with HCRT_EXT_EXPORT. */
int32_t hcrt__ts_submit(hcrt_ident_t *loc, int32_t gtid, void *task,
                        hcrt_task_ext_t *ext, int32_t ndeps,
                        hcrt_depend_info_t *deps, int32_t ndeps_noalias,
                        hcrt_depend_info_t *noalias);
/* The routine of an exported task runs: 1 to run the body here, 0 when
 * another node ran it (a shared team's thread waits here for its DONE) or
 * runs it (a solo team's scheduling points wait for it). */
int hcrt__ts_claim(hcrt_task_ext_t *ext);
/* Its body ran here: completes the record. */
void hcrt__ts_ran_here(hcrt_task_ext_t *ext);

/* ---- solo teams: held tasks run at scheduling points ------------------- */
/* Runs (or hands to libomp, if another node took them) the held tasks
 * created since the current task began; all of them when `all`. */
void hcrt__ts_drain(int32_t gtid, int all);
/* The same, then waits until the ones other nodes took are done: what
 * taskwait, taskgroup ends and barriers add in a solo team. */
void hcrt__ts_wait(int32_t gtid, int all);
/* The spread region's team on this node has one thread. */
int hcrt__ts_solo(void);
/* Brackets a task body run on this thread (frames of held tasks). */
uint64_t hcrt__ts_frame_push(void);
void hcrt__ts_frame_pop(uint64_t saved);
/* A plain task given to libomp in a solo team runs at once, inside the
 * call: bracket it as a frame when a spread region runs. */
static inline int hcrt__ts_need_frame(void)
{
    return __builtin_expect(hcrt__ts_spread, 0);
}

/* ---- regions (task_region.c), barriers and steal phases (task_thief.c) - */
void hcrt__ts_register(void);      /* event types, before the events start */
void hcrt__ts_init(MPI_Comm comm); /* after offload init */
void hcrt__ts_fini(void);
/* Head, main thread: whether this call of TASKS region `r` spreads. */
int hcrt__ts_region_decide(const hcrt_region_desc_t *r);
/* Head: a call of TASKS region `r` ended (spread or on the head alone). */
void hcrt__ts_region_done(const hcrt_region_desc_t *r, int spread,
                          uint64_t wall_ns);
/* Every rank: a spread region begins / its local team joined. */
void hcrt__ts_region_begin(void);
void hcrt__ts_region_end(void);
/* Every thread of a spread region: the barrier (libomp barrier, then take
 * other nodes' tasks until every node passed it) and the region's end. */
void hcrt__ts_barrier(hcrt_ident_t *loc, int32_t gtid);
void hcrt__ts_thread_end(int32_t gtid);
/* Per-thread barrier count of the running region (reset at its start). */
void hcrt__ts_thread_begin(void);

#endif /* HCRT_TASK_SHARE_H */
