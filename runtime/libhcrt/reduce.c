/*
 * reduce.c - reductions (__kmpc_reduce protocol).
 *
 * One node: libomp picks the method (tree, critical or atomic) and returns
 * 1 (combine with fn, then end_reduce), 2 (atomic update) or 0 (nothing to
 * do). At the outer level of a cluster region the node's combine is
 * libomp's, and whoever then updates the shared variable (the node's
 * combining thread, or every thread under the critical method) does it
 * under a DSM cluster lock named by the reduction's lock address (lock =
 * acquire, unlock = release), so the nodes' partial results add up. The
 * atomic method (2) is correct as is: region atomics on DSM memory run at
 * the page's home (atomics.c).
 */
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/kmp_abi.h"

#define HERE (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_here())

/* Threads of the atomic method also call end_reduce: only the holder of
 * the cluster lock unlocks it. */
static _Thread_local int holds_lock;

static int32_t cluster_lock(int32_t ret, hcrt_critical_name_t *lck)
{
    if (ret == 1) {
        hcrt__cluster_lock((uint64_t)(uintptr_t)lck);
        holds_lock = 1;
    }
    return ret;
}

static void cluster_unlock(hcrt_critical_name_t *lck)
{
    if (holds_lock) {
        holds_lock = 0;
        hcrt__cluster_unlock((uint64_t)(uintptr_t)lck);
    }
}

HCRT_ABI_EXPORT int32_t __hcrt_reduce(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t nvars, size_t size, void *data,
                                      hcrt_reduce_fn_t fn,
                                      hcrt_critical_name_t *lck)
{
    int32_t r = __kmpc_reduce(loc, gtid, nvars, size, data, fn, lck);
    return HERE ? cluster_lock(r, lck) : r;
}

HCRT_ABI_EXPORT int32_t __hcrt_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t nvars, size_t size,
                                             void *data, hcrt_reduce_fn_t fn,
                                             hcrt_critical_name_t *lck)
{
    int32_t r = __kmpc_reduce_nowait(loc, gtid, nvars, size, data, fn, lck);
    return HERE ? cluster_lock(r, lck) : r;
}

HCRT_ABI_EXPORT void __hcrt_end_reduce(hcrt_ident_t *loc, int32_t gtid,
                                       hcrt_critical_name_t *lck)
{
    if (HERE)
        cluster_unlock(lck);
    __kmpc_end_reduce(loc, gtid, lck);
}

HCRT_ABI_EXPORT void __hcrt_end_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                              hcrt_critical_name_t *lck)
{
    if (HERE)
        cluster_unlock(lck);
    __kmpc_end_reduce_nowait(loc, gtid, lck);
}
