/*
 * tasks.c - explicit tasks, dependences, taskwait/taskgroup, taskloop and
 * task reductions.
 *
 * One node: libomp's tasking. Across nodes, target tasks go to offload/
 * and the tasks of spread TASKS regions may run on other nodes
 * (task_share.h, docs/tasks.md).
 */
#include <stdlib.h>
#include <string.h>

#include "base/kmp_abi.h"
#include "base/log.h"
#include "libhcrt/core.h"
#include "libhcrt/offload/ofl_exec.h"
#include "libhcrt/task_share.h"

/*
 * Untied tasks run to completion on the thread that starts them (a
 * conforming choice, and libgomp's). clang splits an untied task's body into
 * parts and, at each task scheduling point, re-enqueues the task itself with
 * __kmpc_omp_task and returns; libomp 19 deadlocks on those re-enqueues when
 * untied tasks nest in taskgroups at 3+ threads (every thread yields in
 * __kmpc_end_taskgroup; 24 of 30 runs of a 2^11-task tree hung), and aborts
 * on an if(0) untied task that creates tasks (td_last_tied is NULL). So an
 * untied task is allocated tied, and its routine becomes ext_entry, which
 * runs the parts in a loop: a re-enqueue of the task it is running only
 * asks for the next part. libomp sees a tied task that never suspends.
 *
 * The same extension carries what task sharing needs (task_share.h): the
 * site of a task that is timed or may run on another node, and its record.
 */
#define KMP_TASK_TIED 0x1

typedef struct untied_frame {
    void *task;
    int resubmit;
    struct untied_frame *up;
} untied_frame_t;

static _Thread_local untied_frame_t *untied_top;

/* libomp's kmp_task_t starts {shareds, routine, part_id, ...} and its
 * shareds block follows the task (and its privates) directly. The extension
 * sits in the room added between the two, just below task->shareds, also
 * in the copies taskloop makes. */
typedef struct {
    char *shareds;
    hcrt_task_entry_t routine;
} kmp_task_head_t;

#define KMP_TASK_HEAD 40 /* sizeof(kmp_task_t) */

static int32_t ext_entry(int32_t gtid, void *task);

hcrt_task_ext_t *hcrt__task_ext(void *task)
{
    kmp_task_head_t *t = task;
    if (t->routine != ext_entry)
        return NULL;
    return (hcrt_task_ext_t *)(t->shareds - sizeof(hcrt_task_ext_t));
}

static void run_parts(int32_t gtid, void *task, hcrt_task_entry_t real)
{
    untied_frame_t f = {task, 0, untied_top};
    untied_top = &f;
    do {
        f.resubmit = 0;
        real(gtid, task);
    } while (f.resubmit);
    untied_top = f.up;
}

_Thread_local uint32_t hcrt__ts_depth;

void hcrt__task_run_body(int32_t gtid, void *task, hcrt_task_ext_t *ext)
{
    uint64_t t0 = ext->site ? hcrt__now_ns() : 0;
    int framed = hcrt__ts_need_frame();
    uint64_t saved = framed ? hcrt__ts_frame_push() : 0;
    uint32_t depth = hcrt__ts_depth;

    hcrt__ts_depth = ext->depth;

    if (ext->mode & HCRT_EXT_UNTIED)
        run_parts(gtid, task, ext->real);
    else
        ext->real(gtid, task);
    hcrt__ts_depth = depth;
    if (framed)
        hcrt__ts_frame_pop(saved);
    if (ext->site)
        hcrt__tp_site_time(&ext->site->tp, ext->depth, hcrt__now_ns() - t0);
}

static int32_t ext_entry(int32_t gtid, void *task)
{
    hcrt_task_ext_t *ext = hcrt__task_ext(task);

    if ((ext->mode & HCRT_EXT_EXPORT) && ext->rec && !hcrt__ts_claim(ext))
        return 0; /* another node ran it (solo teams: runs it) */
    hcrt__task_run_body(gtid, task, ext);
    if ((ext->mode & HCRT_EXT_EXPORT) && ext->rec)
        hcrt__ts_ran_here(ext);
    return 0;
}

