/*
 * omp_alloc.c - OpenMP's memory allocators (omp_alloc & co., the allocate
 * directive and clause) as called by user code.
 *
 * One node: libomp's. In cluster mode every allocator gives DSM memory, so
 * a block allocated on one node is valid on every node. Traits as libomp
 * honours them on the host: alignment; pool_size with its fallback
 * (default_mem_fb, null_fb, abort_fb, allocator_fb with fb_data); the
 * memory spaces libomp refuses (high bandwidth without such memory) are
 * refused the same way; sync_hint, access, pinned and partition are
 * accepted and do not change the memory (libomp on the host does the
 * same). An allocator made by omp_init_allocator in cluster mode is a
 * record in DSM memory (its handle is the record's address, valid on every
 * node); a pool's use is a DSM word at the record's home. Each block
 * carries a 32-byte header (its allocator, size and raw block), so
 * omp_free needs no allocator and returns the block to its pool. Handles
 * and blocks of libomp (from one node, or made before start-up) keep going
 * to libomp.
 */
#include <stdint.h>
#include <string.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/heap.h"

typedef uintptr_t handle_t; /* omp_allocator_handle_t, omp_memspace_... */
typedef struct trait {
    int key;
    uintptr_t value;
} trait_t; /* omp_alloctrait_t */

/* libomp's entry points (omp.h is LLVM's: runtime/ declares by hand). */
handle_t omp_init_allocator(handle_t space, int n, const trait_t t[]);
void omp_destroy_allocator(handle_t a);
handle_t omp_get_default_allocator(void);
void *omp_alloc(size_t size, handle_t a);
void *omp_aligned_alloc(size_t align, size_t size, handle_t a);
void *omp_calloc(size_t n, size_t size, handle_t a);
void *omp_aligned_calloc(size_t align, size_t n, size_t size, handle_t a);
void *omp_realloc(void *p, size_t size, handle_t a, handle_t free_a);
void omp_free(void *p, handle_t a);
void *__kmpc_alloc(int gtid, size_t size, handle_t a);
void *__kmpc_aligned_alloc(int gtid, size_t align, size_t size, handle_t a);
void *__kmpc_calloc(int gtid, size_t n, size_t size, handle_t a);
void *__kmpc_realloc(int gtid, void *p, size_t size, handle_t a,
                     handle_t free_a);
void __kmpc_free(int gtid, void *p, handle_t a);

enum { K_ALIGNMENT = 2, K_POOL_SIZE = 4, K_FALLBACK = 5, K_FB_DATA = 6 };
enum { FB_DEFAULT = 11, FB_NULL = 12, FB_ABORT = 13, FB_ALLOCATOR = 14 };
#define DEFAULT_ALLOC 1 /* omp_default_mem_alloc */
#define REC_MAGIC UINT64_C(0x68637274616c6c63)
#define BLK_MAGIC UINT64_C(0x686372746f6d7062)
#define HDR 32

typedef struct rec {
    uint64_t magic;
    uint64_t align, pool, fallback, fb;
    uint64_t used; /* bytes from the pool: DSM atomics at the home */
} rec_t;

typedef struct blk {
    uint64_t magic;
    handle_t a;
    uint64_t size;
    void *raw;
} blk_t;

#define CLUSTER HCRT_UNLIKELY(hcrt__cluster_on)

/* An allocator record of ours (DSM memory), or NULL: a predefined
 * allocator or libomp's own handle. */
static rec_t *rec_of(handle_t a)
{
    rec_t *r = (rec_t *)a;
    return a > 1024 && hcrt__heap_owned(r) && r->magic == REC_MAGIC ? r : NULL;
}

static blk_t *blk_of(void *p)
{
    blk_t *b = (blk_t *)((char *)p - HDR);
    return hcrt__heap_owned(p) && b->magic == BLK_MAGIC ? b : NULL;
}

static uint64_t pool_add(rec_t *r, uint64_t v, int op)
{
    return hcrt__dsm_atomic(&r->used, 8, HCRT_DSM_AT_INT, op, v, 0,
                            __ATOMIC_RELAXED);
}

static void *cl_alloc(size_t align, size_t size, handle_t a, int zero);

