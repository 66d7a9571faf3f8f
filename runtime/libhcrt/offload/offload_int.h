/*
 * offload_int.h - helpers shared inside runtime/libhcrt/offload (internal).
 */
#ifndef HCRT_OFFLOAD_INT_H
#define HCRT_OFFLOAD_INT_H

#include <stddef.h>
#include <stdint.h>

#include "libhcrt/offload/offload.h"

/* Grows *p (elements of `size` bytes) so that `need` elements fit. */
hcrt_status_t hcrt__ofl_grow(void **p, int32_t *cap, int64_t need, size_t size);

/* Bytes shared by [a, a + an) and [b, b + bn). */
static inline uint64_t hcrt__ofl_overlap(uintptr_t a, int64_t an, uintptr_t b,
                                         int64_t bn)
{
    uintptr_t lo = a > b ? a : b;
    uintptr_t ea = a + (uintptr_t)an, eb = b + (uintptr_t)bn;
    uintptr_t hi = ea < eb ? ea : eb;
    return hi > lo ? (uint64_t)(hi - lo) : 0;
}

/* Whether map entry `m` carries data (not a literal or private value). */
static inline int hcrt__ofl_map_is_data(const hcrt__ofl_map_t *m)
{
    return !(m->type & (HCRT_OFL_MAP_LITERAL | HCRT_OFL_MAP_PRIVATE)) &&
           m->size > 0;
}

/* Whether a task of `kind` with `deps` may write the device copy of map
 * entry `m`. Kernels: a depend item that names the entry (its address
 * range overlaps the entry, or it is the entry's base pointer) decides
 * (in: read; out/inout/mutexinoutset/inoutset: write); without one, a
 * `from` map means write. Enter and update-to write it (from the host);
 * exits and update-from only read it. */
int hcrt__ofl_map_writes(hcrt__ofl_kind_t kind, const hcrt__ofl_map_t *m,
                         const hcrt_depend_info_t *deps, int32_t ndeps);

#endif /* HCRT_OFFLOAD_INT_H */