/* A task with the extension: room for it between privates and shareds
 * (a shareds block of at least one byte, so task->shareds is set). */
static void *alloc_ext(hcrt_ident_t *loc, int32_t gtid, int32_t flags,
                       int32_t kflags, size_t sizeof_task,
                       size_t sizeof_shareds, hcrt_task_entry_t entry,
                       uint32_t mode, hcrt_ts_site_t *site, uint32_t depth)
{
    size_t slot = (sizeof_task + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
    size_t room = slot + sizeof(hcrt_task_ext_t);
    char *task = __kmpc_omp_task_alloc(
        loc, gtid, flags, room, sizeof_shareds ? sizeof_shareds : 1, ext_entry);
    if (((kmp_task_head_t *)task)->shareds != task + room)
        hcrt_fatal(HCRT_MOD_CORE,
                   "libomp's task layout is not the one hcc was built for "
                   "(shareds at %td, expected %zu); rebuild hcc against "
                   "this libomp",
                   ((kmp_task_head_t *)task)->shareds - task, room);
    hcrt_task_ext_t *ext = (hcrt_task_ext_t *)(task + slot);
    *ext = (hcrt_task_ext_t){entry,
                             site,
                             0,
                             (uint16_t)mode,
                             (uint16_t)kflags,
                             (uint32_t)sizeof_task,
                             (uint32_t)sizeof_shareds,
                             depth};
    return task;
}

HCRT_ABI_EXPORT void *__hcrt_omp_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                            int32_t flags, size_t sizeof_task,
                                            size_t sizeof_shareds,
                                            hcrt_task_entry_t entry)
{
    uint32_t mode = (flags & KMP_TASK_TIED) ? 0 : HCRT_EXT_UNTIED;
    hcrt_ts_site_t *site = NULL;
    uint32_t depth = 0;

    if (HCRT_UNLIKELY(hcrt__ts_spread)) { /* may travel: task_steal.c */
        depth = hcrt__ts_depth + 1;
        mode |= hcrt__ts_alloc_mode(entry, flags, sizeof_task, sizeof_shareds,
                                    depth, &site);
    }
    if (!mode)
        return __kmpc_omp_task_alloc(loc, gtid, flags, sizeof_task,
                                     sizeof_shareds, entry);
    return alloc_ext(loc, gtid, flags | KMP_TASK_TIED, flags, sizeof_task,
                     sizeof_shareds, entry, mode, site, depth);
}

void *hcrt__task_alloc_copy(int32_t gtid, int32_t flags, const void *task,
                            size_t size, const void *shareds, size_t shsize,
                            hcrt_task_entry_t entry, uint32_t depth)
{
    static hcrt_ident_t loc = {0, 2, 0, 0, ";unknown;stolen task;0;0;;"};
    uint32_t mode = (flags & KMP_TASK_TIED) ? 0 : HCRT_EXT_UNTIED;
    char *t = alloc_ext(&loc, gtid, flags | KMP_TASK_TIED, flags, size, shsize,
                        entry, mode, NULL, depth);

    /* data2 (priority) and the privates; part_id starts at 0 */
    memcpy(t + 32, (const char *)task + 32, size - 32);
    memcpy(((kmp_task_head_t *)t)->shareds, shareds, shsize);
    return t;
}

HCRT_ABI_EXPORT void *
__hcrt_omp_target_task_alloc(hcrt_ident_t *loc, int32_t gtid, int32_t flags,
                             size_t sizeof_task, size_t sizeof_shareds,
                             hcrt_task_entry_t entry, int64_t device_id)
{
    if (hcrt__offload_ndev() > 0) /* target offload: detachable (offload/) */
        return hcrt__offload_target_task_alloc(
            loc, gtid, flags, sizeof_task, sizeof_shareds, entry, device_id);
    return __kmpc_omp_target_task_alloc(loc, gtid, flags, sizeof_task,
                                        sizeof_shareds, entry, device_id);
}

/* A task given to libomp in a solo team of a spread region runs at once,
 * inside the call: it is a frame of its own (task_share.h), one task
 * deeper (a task with the extension sets its own depth). */