/* An allocator libomp made (before start-up): its traits are libomp's
 * secret, the memory is the DSM's all the same. */
static void foreign(handle_t a)
{
    static int said;
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        hcrt_warn(HCRT_MOD_CORE,
                  "omp_alloc: allocator %#lx was made before the cluster "
                  "runtime started (e.g. by a static constructor); its "
                  "traits (alignment, pool size) are not applied across "
                  "nodes: make it in main",
                  (unsigned long)a);
}

/* The pool of r cannot take size more bytes: its fallback decides. */
static void *fall_back(rec_t *r, size_t align, size_t size, int zero)
{
    switch (r->fallback) {
    case FB_NULL:
        return NULL;
    case FB_ABORT:
        hcrt_fatal(HCRT_MOD_CORE,
                   "omp_alloc: %zu bytes do not fit the allocator's pool of "
                   "%llu bytes and its fallback is omp_atv_abort_fb",
                   size, (unsigned long long)r->pool);
    case FB_ALLOCATOR:
        return cl_alloc(align, size, (handle_t)r->fb, zero);
    default:
        return cl_alloc(align, size, DEFAULT_ALLOC, zero);
    }
}

static size_t round_align(size_t align)
{
    size_t a = HDR;
    while (a < align && a < ((size_t)1 << 40))
        a <<= 1; /* libomp takes a non-power of two too: round it up */
    return a;
}

static void *cl_alloc(size_t align, size_t size, handle_t a, int zero)
{
    if (a == 0)
        a = omp_get_default_allocator();
    rec_t *r = rec_of(a);
    if (!r && a > 1024)
        foreign(a);
    if (!size)
        return NULL; /* as libomp */
    if (r && r->align > align)
        align = r->align;
    if (r && r->pool) {
        uint64_t before = pool_add(r, size, HCRT_DSM_AOP_ADD);
        if (before + size > r->pool) {
            pool_add(r, size, HCRT_DSM_AOP_SUB);
            return fall_back(r, align, size, zero);
        }
    }
    size_t A = round_align(align);
    char *raw = hcrt__heap_alloc(size + A, A, zero);
    if (!raw) {
        if (r && r->pool)
            pool_add(r, size, HCRT_DSM_AOP_SUB);
        return r ? fall_back(r, align, size, zero) : NULL;
    }
    blk_t *b = (blk_t *)(raw + A - HDR);
    *b = (blk_t){BLK_MAGIC, r ? a : DEFAULT_ALLOC, size, raw};
    return raw + A;
}

static void cl_free(blk_t *b)
{
    rec_t *r = rec_of(b->a);
    if (r && r->pool)
        pool_add(r, b->size, HCRT_DSM_AOP_SUB);
    b->magic = 0;
    hcrt__heap_free(b->raw);
}

static void *cl_realloc(void *p, size_t size, handle_t a, handle_t free_a)
{
    blk_t *b = p ? blk_of(p) : NULL;
    if (p && !b) /* libomp's block: libomp's realloc */
        return omp_realloc(p, size, a, free_a);
    if (!size) {
        if (b)
            cl_free(b);
        return NULL;
    }
    void *q = cl_alloc(0, size, a ? a : b ? b->a : 0, 0);
    if (q && b) {
        memcpy(q, p, b->size < size ? b->size : size);
        cl_free(b);
    }
    return q;
}

/* ---- allocators ---------------------------------------------------------- */

static handle_t cl_init_allocator(handle_t space, int n, const trait_t t[])
{
    /* libomp validates the traits and refuses the spaces it cannot serve */
    handle_t lib = omp_init_allocator(space, n, t);
    if (!lib)
        return 0;
    omp_destroy_allocator(lib);
    rec_t *r = hcrt__heap_alloc(sizeof *r, 64, 1);
    if (!r)
        return 0;
    *r = (rec_t){REC_MAGIC, 0, 0, FB_DEFAULT, DEFAULT_ALLOC, 0};
    for (int i = 0; i < n; i++) {
        if (t[i].key == K_ALIGNMENT)
            r->align = t[i].value;
        else if (t[i].key == K_POOL_SIZE)
            r->pool = t[i].value;
        else if (t[i].key == K_FALLBACK && t[i].value != (uintptr_t)-1)
            r->fallback = t[i].value;
        else if (t[i].key == K_FB_DATA)
            r->fb = t[i].value;
    }
    return (handle_t)r;
}

