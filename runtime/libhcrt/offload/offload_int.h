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

/* Which device data a kernel is taken to write. */
typedef enum {
    /* Every data entry it maps (any map type, present or new): spec-correct
     * for any program. The default, used by the live engine. */
    HCRT_OFL_WRITES_ALL = 0,
    /* OMPC's clause rule (below): only data a depend item names out-like,
     * or, unnamed, mapped `from`. Correct only for programs that declare
     * every device write that way. */
    HCRT_OFL_WRITES_CLAUSES = 1,
} hcrt__ofl_write_rule_t;

/* Sets the process-wide write rule (not thread-safe: set it before any
 * task is recorded or planned). */
void hcrt__ofl_set_write_rule(hcrt__ofl_write_rule_t rule);
hcrt__ofl_write_rule_t hcrt__ofl_get_write_rule(void);

/* Whether a task of `kind` with `deps` may write the device copy of map
 * entry `m`. Kernels: every data entry under HCRT_OFL_WRITES_ALL (the
 * default); under HCRT_OFL_WRITES_CLAUSES a depend item that names the
 * entry (its address range overlaps the entry, or it is the entry's base
 * pointer) decides (in: read; out/inout/mutexinoutset/inoutset: write);
 * without one, a `from` map means write. Enter and update-to write it
 * (from the host); exits and update-from only read it. */
int hcrt__ofl_map_writes(hcrt__ofl_kind_t kind, const hcrt__ofl_map_t *m,
                         const hcrt_depend_info_t *deps, int32_t ndeps);

/* Whether a kernel may share map entry `m` with kernels running next to it
 * on other nodes (each on its own copy): the entry is mapped `to` only and
 * no out-like depend item names it. Anything else (alloc, from, tofrom,
 * depend out) may be updated in place, as concurrent kernels on one GPU
 * do (atomics, disjoint parts), so such kernels must share one node. */
int hcrt__ofl_map_shared_read(const hcrt__ofl_map_t *m,
                              const hcrt_depend_info_t *deps, int32_t ndeps);

#endif /* HCRT_OFFLOAD_INT_H */