static int32_t submit_framed(hcrt_ident_t *loc, int32_t gtid, void *task,
                             int32_t ndeps, hcrt_depend_info_t *deps,
                             int32_t ndeps_noalias, hcrt_depend_info_t *noalias)
{
    uint64_t frame = hcrt__ts_frame_push();
    uint32_t depth = hcrt__ts_depth++;
    int32_t r = ndeps || ndeps_noalias
                    ? __kmpc_omp_task_with_deps(loc, gtid, task, ndeps, deps,
                                                ndeps_noalias, noalias)
                    : __kmpc_omp_task(loc, gtid, task);
    hcrt__ts_depth = depth;
    hcrt__ts_frame_pop(frame);
    return r;
}

HCRT_ABI_EXPORT int32_t __hcrt_omp_task(hcrt_ident_t *loc, int32_t gtid,
                                        void *task)
{
    if (untied_top && untied_top->task == task) { /* next part of its body */
        untied_top->resubmit = 1;
        return 0;
    }
    if (HCRT_UNLIKELY(hcrt__ts_spread)) {
        hcrt_task_ext_t *ext = hcrt__task_ext(task);
        if (ext && (ext->mode & HCRT_EXT_EXPORT))
            return hcrt__ts_submit(loc, gtid, task, ext, 0, NULL, 0, NULL);
        return submit_framed(loc, gtid, task, 0, NULL, 0, NULL);
    }
    return __kmpc_omp_task(loc, gtid, task);
}

HCRT_ABI_EXPORT int32_t __hcrt_omp_task_with_deps(hcrt_ident_t *loc,
                                                  int32_t gtid, void *task,
                                                  int32_t ndeps,
                                                  hcrt_depend_info_t *deps,
                                                  int32_t ndeps_noalias,
                                                  hcrt_depend_info_t *noalias)
{
    if (hcrt__offload_ndev() > 0) /* a target task's depend list (offload/) */
        hcrt__offload_task_deps(task, ndeps, deps, ndeps_noalias, noalias);
    if (HCRT_UNLIKELY(hcrt__ts_spread)) {
        hcrt_task_ext_t *ext = hcrt__task_ext(task);
        if (ext && (ext->mode & HCRT_EXT_EXPORT))
            return hcrt__ts_submit(loc, gtid, task, ext, ndeps, deps,
                                   ndeps_noalias, noalias);
        return submit_framed(loc, gtid, task, ndeps, deps, ndeps_noalias,
                             noalias);
    }
    return __kmpc_omp_task_with_deps(loc, gtid, task, ndeps, deps,
                                     ndeps_noalias, noalias);
}

HCRT_ABI_EXPORT void __hcrt_omp_wait_deps(hcrt_ident_t *loc, int32_t gtid,
                                          int32_t ndeps,
                                          hcrt_depend_info_t *deps,
                                          int32_t ndeps_noalias,
                                          hcrt_depend_info_t *noalias)
{
    __kmpc_omp_wait_deps(loc, gtid, ndeps, deps, ndeps_noalias, noalias);
}

HCRT_ABI_EXPORT void
__hcrt_omp_taskwait_deps_51(hcrt_ident_t *loc, int32_t gtid, int32_t ndeps,
                            hcrt_depend_info_t *deps, int32_t ndeps_noalias,
                            hcrt_depend_info_t *noalias, int32_t nowait)
{
    __kmpc_omp_taskwait_deps_51(loc, gtid, ndeps, deps, ndeps_noalias, noalias,
                                nowait);
}

/* An undeferred task: clang calls its real entry once, directly, between
 * these two. An untied one gets the parts it asks for run before it
 * completes; in a spread region its body is a frame of held tasks. */
typedef struct if0_frame {
    untied_frame_t u; /* on untied_top while it runs */
    int untied;
    uint64_t ts_frame;
} if0_frame_t;

