/*
 * tasks.c - explicit tasks, dependences, taskwait/taskgroup, taskloop and
 * task reductions.
 *
 * One node: libomp's tasking. The cluster runtime records head-region tasks
 * into a graph here instead of running them at once.
 */
#include "libhcrt/core.h"
#include "libhcrt/kmp_abi.h"
#include "libhcrt/offload/ofl_exec.h"

HCRT_ABI_EXPORT void *__hcrt_omp_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                            int32_t flags, size_t sizeof_task,
                                            size_t sizeof_shareds,
                                            hcrt_task_entry_t entry)
{
    return __kmpc_omp_task_alloc(loc, gtid, flags, sizeof_task, sizeof_shareds,
                                 entry);
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

HCRT_ABI_EXPORT void __hcrt_omp_task_begin_if0(hcrt_ident_t *loc, int32_t gtid,
                                               void *task)
{
    __kmpc_omp_task_begin_if0(loc, gtid, task);
}

HCRT_ABI_EXPORT void __hcrt_omp_task_complete_if0(hcrt_ident_t *loc,
                                                  int32_t gtid, void *task)
{
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
