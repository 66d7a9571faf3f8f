/*
 * sync.c - barriers, single, master/masked, critical, flush, cancellation.
 *
 * One node: libomp's own implementations. At the outer level of a cluster
 * region (cluster.h) they become cluster-wide: barrier = libomp's barrier
 * (node tasks done) + DSM team barrier; single and master = cluster thread
 * 0 (any one thread is allowed, and it keeps the single's output on the
 * head); critical = libomp's critical, then a DSM lock named by its address.
 */
#include "base/kmp_abi.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_loops.h"
#include "libhcrt/core.h"
#include "libhcrt/observe.h"

#define HERE (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_here())
#define CANCEL_LOOP 2 /* libomp's kind of `cancel for` */

HCRT_ABI_EXPORT void __hcrt_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE) {
        hcrt__cluster_barrier(loc, gtid);
        return;
    }
    __kmpc_barrier(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancel_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE) {
        if (hcrt__cancel_on)
            return hcrt__cancel_barrier(loc, gtid);
        hcrt__cluster_barrier(loc, gtid);
        return 0;
    }
    return __kmpc_cancel_barrier(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancel(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t kind)
{
    if (HCRT_UNLIKELY(hcrt__cancel_on) && hcrt__cluster_here())
        return hcrt__cancel_request(loc, gtid, kind);
    int32_t r = __kmpc_cancel(loc, gtid, kind);
    if (r && kind == CANCEL_LOOP)
        hcrt__loops_cancel_drain(loc, gtid);
    return r;
}

HCRT_ABI_EXPORT int32_t __hcrt_cancellationpoint(hcrt_ident_t *loc,
                                                 int32_t gtid, int32_t kind)
{
    if (HCRT_UNLIKELY(hcrt__cancel_on) && hcrt__cluster_here())
        return hcrt__cancel_point(loc, gtid, kind);
    int32_t r = __kmpc_cancellationpoint(loc, gtid, kind);
    if (r && kind == CANCEL_LOOP)
        hcrt__loops_cancel_drain(loc, gtid);
    return r;
}

HCRT_ABI_EXPORT int32_t __hcrt_single(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return hcrt__cluster_tid() == 0;
    return __kmpc_single(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_single(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return;
    __kmpc_end_single(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_copyprivate(hcrt_ident_t *loc, int32_t gtid,
                                        size_t size, void *data,
                                        hcrt_cpy_fn_t fn, int32_t didit)
{
    if (HERE) {
        hcrt__cluster_copyprivate(loc, gtid, size, data, fn, didit);
        return;
    }
    __kmpc_copyprivate(loc, gtid, size, data, fn, didit);
}

HCRT_ABI_EXPORT int32_t __hcrt_master(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return hcrt__cluster_tid() == 0;
    return __kmpc_master(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_master(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return;
    __kmpc_end_master(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_masked(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t filter)
{
    if (HERE)
        return hcrt__cluster_tid() == filter;
    return __kmpc_masked(loc, gtid, filter);
}

HCRT_ABI_EXPORT void __hcrt_end_masked(hcrt_ident_t *loc, int32_t gtid)
{
    if (HERE)
        return;
    __kmpc_end_masked(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_critical(hcrt_ident_t *loc, int32_t gtid,
                                     hcrt_critical_name_t *crit)
{
    __kmpc_critical(loc, gtid, crit);
    if (HERE)
        hcrt__cluster_lock((uint64_t)(uintptr_t)crit);
}

HCRT_ABI_EXPORT void __hcrt_critical_with_hint(hcrt_ident_t *loc, int32_t gtid,
                                               hcrt_critical_name_t *crit,
                                               uint32_t hint)
{
    __kmpc_critical_with_hint(loc, gtid, crit, hint);
    if (HERE)
        hcrt__cluster_lock((uint64_t)(uintptr_t)crit);
}

HCRT_ABI_EXPORT void __hcrt_end_critical(hcrt_ident_t *loc, int32_t gtid,
                                         hcrt_critical_name_t *crit)
{
    if (HERE)
        hcrt__cluster_unlock((uint64_t)(uintptr_t)crit);
    __kmpc_end_critical(loc, gtid, crit);
}

HCRT_ABI_EXPORT void __hcrt_flush(hcrt_ident_t *loc)
{
    if (HCRT_UNLIKELY(hcrt__cluster_on))
        hcrt__dsm_acquire(); /* releases first */
    __kmpc_flush(loc);
}
