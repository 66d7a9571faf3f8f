/*
 * cluster_nest.c - nested regions and ICVs of a cluster region.
 *
 * A cluster team is one OpenMP team whose threads live on several nodes;
 * each node runs its share as a local libomp team. libomp therefore knows
 * only its node's part of level 1, and two things have to be put right:
 *
 *   - A node whose share is one thread runs level 1 as a serialized
 *     (inactive) libomp region, though the cluster team is active. Its
 *     nested regions would count as the first active level, so libomp would
 *     give them threads that max-active-levels-var forbids, and
 *     omp_get_active_level() would be one short. This node's forks are
 *     serialized where the cluster's count says so, and the API adds the
 *     hidden level back (`hidden`).
 *   - The threads of a nested team are new libomp threads that never ran
 *     the cluster entry: every nested fork inside a cluster region hands
 *     them the cluster context (the level-1 ancestor's cluster number and
 *     the team's size) for omp_get_ancestor_thread_num(1),
 *     omp_get_team_size(1), omp_in_parallel() and the cluster-wide critical
 *     sections at every level.
 *
 * The data-environment ICVs of the level-1 implicit tasks are the head's
 * (they are inherited from the task that encountered the region): the
 * head's nthreads-var in cluster terms, dyn-var, max-active-levels-var and
 * default-device-var travel with every fork (hcrt_cluster_icv_t).
 */
#include <stdlib.h>
#include <string.h>

#include "base/kmp_abi.h"
#include "base/log.h"
#include "libhcrt/cluster.h"

_Thread_local hcrt_cluster_nest_t hcrt__cluster_nest;

/* OMP_NUM_THREADS is a list: libomp gives level 1 its second element. */
static int nthreads_list;

void hcrt__cluster_icv_init(void)
{
    const char *v = getenv("OMP_NUM_THREADS");

    nthreads_list = v && strchr(v, ',') != NULL;
}

void hcrt__cluster_icv_capture(hcrt_cluster_icv_t *icv)
{
    icv->nthreads = hcrt__cluster_max_threads();
    icv->dynamic = omp_get_dynamic();
    icv->max_active = omp_get_max_active_levels();
    icv->device = omp_get_default_device();
}

/* The encountering task's ICVs on a worker are those of the head's task.
 * dyn-var is off for the fork itself (libomp could otherwise give the node
 * fewer threads than its share); each thread gets it back in enter(). */
void hcrt__cluster_icv_fork_begin(const hcrt_cluster_icv_t *icv)
{
    if (omp_get_max_active_levels() != icv->max_active)
        omp_set_max_active_levels(icv->max_active);
    if (omp_get_default_device() != icv->device)
        omp_set_default_device(icv->device);
    if (omp_get_dynamic())
        omp_set_dynamic(0);
}

void hcrt__cluster_icv_fork_end(const hcrt_cluster_icv_t *icv)
{
    if (icv->dynamic)
        omp_set_dynamic(1);
}

/* Every thread of a cluster team, first thing: its implicit task's ICVs. */
void hcrt__cluster_icv_enter(const hcrt_cluster_icv_t *icv)
{
    if (!nthreads_list && omp_get_max_threads() != icv->nthreads)
        omp_set_num_threads(icv->nthreads);
    if (icv->dynamic)
        omp_set_dynamic(1);
}

/* ---- regions forked at level 0 on the head that stay on the head -------- */

static void local_entry(int32_t *gtid, int32_t *btid,
                        const hcrt_region_desc_t *region, void **args,
                        const hcrt_cluster_icv_t *icv)
{
    hcrt__cluster_icv_enter(icv);
    region->tramp(gtid, btid, args);
}

/* A region of the head's serial code that runs on the head's threads: as
 * for a cluster team, its implicit tasks inherit the head's nthreads-var in
 * cluster terms, so omp_get_max_threads() and nested regions inside it
 * answer as on one node of np x threads threads. */
void hcrt__cluster_fork_local(hcrt_ident_t *loc,
                              const hcrt_region_desc_t *region, void **args)
{
    hcrt_cluster_icv_t icv = {.nthreads = hcrt__cluster_max_threads(),
                              .dynamic = 0};

    __kmpc_fork_call(loc, 3, (kmpc_micro_t)local_entry, region, args, &icv);
}

/* parallel if(false) of the head's serial code: the one-thread region's
 * implicit task inherits nthreads-var in cluster terms too (libomp gives
 * the serialized region a task of its own, so nothing leaks out). */
void hcrt__cluster_serial_enter(void)
{
    if (hcrt__cluster_inside() || !hcrt__cluster_is_main_thread() ||
        omp_get_level() != 1)
        return;
    hcrt_cluster_icv_t icv = {.nthreads = hcrt__cluster_max_threads()};
    hcrt__cluster_icv_enter(&icv);
}

/* ---- regions nested in a cluster region --------------------------------- */

static void nested_entry(int32_t *gtid, int32_t *btid,
                         const hcrt_region_desc_t *region, void **args,
                         const hcrt_cluster_nest_t *ctx)
{
    hcrt_cluster_nest_t saved = hcrt__cluster_nest;

    hcrt__cluster_nest = *ctx;
    region->tramp(gtid, btid, args);
    hcrt__cluster_nest = saved;
}

int hcrt__cluster_active_level(void)
{
    return omp_get_active_level() + hcrt__cluster_nest.hidden;
}

void hcrt__cluster_fork_nested(hcrt_ident_t *loc,
                               const hcrt_region_desc_t *region, void **args)
{
    hcrt_cluster_nest_t ctx = hcrt__cluster_nest;

    /* libomp does not count a hidden active level: where the cluster's
     * count reaches max-active-levels-var, the region is inactive. */
    if (ctx.hidden &&
        hcrt__cluster_active_level() >= omp_get_max_active_levels())
        __kmpc_push_num_threads(loc, __kmpc_global_thread_num(loc), 1);
    __kmpc_fork_call(loc, 3, (kmpc_micro_t)nested_entry, region, args, &ctx);
}
