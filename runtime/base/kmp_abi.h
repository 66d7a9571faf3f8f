/*
 * kmp_abi.h - the parts of LLVM libomp's C ABI the runtime calls (internal).
 *
 * Declared here by hand, with hcrt's own types, because nothing in runtime/
 * includes LLVM headers. The signatures are those libomp 19 exports; the
 * `ident_t` record is layout-compatible with hcrt_ident_t.
 */
#ifndef HCRT_KMP_ABI_H
#define HCRT_KMP_ABI_H

#include <stddef.h>
#include <stdint.h>

#include "hcrt/abi.h"

typedef void (*kmpc_micro_t)(int32_t *gtid, int32_t *btid, ...);

/* libomp's enum sched_type values hcrt needs to know (kmp.h). */
enum {
    KMP_SCH_STATIC_CHUNKED = 33,
    KMP_SCH_STATIC = 34,
    KMP_SCH_DYNAMIC_CHUNKED = 35,
    KMP_SCH_GUIDED_CHUNKED = 36,
    KMP_SCH_RUNTIME = 37,
    KMP_SCH_AUTO = 38,
    KMP_SCH_MODIFIER_MONOTONIC = 1 << 29,
    KMP_SCH_MODIFIER_NONMONOTONIC = 1 << 30
};

/* omp.h's lock and schedule types, ABI-equivalent. */
typedef struct hcrt_omp_lock {
    void *lk;
} hcrt_omp_lock_t;
typedef struct hcrt_omp_nest_lock {
    void *lk;
} hcrt_omp_nest_lock_t;
typedef int hcrt_omp_sched_t; /* omp_sched_t; monotonic flag 0x80000000 */
typedef int hcrt_omp_proc_bind_t;
typedef int hcrt_omp_lock_hint_t; /* omp_sync_hint_t */

/* Parallel regions and threads. */
void __kmpc_fork_call(hcrt_ident_t *loc, int32_t argc, kmpc_micro_t fn, ...);
void __kmpc_fork_teams(hcrt_ident_t *loc, int32_t argc, kmpc_micro_t fn, ...);
int32_t __kmpc_global_thread_num(hcrt_ident_t *loc);
void *__kmpc_threadprivate_cached(hcrt_ident_t *loc, int32_t gtid, void *data,
                                  size_t size, void ***cache);
void __kmpc_push_num_threads(hcrt_ident_t *loc, int32_t gtid, int32_t n);
void __kmpc_push_proc_bind(hcrt_ident_t *loc, int32_t gtid, int32_t bind);
void __kmpc_push_num_teams(hcrt_ident_t *loc, int32_t gtid, int32_t nteams,
                           int32_t nthreads);
void __kmpc_serialized_parallel(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_end_serialized_parallel(hcrt_ident_t *loc, int32_t gtid);

/* Worksharing loops. */
#define KMP_DECL_LOOP(sfx, T, ST)                                              \
    void __kmpc_for_static_init_##sfx(                                         \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
        T *plower, T *pupper, ST *pstride, ST incr, ST chunk);                 \
    void __kmpc_dist_for_static_init_##sfx(                                    \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
        T *plower, T *pupper, T *pupperd, ST *pstride, ST incr, ST chunk);     \
    void __kmpc_team_static_init_##sfx(hcrt_ident_t *loc, int32_t gtid,        \
                                       int32_t *plast, T *plower, T *pupper,   \
                                       ST *pstride, ST incr, ST chunk);        \
    void __kmpc_dispatch_init_##sfx(hcrt_ident_t *loc, int32_t gtid,           \
                                    int32_t sched, T lb, T ub, ST st,          \
                                    ST chunk);                                 \
    int32_t __kmpc_dispatch_next_##sfx(hcrt_ident_t *loc, int32_t gtid,        \
                                       int32_t *plast, T *plower, T *pupper,   \
                                       ST *pstride);                           \
    void __kmpc_dispatch_fini_##sfx(hcrt_ident_t *loc, int32_t gtid);

