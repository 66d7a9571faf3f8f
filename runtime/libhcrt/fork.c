/*
 * fork.c - parallel regions: __hcrt_fork, fork_if, fork_teams.
 *
 * On one node a region is a libomp team: hcrt forks the real
 * __kmpc_fork_call with a fixed two-argument entry that calls the region's
 * trampoline, so the runtime needs neither varargs forwarding nor libffi.
 * Each fork is counted per region for the statistics table; timing is taken
 * only with HCRT_STATS=1 so plain runs pay nothing for it.
 */
#include "base/kmp_abi.h"
#include "base/log.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/core.h"
#include "libhcrt/observe.h"

static void region_entry(int32_t *gtid, int32_t *btid,
                         const hcrt_region_desc_t *region, void **args)
{
    region->tramp(gtid, btid, args);
}

static hcrt_region_stats_t *region_begin(hcrt_ident_t *loc,
                                         const hcrt_region_desc_t *region)
{
    hcrt__runtime_ensure();
    if (HCRT_UNLIKELY(!region || !region->tramp))
        hcrt_fatal(HCRT_MOD_CORE, "internal error: fork without a region "
                                  "descriptor or trampoline");
    hcrt_region_stats_t *st = hcrt__registry_region(region);
    __atomic_fetch_add(&st->forks, 1, __ATOMIC_RELAXED);
    /* Without debug info the descriptor has no file: keep clang's psource. */
    if (HCRT_UNLIKELY(!st->psource) && loc && loc->psource)
        __atomic_store_n(&st->psource, loc->psource, __ATOMIC_RELAXED);
    return st;
}

static void region_time(hcrt_region_stats_t *st, uint64_t t0)
{
    __atomic_fetch_add(&st->time_ns, hcrt__now_ns() - t0, __ATOMIC_RELAXED);
    HCRT_OBS(hcrt__obs_local_region(st->desc, t0));
}

HCRT_ABI_EXPORT void __hcrt_fork(hcrt_ident_t *loc,
                                 const hcrt_region_desc_t *region, void **args)
{
    hcrt_region_stats_t *st = region_begin(loc, region);
    uint64_t t0 = hcrt__stats_on ? hcrt__now_ns() : 0;

    if (HCRT_UNLIKELY(hcrt__cluster_on) &&
        hcrt__cluster_fork(loc, region, args, st)) {
        if (hcrt__stats_on)
            region_time(st, t0);
        return;
    }
    __kmpc_fork_call(loc, 2, (kmpc_micro_t)region_entry, region, args);
    if (hcrt__stats_on)
        region_time(st, t0);
}

HCRT_ABI_EXPORT void __hcrt_fork_if(hcrt_ident_t *loc,
                                    const hcrt_region_desc_t *region,
                                    int32_t cond, void **args)
{
    if (cond) {
        __hcrt_fork(loc, region, args);
        return;
    }
    /* if(false): the encountering thread runs the region as a team of one,
     * as libomp's __kmpc_fork_call_if does. */
    hcrt_region_stats_t *st = region_begin(loc, region);
    uint64_t t0 = hcrt__stats_on ? hcrt__now_ns() : 0;
    int32_t gtid = __kmpc_global_thread_num(loc);
    int32_t zero = 0;

    if (HCRT_UNLIKELY(hcrt__cluster_on))
        (void)hcrt__cluster_take_push(); /* libomp ignores it here too */
    __atomic_fetch_add(&st->serial, 1, __ATOMIC_RELAXED);
    __kmpc_serialized_parallel(loc, gtid);
    if (HCRT_UNLIKELY(hcrt__cluster_on))
        hcrt__cluster_serial_enter();
    region->tramp(&gtid, &zero, args);
    __kmpc_end_serialized_parallel(loc, gtid);
    if (hcrt__stats_on)
        region_time(st, t0);
}

