/*
 * target_data.c - data mapping and the device memory API on the host device.
 *
 * On one node the only device is the host: mapped data aliases host memory,
 * so map clauses move nothing. Reference counts are still kept per address
 * range (enter/exit data, target data regions, `delete`), because the data
 * manager of the cluster runtime takes over this table, and they make the
 * mapping state visible in debug logs and statistics.
 *
 * omp_target_* routines accept the host device (omp_initial_device or
 * omp_get_initial_device()) and fail, as the spec says, for any other.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "libhcrt/core.h"
#include "libhcrt/offload/ofl_exec.h"
#include "libhcrt/target.h"

#define REF_INF UINT64_MAX /* associated pointers: never unmapped by exit */

typedef struct range {
    uintptr_t begin, end;
    uint64_t refs;
} range_t;

typedef struct map_table {
    range_t *v;
    size_t n, cap;
    uint64_t begins, ends, updates, deletes, unmatched;
} map_table_t;

static map_table_t maps;
static pthread_mutex_t maps_lock = PTHREAD_MUTEX_INITIALIZER;

static range_t *range_find(uintptr_t b, uintptr_t e)
{
    for (size_t i = 0; i < maps.n; i++)
        if (maps.v[i].begin <= b && e <= maps.v[i].end)
            return &maps.v[i];
    return NULL;
}

static hcrt_status_t range_add(uintptr_t b, uintptr_t e, uint64_t refs)
{
    if (maps.n == maps.cap) {
        size_t cap = maps.cap ? 2 * maps.cap : 64;
        range_t *v = realloc(maps.v, cap * sizeof(*v));
        if (!v)
            return HCRT_ERR_NOMEM;
        maps.v = v, maps.cap = cap;
    }
    maps.v[maps.n++] = (range_t){b, e, refs};
    return HCRT_OK;
}

static void range_remove(range_t *r)
{
    *r = maps.v[--maps.n];
}

/* Entries that name storage (not literals or private copies) with a size. */
static int maps_storage(int64_t type, int64_t size)
{
    return size > 0 && !(type & (HCRT_MAP_LITERAL | HCRT_MAP_PRIVATE));
}

static void map_enter(void *ptr, int64_t size, int64_t type)
{
    uintptr_t b = (uintptr_t)ptr, e = b + (uintptr_t)size;
    range_t *r;

    if (!maps_storage(type, size))
        return;
    r = range_find(b, e);
    if (r) {
        if (r->refs != REF_INF)
            r->refs++;
    } else if (range_add(b, e, 1) != HCRT_OK) {
        hcrt_fatal(HCRT_MOD_TARGET, "out of memory for the mapping table");
    }
}

static void map_exit(void *ptr, int64_t size, int64_t type)
{
    uintptr_t b = (uintptr_t)ptr, e = b + (uintptr_t)size;
    range_t *r;

    if (!maps_storage(type, size))
        return;
    r = range_find(b, e);
    if (!r) {
        maps.unmatched++;
        hcrt_debug(HCRT_MOD_TARGET,
                   "exit data for %p (%" PRId64 " bytes) "
                   "that is not mapped: nothing to do",
                   ptr, size);
        return;
    }
    if (r->refs == REF_INF)
        return;
    if (type & HCRT_MAP_DELETE) {
        maps.deletes++;
        r->refs = 0;
    } else {
        r->refs--;
    }
    if (r->refs == 0)
        range_remove(r);
}

/* ---- user-defined mappers ------------------------------------------------ */

typedef struct mapper_comp {
    void *base, *begin;
    int64_t size, type;
    void *name;
} mapper_comp_t;

typedef struct mapper_handle {
    mapper_comp_t *v;
    int64_t n, cap;
} mapper_handle_t;

typedef void (*mapper_fn_t)(void *handle, void *base, void *begin, int64_t size,
                            int64_t type, void *name);

HCRT_ABI_EXPORT int64_t __hcrt_mapper_num_components(void *handle)
{
    return ((mapper_handle_t *)handle)->n;
}

HCRT_ABI_EXPORT void __hcrt_push_mapper_component(void *handle, void *base,
                                                  void *begin, int64_t size,
                                                  int64_t type, void *name)
{
    mapper_handle_t *h = handle;

    if (h->n == h->cap) {
        int64_t cap = h->cap ? 2 * h->cap : 8;
        mapper_comp_t *v = realloc(h->v, (size_t)cap * sizeof(*v));
        if (!v)
            hcrt_fatal(HCRT_MOD_TARGET, "out of memory in a declare mapper");
        h->v = v, h->cap = cap;
    }
    h->v[h->n++] = (mapper_comp_t){base, begin, size, type, name};
}

