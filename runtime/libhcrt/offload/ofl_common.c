/*
 * ofl_common.c - growable arrays, the write rule shared by the recorder and
 * the data manager, and the classification of unsupported forms.
 */
#include <stdlib.h>

#include "libhcrt/offload/offload_int.h"

hcrt_status_t hcrt__ofl_grow(void **p, int32_t *cap, int64_t need, size_t size)
{
    if (need <= *cap)
        return HCRT_OK;
    if (need > INT32_MAX)
        return HCRT_ERR_NOMEM;
    int64_t ncap = *cap ? *cap : 8;
    while (ncap < need)
        ncap *= 2;
    if (ncap > INT32_MAX)
        ncap = INT32_MAX;
    void *np = realloc(*p, (size_t)ncap * size);
    if (np == NULL)
        return HCRT_ERR_NOMEM;
    *p = np;
    *cap = (int32_t)ncap;
    return HCRT_OK;
}

static int dep_names_map(const hcrt_depend_info_t *d, const hcrt__ofl_map_t *m)
{
    if (d->base_addr == 0 || d->base_addr == -1)
        return 0;
    if ((uintptr_t)d->base_addr == (uintptr_t)m->base ||
        (uintptr_t)d->base_addr == (uintptr_t)m->begin)
        return 1;
    int64_t len = d->len ? (int64_t)d->len : 1;
    return hcrt__ofl_overlap((uintptr_t)d->base_addr, len, (uintptr_t)m->begin,
                             m->size) > 0;
}

/* The live engine keeps the default (ALL); tests of the clause rule and a
 * runtime that trusts its programs' clauses (OMPC's contract) set CLAUSES. */
static hcrt__ofl_write_rule_t write_rule = HCRT_OFL_WRITES_ALL;

void hcrt__ofl_set_write_rule(hcrt__ofl_write_rule_t rule)
{
    write_rule = rule;
}

hcrt__ofl_write_rule_t hcrt__ofl_get_write_rule(void)
{
    return write_rule;
}

int hcrt__ofl_map_writes(hcrt__ofl_kind_t kind, const hcrt__ofl_map_t *m,
                         const hcrt_depend_info_t *deps, int32_t ndeps)
{
    if (!hcrt__ofl_map_is_data(m))
        return 0;
    switch (kind) {
    case HCRT_OFL_DATA_ENTER:
    case HCRT_OFL_DATA_UPDATE:
        return (m->type & HCRT_OFL_MAP_TO) != 0;
    case HCRT_OFL_KERNEL:
        break;
    default:
        return 0;
    }
    /* A kernel may store into any device data it can reach, whatever its
     * map type (`to`, `alloc`, present) or depend items say: `depend(in:)`
     * on data the kernel writes is legal when no concurrent task reads it
     * (OpenMP_VV's depend tests do it). So by default every mapped buffer
     * is a possible write. */
    if (write_rule == HCRT_OFL_WRITES_ALL)
        return 1;
    int named = 0, writes = 0;
    for (int32_t i = 0; i < ndeps; i++) {
        if (!dep_names_map(&deps[i], m))
            continue;
        named = 1;
        if (deps[i].flags & ~HCRT_OFL_DEP_IN)
            writes = 1;
    }
    if (named)
        return writes;
    return (m->type & HCRT_OFL_MAP_FROM) != 0;
}

int hcrt__ofl_map_shared_read(const hcrt__ofl_map_t *m,
                              const hcrt_depend_info_t *deps, int32_t ndeps)
{
    if ((m->type & (HCRT_OFL_MAP_TO | HCRT_OFL_MAP_FROM)) != HCRT_OFL_MAP_TO)
        return 0;
    for (int32_t i = 0; i < ndeps; i++)
        if (dep_names_map(&deps[i], m) && (deps[i].flags & ~HCRT_OFL_DEP_IN))
            return 0;
    return 1;
}

hcrt_status_t hcrt__ofl_classify(const hcrt__ofl_map_t *maps, int32_t nmaps,
                                 hcrt__ofl_unsupported_t *why)
{
    hcrt__ofl_unsupported_t w = HCRT_OFL_OK;
    for (int32_t i = 0; i < nmaps && w == HCRT_OFL_OK; i++) {
        int64_t t = maps[i].type;
        int member = HCRT_OFL_MAP_MEMBER_OF(t);
        if (t & HCRT_OFL_MAP_RETURN_PARAM)
            w = HCRT_OFL_USE_DEVICE_PTR;
        else if (t & HCRT_OFL_MAP_OMPX_HOLD)
            w = HCRT_OFL_HOLD;
        else if (maps[i].size < 0 || member > i)
            w = HCRT_OFL_BAD_MAP; /* a member names a later parent */
    }
    if (why != NULL)
        *why = w;
    if (w == HCRT_OFL_BAD_MAP)
        return HCRT_ERR_INVALID;
    return w == HCRT_OFL_OK ? HCRT_OK : HCRT_ERR_UNSUPPORTED;
}

hcrt_status_t hcrt__ofl_classify_requires(int64_t flags,
                                          hcrt__ofl_unsupported_t *why)
{
    hcrt__ofl_unsupported_t w = HCRT_OFL_OK;
    if (flags & 0x8)
        w = HCRT_OFL_USM;
    else if (flags & 0x4)
        w = HCRT_OFL_UNIFIED_ADDRESS;
    if (why != NULL)
        *why = w;
    return w == HCRT_OFL_OK ? HCRT_OK : HCRT_ERR_UNSUPPORTED;
}

const char *hcrt__ofl_unsupported_str(hcrt__ofl_unsupported_t why)
{
    switch (why) {
    case HCRT_OFL_OK:
        return "supported";
    case HCRT_OFL_USE_DEVICE_PTR:
        return "use_device_ptr/use_device_addr hand a device address to host "
               "code, but a cluster node's memory is not addressable from the "
               "head (remove the clauses to offload)";
    case HCRT_OFL_HOLD:
        return "the ompx_hold map modifier is not supported across nodes; the "
               "construct runs on the head";
    case HCRT_OFL_USM:
        return "'requires unified_shared_memory' cannot hold across nodes "
               "(separate address spaces); target regions run on the head";
    case HCRT_OFL_UNIFIED_ADDRESS:
        return "'requires unified_address' cannot hold across nodes; target "
               "regions run on the head";
    case HCRT_OFL_DEVICE_PTR:
        return "is_device_ptr / omp_target_alloc memory lives on one node and "
               "cannot be moved by the data manager; the region runs on the "
               "head (map the data instead)";
    case HCRT_OFL_BAD_MAP:
        return "malformed map list (negative size or a MEMBER_OF naming a "
               "later entry): recompile with the matching clang-19";
    }
    return "unknown";
}
