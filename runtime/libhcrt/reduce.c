/*
 * reduce.c - reductions (__kmpc_reduce protocol).
 *
 * One node: libomp picks the method (tree, critical or atomic) and returns
 * 1 (combine with fn, then end_reduce), 2 (atomic update) or 0 (nothing to
 * do). The cluster runtime adds the cross-node combine after the node's.
 */
#include "libhcrt/core.h"
#include "libhcrt/kmp_abi.h"

HCRT_ABI_EXPORT int32_t __hcrt_reduce(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t nvars, size_t size, void *data,
                                      hcrt_reduce_fn_t fn,
                                      hcrt_critical_name_t *lck)
{
    return __kmpc_reduce(loc, gtid, nvars, size, data, fn, lck);
}

HCRT_ABI_EXPORT int32_t __hcrt_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t nvars, size_t size,
                                             void *data, hcrt_reduce_fn_t fn,
                                             hcrt_critical_name_t *lck)
{
    return __kmpc_reduce_nowait(loc, gtid, nvars, size, data, fn, lck);
}

HCRT_ABI_EXPORT void __hcrt_end_reduce(hcrt_ident_t *loc, int32_t gtid,
                                       hcrt_critical_name_t *lck)
{
    __kmpc_end_reduce(loc, gtid, lck);
}

HCRT_ABI_EXPORT void __hcrt_end_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                              hcrt_critical_name_t *lck)
{
    __kmpc_end_reduce_nowait(loc, gtid, lck);
}