typedef void (*map_op_t)(void *ptr, int64_t size, int64_t type);

/* Applies op to each entry, expanding user-defined mappers into their
 * components as libomptarget does. */
static void map_each(int32_t nargs, void **bases, void **ptrs, int64_t *sizes,
                     int64_t *types, void **names, void **mappers, map_op_t op)
{
    for (int32_t i = 0; i < nargs; i++) {
        if (mappers && mappers[i]) {
            mapper_handle_t h = {0};
            ((mapper_fn_t)mappers[i])(&h, bases[i], ptrs[i], sizes[i], types[i],
                                      names ? names[i] : NULL);
            for (int64_t c = 0; c < h.n; c++)
                op(h.v[c].begin, h.v[c].size, h.v[c].type);
            free(h.v);
            continue;
        }
        op(ptrs[i], sizes[i], types[i]);
    }
}

static void data_op(int64_t device_id, int32_t nargs, void **bases, void **ptrs,
                    int64_t *sizes, int64_t *types, void **names,
                    void **mappers, map_op_t op, uint64_t *counter)
{
    hcrt__runtime_ensure();
    /* Worker ranks are devices: the data manager maps (offload/). */
    if (hcrt__num_devices() > 0 && !hcrt__device_is_host(device_id) &&
        hcrt__offload_data(op == map_enter  ? 1
                           : op == map_exit ? 2
                                            : 3,
                           device_id, nargs, bases, ptrs, sizes, types,
                           mappers) == 0) {
        __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
        return;
    }
    if (!hcrt__device_is_host(device_id))
        hcrt_debug(HCRT_MOD_TARGET,
                   "device %" PRId64 " does not exist: data "
                   "stays on the host",
                   device_id);
    pthread_mutex_lock(&maps_lock);
    (*counter)++;
    if (op)
        map_each(nargs, bases, ptrs, sizes, types, names, mappers, op);
    pthread_mutex_unlock(&maps_lock);
}

#define HCRT_DEF_TGT_DATA(what, op, counter)                                   \
    HCRT_ABI_EXPORT void __hcrt_target_data_##what##_mapper(                   \
        hcrt_ident_t *loc, int64_t device_id, int32_t nargs, void **bases,     \
        void **ptrs, int64_t *sizes, int64_t *types, void **names,             \
        void **mappers)                                                        \
    {                                                                          \
        (void)loc;                                                             \
        data_op(device_id, nargs, bases, ptrs, sizes, types, names, mappers,   \
                op, &maps.counter);                                            \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_target_data_##what##_nowait_mapper(            \
        hcrt_ident_t *loc, int64_t device_id, int32_t nargs, void **bases,     \
        void **ptrs, int64_t *sizes, int64_t *types, void **names,             \
        void **mappers, int32_t ndeps, void *deps, int32_t ndeps_noalias,      \
        void *noalias)                                                         \
    {                                                                          \
        /* Host data needs no transfer to wait for: run it in place. */        \
        (void)ndeps, (void)deps, (void)ndeps_noalias, (void)noalias;           \
        __hcrt_target_data_##what##_mapper(loc, device_id, nargs, bases, ptrs, \
                                           sizes, types, names, mappers);      \
    }

HCRT_DEF_TGT_DATA(begin, map_enter, begins)
HCRT_DEF_TGT_DATA(end, map_exit, ends)
HCRT_DEF_TGT_DATA(update, NULL, updates)
#undef HCRT_DEF_TGT_DATA

HCRT_ABI_EXPORT void __hcrt_register_requires(int64_t flags)
{
    /* unified_shared_memory, unified_address, reverse_offload: all hold
     * trivially on the host device; remember them for the cluster runtime. */
    hcrt__offload_register_requires(flags);
}

int hcrt__target_data_print(FILE *out)
{
    pthread_mutex_lock(&maps_lock);
    int said = maps.begins || maps.ends || maps.updates || maps.n;
    fprintf(out,
            "data mapping on the host device: enter %" PRIu64 ", exit %" PRIu64
            " (delete %" PRIu64 ", unmatched %" PRIu64 "), update %" PRIu64
            ", ranges still mapped %zu\n",
            maps.begins, maps.ends, maps.deletes, maps.unmatched, maps.updates,
            maps.n);
    pthread_mutex_unlock(&maps_lock);
    return said;
}

/* ---- omp_target_* on the host device ------------------------------------- */

/* A worker device's omp_target_alloc memory lives on the head (see
 * ofl_target.c): omp_target_memcpy treats it as host memory. */
static int is_worker(int device)
{
    return device >= 0 && device < hcrt__num_devices();
}