KMP_DECL_LOOP(4, int32_t, int32_t)
KMP_DECL_LOOP(4u, uint32_t, int32_t)
KMP_DECL_LOOP(8, int64_t, int64_t)
KMP_DECL_LOOP(8u, uint64_t, int64_t)
#undef KMP_DECL_LOOP

void __kmpc_dispatch_deinit(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_for_static_fini(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_ordered(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_end_ordered(hcrt_ident_t *loc, int32_t gtid);

/* Synchronisation and reductions. */
int32_t __kmpc_reduce(hcrt_ident_t *loc, int32_t gtid, int32_t nvars,
                      size_t size, void *data, hcrt_reduce_fn_t fn,
                      hcrt_critical_name_t *lck);
int32_t __kmpc_reduce_nowait(hcrt_ident_t *loc, int32_t gtid, int32_t nvars,
                             size_t size, void *data, hcrt_reduce_fn_t fn,
                             hcrt_critical_name_t *lck);
void __kmpc_end_reduce(hcrt_ident_t *loc, int32_t gtid,
                       hcrt_critical_name_t *lck);
void __kmpc_end_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                              hcrt_critical_name_t *lck);
void __kmpc_barrier(hcrt_ident_t *loc, int32_t gtid);
int32_t __kmpc_cancel_barrier(hcrt_ident_t *loc, int32_t gtid);
int32_t __kmpc_cancel(hcrt_ident_t *loc, int32_t gtid, int32_t kind);
int32_t __kmpc_cancellationpoint(hcrt_ident_t *loc, int32_t gtid, int32_t kind);
int32_t __kmpc_single(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_end_single(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_copyprivate(hcrt_ident_t *loc, int32_t gtid, size_t size,
                        void *data, hcrt_cpy_fn_t fn, int32_t didit);
int32_t __kmpc_master(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_end_master(hcrt_ident_t *loc, int32_t gtid);
int32_t __kmpc_masked(hcrt_ident_t *loc, int32_t gtid, int32_t filter);
void __kmpc_end_masked(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_critical(hcrt_ident_t *loc, int32_t gtid,
                     hcrt_critical_name_t *crit);
void __kmpc_critical_with_hint(hcrt_ident_t *loc, int32_t gtid,
                               hcrt_critical_name_t *crit, uint32_t hint);
void __kmpc_end_critical(hcrt_ident_t *loc, int32_t gtid,
                         hcrt_critical_name_t *crit);
void __kmpc_flush(hcrt_ident_t *loc);

/* Tasks. */
void *__kmpc_omp_task_alloc(hcrt_ident_t *loc, int32_t gtid, int32_t flags,
                            size_t sizeof_task, size_t sizeof_shareds,
                            hcrt_task_entry_t entry);
void *__kmpc_omp_target_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                   int32_t flags, size_t sizeof_task,
                                   size_t sizeof_shareds,
                                   hcrt_task_entry_t entry, int64_t device_id);
int32_t __kmpc_omp_task(hcrt_ident_t *loc, int32_t gtid, void *task);
int32_t __kmpc_omp_task_with_deps(hcrt_ident_t *loc, int32_t gtid, void *task,
                                  int32_t ndeps, hcrt_depend_info_t *deps,
                                  int32_t ndeps_noalias,
                                  hcrt_depend_info_t *noalias);
void __kmpc_omp_wait_deps(hcrt_ident_t *loc, int32_t gtid, int32_t ndeps,
                          hcrt_depend_info_t *deps, int32_t ndeps_noalias,
                          hcrt_depend_info_t *noalias);
void __kmpc_omp_taskwait_deps_51(hcrt_ident_t *loc, int32_t gtid, int32_t ndeps,
                                 hcrt_depend_info_t *deps,
                                 int32_t ndeps_noalias,
                                 hcrt_depend_info_t *noalias, int32_t nowait);
void __kmpc_omp_task_begin_if0(hcrt_ident_t *loc, int32_t gtid, void *task);
void __kmpc_omp_task_complete_if0(hcrt_ident_t *loc, int32_t gtid, void *task);
int32_t __kmpc_omp_taskwait(hcrt_ident_t *loc, int32_t gtid);
int32_t __kmpc_omp_taskyield(hcrt_ident_t *loc, int32_t gtid, int32_t end_part);
void __kmpc_taskgroup(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_end_taskgroup(hcrt_ident_t *loc, int32_t gtid);
void __kmpc_taskloop(hcrt_ident_t *loc, int32_t gtid, void *task,
                     int32_t if_val, uint64_t *lb, uint64_t *ub, int64_t st,
                     int32_t nogroup, int32_t sched, uint64_t grainsize,
                     void *task_dup);
void __kmpc_taskloop_5(hcrt_ident_t *loc, int32_t gtid, void *task,
                       int32_t if_val, uint64_t *lb, uint64_t *ub, int64_t st,
                       int32_t nogroup, int32_t sched, uint64_t grainsize,
                       int32_t modifier, void *task_dup);
void *__kmpc_taskred_init(int32_t gtid, int32_t num, void *data);
void *__kmpc_taskred_modifier_init(hcrt_ident_t *loc, int32_t gtid,
                                   int32_t is_ws, int32_t num, void *data);
void __kmpc_task_reduction_modifier_fini(hcrt_ident_t *loc, int32_t gtid,
                                         int32_t is_ws);
void *__kmpc_task_reduction_get_th_data(int32_t gtid, void *tg, void *d);

/* The OpenMP API routines hcrt forwards to (omp.h of libomp 19). */
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
size_t kmp_get_stacksize_s(void); /* libomp extension: OMP_STACKSIZE */
void omp_set_num_threads(int n);
int omp_get_num_procs(void);
int omp_in_parallel(void);
int omp_get_level(void);
int omp_get_active_level(void);
int omp_get_ancestor_thread_num(int level);
int omp_get_team_size(int level);
int omp_get_thread_limit(void);
void omp_set_dynamic(int flag);
int omp_get_dynamic(void);
void omp_set_nested(int flag);
int omp_get_nested(void);
void omp_set_max_active_levels(int n);
int omp_get_max_active_levels(void);
void omp_set_schedule(hcrt_omp_sched_t kind, int chunk);
void omp_get_schedule(hcrt_omp_sched_t *kind, int *chunk);
double omp_get_wtime(void);
double omp_get_wtick(void);
int omp_in_final(void);
int omp_get_cancellation(void);
hcrt_omp_proc_bind_t omp_get_proc_bind(void);
int __kmpc_pause_resource(int kind); /* libomp's host only */
void __kmpc_set_thread_limit(hcrt_ident_t *loc, int32_t gtid, int32_t limit);
int omp_get_num_teams(void);
int omp_get_team_num(void);
int omp_get_default_device(void);
void omp_set_default_device(int dev);
void omp_init_lock(hcrt_omp_lock_t *l);
void omp_init_lock_with_hint(hcrt_omp_lock_t *l, hcrt_omp_lock_hint_t h);
void omp_destroy_lock(hcrt_omp_lock_t *l);
void omp_set_lock(hcrt_omp_lock_t *l);
void omp_unset_lock(hcrt_omp_lock_t *l);
int omp_test_lock(hcrt_omp_lock_t *l);
void omp_init_nest_lock(hcrt_omp_nest_lock_t *l);
void omp_init_nest_lock_with_hint(hcrt_omp_nest_lock_t *l,
                                  hcrt_omp_lock_hint_t h);
void omp_destroy_nest_lock(hcrt_omp_nest_lock_t *l);
void omp_set_nest_lock(hcrt_omp_nest_lock_t *l);
void omp_unset_nest_lock(hcrt_omp_nest_lock_t *l);
int omp_test_nest_lock(hcrt_omp_nest_lock_t *l);

#endif /* HCRT_KMP_ABI_H */
