/*
 * sync.c - barriers, single, master/masked, critical, flush, cancellation.
 *
 * One node: libomp's own implementations. The cluster runtime adds the DSM's
 * acquire/release at each of these points.
 */
#include "libhcrt/core.h"
#include "libhcrt/kmp_abi.h"

HCRT_ABI_EXPORT void __hcrt_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_barrier(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancel_barrier(hcrt_ident_t *loc, int32_t gtid)
{
    return __kmpc_cancel_barrier(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancel(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t kind)
{
    return __kmpc_cancel(loc, gtid, kind);
}

HCRT_ABI_EXPORT int32_t __hcrt_cancellationpoint(hcrt_ident_t *loc,
                                                 int32_t gtid, int32_t kind)
{
    return __kmpc_cancellationpoint(loc, gtid, kind);
}

HCRT_ABI_EXPORT int32_t __hcrt_single(hcrt_ident_t *loc, int32_t gtid)
{
    return __kmpc_single(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_single(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_end_single(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_copyprivate(hcrt_ident_t *loc, int32_t gtid,
                                        size_t size, void *data,
                                        hcrt_cpy_fn_t fn, int32_t didit)
{
    __kmpc_copyprivate(loc, gtid, size, data, fn, didit);
}

HCRT_ABI_EXPORT int32_t __hcrt_master(hcrt_ident_t *loc, int32_t gtid)
{
    return __kmpc_master(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_master(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_end_master(loc, gtid);
}

HCRT_ABI_EXPORT int32_t __hcrt_masked(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t filter)
{
    return __kmpc_masked(loc, gtid, filter);
}

HCRT_ABI_EXPORT void __hcrt_end_masked(hcrt_ident_t *loc, int32_t gtid)
{
    __kmpc_end_masked(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_critical(hcrt_ident_t *loc, int32_t gtid,
                                     hcrt_critical_name_t *crit)
{
    __kmpc_critical(loc, gtid, crit);
}

HCRT_ABI_EXPORT void __hcrt_critical_with_hint(hcrt_ident_t *loc, int32_t gtid,
                                               hcrt_critical_name_t *crit,
                                               uint32_t hint)
{
    __kmpc_critical_with_hint(loc, gtid, crit, hint);
}

HCRT_ABI_EXPORT void __hcrt_end_critical(hcrt_ident_t *loc, int32_t gtid,
                                         hcrt_critical_name_t *crit)
{
    __kmpc_end_critical(loc, gtid, crit);
}

HCRT_ABI_EXPORT void __hcrt_flush(hcrt_ident_t *loc)
{
    __kmpc_flush(loc);
}