HCRT_ABI_EXPORT handle_t __hcrt_omp_init_allocator(handle_t space, int n,
                                                   const trait_t t[])
{
    if (CLUSTER)
        return cl_init_allocator(space, n, t);
    return omp_init_allocator(space, n, t);
}

HCRT_ABI_EXPORT void __hcrt_omp_destroy_allocator(handle_t a)
{
    rec_t *r = CLUSTER ? rec_of(a) : NULL;
    if (r) {
        r->magic = 0;
        hcrt__heap_free(r);
        return;
    }
    omp_destroy_allocator(a);
}

/* ---- omp_alloc & co. ------------------------------------------------------
 */

HCRT_ABI_EXPORT void *__hcrt_omp_alloc(size_t size, handle_t a)
{
    return CLUSTER ? cl_alloc(0, size, a, 0) : omp_alloc(size, a);
}

HCRT_ABI_EXPORT void *__hcrt_omp_aligned_alloc(size_t align, size_t size,
                                               handle_t a)
{
    return CLUSTER ? cl_alloc(align, size, a, 0)
                   : omp_aligned_alloc(align, size, a);
}

HCRT_ABI_EXPORT void *__hcrt_omp_calloc(size_t n, size_t size, handle_t a)
{
    size_t t;
    if (!CLUSTER)
        return omp_calloc(n, size, a);
    return __builtin_mul_overflow(n, size, &t) ? NULL : cl_alloc(0, t, a, 1);
}

HCRT_ABI_EXPORT void *__hcrt_omp_aligned_calloc(size_t align, size_t n,
                                                size_t size, handle_t a)
{
    size_t t;
    if (!CLUSTER)
        return omp_aligned_calloc(align, n, size, a);
    return __builtin_mul_overflow(n, size, &t) ? NULL
                                               : cl_alloc(align, t, a, 1);
}

HCRT_ABI_EXPORT void *__hcrt_omp_realloc(void *p, size_t size, handle_t a,
                                         handle_t free_a)
{
    if (CLUSTER)
        return cl_realloc(p, size, a, free_a);
    return omp_realloc(p, size, a, free_a);
}

HCRT_ABI_EXPORT void __hcrt_omp_free(void *p, handle_t a)
{
    blk_t *b = CLUSTER && p ? blk_of(p) : NULL;
    if (b)
        cl_free(b);
    else if (!hcrt__heap_owned(p)) /* a dropped DSM block stays dropped */
        omp_free(p, a);
}

/* ---- the allocate directive and clause (clang's __kmpc_* calls) ---------- */

HCRT_ABI_EXPORT void *__hcrt_kmpc_alloc(int gtid, size_t size, handle_t a)
{
    return CLUSTER ? cl_alloc(0, size, a, 0) : __kmpc_alloc(gtid, size, a);
}

HCRT_ABI_EXPORT void *__hcrt_kmpc_aligned_alloc(int gtid, size_t align,
                                                size_t size, handle_t a)
{
    return CLUSTER ? cl_alloc(align, size, a, 0)
                   : __kmpc_aligned_alloc(gtid, align, size, a);
}

HCRT_ABI_EXPORT void *__hcrt_kmpc_calloc(int gtid, size_t n, size_t size,
                                         handle_t a)
{
    if (!CLUSTER)
        return __kmpc_calloc(gtid, n, size, a);
    return __hcrt_omp_calloc(n, size, a);
}

HCRT_ABI_EXPORT void *__hcrt_kmpc_realloc(int gtid, void *p, size_t size,
                                          handle_t a, handle_t free_a)
{
    if (CLUSTER)
        return cl_realloc(p, size, a, free_a);
    return __kmpc_realloc(gtid, p, size, a, free_a);
}

HCRT_ABI_EXPORT void __hcrt_kmpc_free(int gtid, void *p, handle_t a)
{
    blk_t *b = CLUSTER && p ? blk_of(p) : NULL;
    if (b)
        cl_free(b);
    else if (!hcrt__heap_owned(p))
        __kmpc_free(gtid, p, a);
}