HCRT_ABI_EXPORT void __hcrt_omp_task_begin_if0(hcrt_ident_t *loc, int32_t gtid,
                                               void *task)
{
    hcrt_task_ext_t *ext = hcrt__task_ext(task);
    int untied = ext && (ext->mode & HCRT_EXT_UNTIED);

    if (untied || HCRT_UNLIKELY(hcrt__ts_spread)) {
        if0_frame_t *f = malloc(sizeof *f);
        if (!f)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory starting an if(0) task");
        *f = (if0_frame_t){{task, 0, untied_top}, untied, 0};
        if (HCRT_UNLIKELY(hcrt__ts_spread))
            f->ts_frame = hcrt__ts_frame_push();
        untied_top = &f->u;
    }
    __kmpc_omp_task_begin_if0(loc, gtid, task);
}

HCRT_ABI_EXPORT void __hcrt_omp_task_complete_if0(hcrt_ident_t *loc,
                                                  int32_t gtid, void *task)
{
    if0_frame_t *f = (if0_frame_t *)untied_top;
    if (f && f->u.task == task) {
        if (f->untied) {
            hcrt_task_entry_t real = hcrt__task_ext(task)->real;
            while (f->u.resubmit) {
                f->u.resubmit = 0;
                real(gtid, task);
            }
        }
        if (HCRT_UNLIKELY(hcrt__ts_spread))
            hcrt__ts_frame_pop(f->ts_frame);
        untied_top = f->u.up;
        free(f);
    }
    __kmpc_omp_task_complete_if0(loc, gtid, task);
}

HCRT_ABI_EXPORT int32_t __hcrt_omp_taskwait(hcrt_ident_t *loc, int32_t gtid)
{
    if (HCRT_UNLIKELY(hcrt__ts_spread))
        hcrt__ts_wait(gtid, 0);
    return __kmpc_omp_taskwait(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_omp_taskyield(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t end_part)
{
    if (HCRT_UNLIKELY(hcrt__ts_spread))
        hcrt__ts_drain(gtid, 0);
    return __kmpc_omp_taskyield(loc, gtid, end_part);
}

HCRT_ABI_EXPORT void __hcrt_taskgroup(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_taskgroup(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_taskgroup(hcrt_ident_t *loc, int32_t gtid)
{
    if (HCRT_UNLIKELY(hcrt__ts_spread))
        hcrt__ts_wait(gtid, 0);
    __kmpc_end_taskgroup(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_taskloop(hcrt_ident_t *loc, int32_t gtid,
                                     void *task, int32_t if_val, uint64_t *lb,
                                     uint64_t *ub, int64_t st, int32_t nogroup,
                                     int32_t sched, uint64_t grainsize,
                                     void *task_dup)
{
    hcrt__ts_local_only++; /* libomp waits for the loop's tasks itself */
    __kmpc_taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched,
                    grainsize, task_dup);
    hcrt__ts_local_only--;
}

HCRT_ABI_EXPORT void __hcrt_taskloop_5(hcrt_ident_t *loc, int32_t gtid,
                                       void *task, int32_t if_val, uint64_t *lb,
                                       uint64_t *ub, int64_t st,
                                       int32_t nogroup, int32_t sched,
                                       uint64_t grainsize, int32_t modifier,
                                       void *task_dup)
{
    hcrt__ts_local_only++;
    __kmpc_taskloop_5(loc, gtid, task, if_val, lb, ub, st, nogroup, sched,
                      grainsize, modifier, task_dup);
    hcrt__ts_local_only--;
}

HCRT_ABI_EXPORT void *__hcrt_taskred_init(int32_t gtid, int32_t num, void *data)
{
    return __kmpc_taskred_init(gtid, num, data);
}

HCRT_ABI_EXPORT void *__hcrt_taskred_modifier_init(hcrt_ident_t *loc,
                                                   int32_t gtid, int32_t is_ws,
                                                   int32_t num, void *data)
{
    return __kmpc_taskred_modifier_init(loc, gtid, is_ws, num, data);
}

HCRT_ABI_EXPORT void __hcrt_task_reduction_modifier_fini(hcrt_ident_t *loc,
                                                         int32_t gtid,
                                                         int32_t is_ws)
{
    __kmpc_task_reduction_modifier_fini(loc, gtid, is_ws);
}

HCRT_ABI_EXPORT void *__hcrt_task_reduction_get_th_data(int32_t gtid, void *tg,
                                                        void *d)
{
    return __kmpc_task_reduction_get_th_data(gtid, tg, d);
}
