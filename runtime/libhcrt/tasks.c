/*
 * tasks.c - explicit tasks, dependences, taskwait/taskgroup, taskloop and
 * task reductions.
 *
 * One node: libomp's tasking. The cluster runtime records head-region tasks
 * into a graph here instead of running them at once.
 */
#include <stdlib.h>
#include <string.h>

#include "base/kmp_abi.h"
#include "base/log.h"
#include "libhcrt/core.h"
#include "libhcrt/offload/ofl_exec.h"

/*
 * Untied tasks run to completion on the thread that starts them (a
 * conforming choice, and libgomp's). clang splits an untied task's body into
 * parts and, at each task scheduling point, re-enqueues the task itself with
 * __kmpc_omp_task and returns; libomp 19 deadlocks on those re-enqueues when
 * untied tasks nest in taskgroups at 3+ threads (every thread yields in
 * __kmpc_end_taskgroup; 24 of 30 runs of a 2^11-task tree hung), and aborts
 * on an if(0) untied task that creates tasks (td_last_tied is NULL). So an
 * untied task is allocated tied, and its entry becomes untied_entry, which
 * runs the parts in a loop: a re-enqueue of the task it is running only
 * asks for the next part. libomp sees a tied task that never suspends.
 */
#define KMP_TASK_TIED 0x1

typedef struct untied_frame {
    void *task;
    int resubmit;
    struct untied_frame *up;
} untied_frame_t;

static _Thread_local untied_frame_t *untied_top;

/* libomp's kmp_task_t starts {shareds, routine, part_id, ...} and its
 * shareds block follows the task (and its privates) directly. The real
 * entry is kept in one extra pointer-sized slot between the two, so it sits
 * just below task->shareds, also in the copies taskloop makes. */
typedef struct {
    char *shareds;
    hcrt_task_entry_t routine;
} kmp_task_head_t;

static hcrt_task_entry_t untied_real(void *task)
{
    hcrt_task_entry_t real;
    memcpy(&real, ((kmp_task_head_t *)task)->shareds - sizeof real,
           sizeof real);
    return real;
}

static int32_t untied_entry(int32_t gtid, void *task)
{
    untied_frame_t f = {task, 0, untied_top};
    hcrt_task_entry_t real = untied_real(task);
    untied_top = &f;
    do {
        f.resubmit = 0;
        real(gtid, task);
    } while (f.resubmit);
    untied_top = f.up;
    return 0;
}

HCRT_ABI_EXPORT void *__hcrt_omp_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                            int32_t flags, size_t sizeof_task,
                                            size_t sizeof_shareds,
                                            hcrt_task_entry_t entry)
{
    if (flags & KMP_TASK_TIED)
        return __kmpc_omp_task_alloc(loc, gtid, flags, sizeof_task,
                                     sizeof_shareds, entry);
    size_t slot = (sizeof_task + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
    /* a shareds block of at least one byte, so task->shareds is set */
    char *task = __kmpc_omp_task_alloc(
        loc, gtid, flags | KMP_TASK_TIED, slot + sizeof entry,
        sizeof_shareds ? sizeof_shareds : 1, untied_entry);
    if (((kmp_task_head_t *)task)->shareds != task + slot + sizeof entry)
        hcrt_fatal(HCRT_MOD_CORE,
                   "libomp's task layout is not the one hcc was built for "
                   "(shareds at %td, expected %zu); rebuild hcc against "
                   "this libomp",
                   ((kmp_task_head_t *)task)->shareds - task,
                   slot + sizeof entry);
    memcpy(task + slot, &entry, sizeof entry);
    return task;
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

HCRT_ABI_EXPORT int32_t __hcrt_omp_task(hcrt_ident_t *loc, int32_t gtid,
                                        void *task)
{
    if (untied_top && untied_top->task == task) { /* next part of its body */
        untied_top->resubmit = 1;
        return 0;
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

/* An undeferred untied task: clang calls its real entry once, directly,
 * between these two; the parts it asks for are run before completing. */
HCRT_ABI_EXPORT void __hcrt_omp_task_begin_if0(hcrt_ident_t *loc, int32_t gtid,
                                               void *task)
{
    if (((kmp_task_head_t *)task)->routine == untied_entry) {
        untied_frame_t *f = malloc(sizeof *f);
        if (!f)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory starting an if(0) task");
        *f = (untied_frame_t){task, 0, untied_top};
        untied_top = f;
    }
    __kmpc_omp_task_begin_if0(loc, gtid, task);
}

HCRT_ABI_EXPORT void __hcrt_omp_task_complete_if0(hcrt_ident_t *loc,
                                                  int32_t gtid, void *task)
{
    untied_frame_t *f = untied_top;
    if (f && f->task == task) {
        hcrt_task_entry_t real = untied_real(task);
        while (f->resubmit) {
            f->resubmit = 0;
            real(gtid, task);
        }
        untied_top = f->up;
        free(f);
    }
    __kmpc_omp_task_complete_if0(loc, gtid, task);
}

HCRT_ABI_EXPORT int32_t __hcrt_omp_taskwait(hcrt_ident_t *loc, int32_t gtid)
{
    return __kmpc_omp_taskwait(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_omp_taskyield(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t end_part)
{
    return __kmpc_omp_taskyield(loc, gtid, end_part);
}

HCRT_ABI_EXPORT void __hcrt_taskgroup(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_taskgroup(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_taskgroup(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_end_taskgroup(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_taskloop(hcrt_ident_t *loc, int32_t gtid,
                                     void *task, int32_t if_val, uint64_t *lb,
                                     uint64_t *ub, int64_t st, int32_t nogroup,
                                     int32_t sched, uint64_t grainsize,
                                     void *task_dup)
{
    __kmpc_taskloop(loc, gtid, task, if_val, lb, ub, st, nogroup, sched,
                    grainsize, task_dup);
}

HCRT_ABI_EXPORT void __hcrt_taskloop_5(hcrt_ident_t *loc, int32_t gtid,
                                       void *task, int32_t if_val, uint64_t *lb,
                                       uint64_t *ub, int64_t st,
                                       int32_t nogroup, int32_t sched,
                                       uint64_t grainsize, int32_t modifier,
                                       void *task_dup)
{
    __kmpc_taskloop_5(loc, gtid, task, if_val, lb, ub, st, nogroup, sched,
                      grainsize, modifier, task_dup);
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