static int host_side(const void *p, size_t len, int device)
{
    return hcrt__device_is_host(device) ||
           (is_worker(device) && hcrt__offload_is_dev_mem(p, len));
}

HCRT_ABI_EXPORT void *__hcrt_omp_target_alloc(size_t size, int device)
{
    if (size == 0)
        return NULL;
    if (is_worker(device))
        return hcrt__offload_dev_alloc(size);
    if (!hcrt__device_is_host(device))
        return NULL;
    return malloc(size);
}

HCRT_ABI_EXPORT void __hcrt_omp_target_free(void *p, int device)
{
    if (p && is_worker(device))
        hcrt__offload_dev_free(p);
    else if (p && hcrt__device_is_host(device))
        free(p);
}

HCRT_ABI_EXPORT int __hcrt_omp_target_is_present(const void *p, int device)
{
    /* Host memory is always present on the host device; each worker device
     * has its own data environment (offload/). */
    if (device >= 0 && device < hcrt__num_devices())
        return hcrt__offload_is_present(p, device);
    return hcrt__device_is_host(device);
}

HCRT_ABI_EXPORT int __hcrt_omp_target_memcpy(void *dst, const void *src,
                                             size_t length, size_t dst_off,
                                             size_t src_off, int dst_dev,
                                             int src_dev)
{
    if (length == 0)
        return 0;
    if (!dst || !src || !host_side((char *)dst + dst_off, length, dst_dev) ||
        !host_side((const char *)src + src_off, length, src_dev))
        return EINVAL;
    memmove((char *)dst + dst_off, (const char *)src + src_off, length);
    return 0;
}

/* Copies a num_dims-dimensional sub-volume, one dimension per level. */
static void copy_rect(char *dst, const char *src, size_t esize, int dims,
                      const size_t *vol, const size_t *doff, const size_t *soff,
                      const size_t *ddim, const size_t *sdim)
{
    size_t dstride = esize, sstride = esize;

    for (int d = 1; d < dims; d++)
        dstride *= ddim[d], sstride *= sdim[d];
    dst += doff[0] * dstride;
    src += soff[0] * sstride;
    if (dims == 1) {
        memmove(dst, src, vol[0] * esize);
        return;
    }
    for (size_t i = 0; i < vol[0]; i++)
        copy_rect(dst + i * dstride, src + i * sstride, esize, dims - 1,
                  vol + 1, doff + 1, soff + 1, ddim + 1, sdim + 1);
}

HCRT_ABI_EXPORT int __hcrt_omp_target_memcpy_rect(
    void *dst, const void *src, size_t esize, int num_dims,
    const size_t *volume, const size_t *dst_offsets, const size_t *src_offsets,
    const size_t *dst_dimensions, const size_t *src_dimensions, int dst_dev,
    int src_dev)
{
    if (!dst && !src)
        return INT_MAX; /* the spec's query: dimensions supported */
    if (!dst || !src || num_dims < 1 || !volume || !dst_offsets ||
        !src_offsets || !dst_dimensions || !src_dimensions ||
        !hcrt__device_is_host(dst_dev) || !hcrt__device_is_host(src_dev))
        return EINVAL;
    copy_rect(dst, src, esize, num_dims, volume, dst_offsets, src_offsets,
              dst_dimensions, src_dimensions);
    return 0;
}

/* On the host device storage can only be "associated" with itself. */
HCRT_ABI_EXPORT int
__hcrt_omp_target_associate_ptr(const void *host_ptr, const void *device_ptr,
                                size_t size, size_t device_offset, int device)
{
    uintptr_t b = (uintptr_t)host_ptr;
    hcrt_status_t st = HCRT_OK;

    if (!host_ptr || !device_ptr || size == 0 ||
        !hcrt__device_is_host(device) ||
        (const char *)device_ptr + device_offset != (const char *)host_ptr)
        return EINVAL;
    pthread_mutex_lock(&maps_lock);
    range_t *r = range_find(b, b + size);
    if (r)
        r->refs = REF_INF;
    else
        st = range_add(b, b + size, REF_INF);
    pthread_mutex_unlock(&maps_lock);
    return st == HCRT_OK ? 0 : ENOMEM;
}

HCRT_ABI_EXPORT int __hcrt_omp_target_disassociate_ptr(const void *host_ptr,
                                                       int device)
{
    uintptr_t b = (uintptr_t)host_ptr;
    int rc = EINVAL;

    if (!hcrt__device_is_host(device))
        return EINVAL;
    pthread_mutex_lock(&maps_lock);
    for (size_t i = 0; i < maps.n; i++)
        if (maps.v[i].begin == b && maps.v[i].refs == REF_INF) {
            range_remove(&maps.v[i]);
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&maps_lock);
    return rc;
}