HCRT_ABI_EXPORT void __hcrt_fork_teams(hcrt_ident_t *loc,
                                       const hcrt_region_desc_t *region,
                                       void **args)
{
    hcrt_region_stats_t *st = region_begin(loc, region);
    uint64_t t0 = hcrt__stats_on ? hcrt__now_ns() : 0;

    if (HCRT_UNLIKELY(hcrt__cluster_on)) {
        int32_t nt = hcrt__cluster_take_push();
        if (nt > 0)
            __kmpc_push_num_threads(loc, __kmpc_global_thread_num(loc), nt);
    }
    if (HCRT_UNLIKELY(hcrt__cluster_on))
        hcrt__cluster_teams(1);
    __kmpc_fork_teams(loc, 2, (kmpc_micro_t)region_entry, region, args);
    if (HCRT_UNLIKELY(hcrt__cluster_on))
        hcrt__cluster_teams(-1);
    if (hcrt__stats_on)
        region_time(st, t0);
}

HCRT_ABI_EXPORT int32_t __hcrt_global_thread_num(hcrt_ident_t *loc)
{
    return __kmpc_global_thread_num(loc);
}

static void libomp_team_cores(int32_t *gtid, int32_t *btid)
{
    (void)gtid, (void)btid;
    hcrt__cluster_cores_enter(omp_get_thread_num());
}

/* Before a fork the pass left to libomp (a region using a call hcc cannot
 * lower): on the head at level 0 of a cluster job, the team
 * omp_get_max_threads() announced (np x threads) instead of libomp's
 * one node's, so per-thread slots sized by it are all written. */
HCRT_ABI_EXPORT void __hcrt_libomp_team(hcrt_ident_t *loc)
{
    if (HCRT_LIKELY(!hcrt__cluster_on) || hcrt__cluster_inside() ||
        omp_get_level() != 0 || !hcrt__cluster_is_main_thread())
        return;
    int32_t gtid = __kmpc_global_thread_num(loc);
    int total = hcrt__cluster_max_threads();
    /* The team's threads take the cores of the ranks that would run them
     * on all nodes, as calls on the head alone do (cluster_cores.c): an
     * empty fork of the same size first, since libomp's hot team gives
     * the next fork of that size the same threads in the same order (NPB
     * EP in Fortran ran its region at one thread's speed at 2 ranks). A
     * thread keeps its cores until a region on every node. Without other
     * ranks' cores to take (between hosts) there is no such fork. */
    if (hcrt__cluster_cores_plan(total)) {
        __kmpc_push_num_threads(loc, gtid, total);
        __kmpc_fork_call(loc, 0, (kmpc_micro_t)libomp_team_cores);
    }
    __kmpc_push_num_threads(loc, gtid, total);
}

HCRT_ABI_EXPORT void __hcrt_push_num_threads(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t nthreads)
{
    /* Cluster mode: the next fork may span the nodes; it decides. */
    if (HCRT_UNLIKELY(hcrt__cluster_on) && !hcrt__cluster_here()) {
        hcrt__cluster_push_num_threads(nthreads);
        return;
    }
    __kmpc_push_num_threads(loc, gtid, nthreads);
}

HCRT_ABI_EXPORT void __hcrt_push_proc_bind(hcrt_ident_t *loc, int32_t gtid,
                                           int32_t bind)
{
    __kmpc_push_proc_bind(loc, gtid, bind);
}

HCRT_ABI_EXPORT void __hcrt_push_num_teams(hcrt_ident_t *loc, int32_t gtid,
                                           int32_t nteams, int32_t nthreads)
{
    __kmpc_push_num_teams(loc, gtid, nteams, nthreads);
}

/* thread_limit of a target construct run here (host fallback): the
 * task's thread-limit-var. A kernel sent to a worker carries the clause
 * there (offload/ofl_node.c). */
HCRT_ABI_EXPORT void __hcrt_set_thread_limit(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t limit)
{
    __kmpc_set_thread_limit(loc, gtid, limit);
}

HCRT_ABI_EXPORT void __hcrt_serialized_parallel(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_serialized_parallel(loc, gtid);
    if (HCRT_UNLIKELY(hcrt__cluster_on)) /* clang's code for if(0) */
        hcrt__cluster_serial_enter();
}

HCRT_ABI_EXPORT void __hcrt_end_serialized_parallel(hcrt_ident_t *loc,
                                                    int32_t gtid)
{
    __kmpc_end_serialized_parallel(loc, gtid);
}
