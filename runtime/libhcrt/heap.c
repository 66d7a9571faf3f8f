/*
 * heap.c - the user heap (malloc family rewritten by the pass).
 *
 * One node: the C library's heap. In cluster mode the DSM heap
 * (runtime/dsm/dsm.h), so every node sees the same block at the same
 * address. free/realloc keep accepting pointers the C library handed out
 * directly (strdup, getline, or anything allocated before the DSM was up):
 * they test DSM ownership first and pass anything else to libc.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"

#define DSM_HEAP HCRT_UNLIKELY(hcrt__cluster_on)

HCRT_ABI_EXPORT void *__hcrt_malloc(size_t size)
{
    if (DSM_HEAP)
        return hcrt__dsm_malloc(size);
    return malloc(size);
}

HCRT_ABI_EXPORT void *__hcrt_calloc(size_t n, size_t size)
{
    if (DSM_HEAP)
        return hcrt__dsm_calloc(n, size);
    return calloc(n, size);
}

/* A libc block grown in cluster mode moves to the DSM heap, so the result
 * is shared like every other allocation of the program. */
static void *realloc_to_dsm(void *p, size_t size)
{
    size_t old = malloc_usable_size(p);
    void *q = hcrt__dsm_malloc(size ? size : 1);

    if (q) {
        memcpy(q, p, old < size ? old : size);
        free(p);
    }
    return q;
}

HCRT_ABI_EXPORT void *__hcrt_realloc(void *p, size_t size)
{
    if (DSM_HEAP) {
        if (!p || hcrt__dsm_contains(p))
            return hcrt__dsm_realloc(p, size);
        return realloc_to_dsm(p, size);
    }
    return realloc(p, size);
}

HCRT_ABI_EXPORT void __hcrt_free(void *p)
{
    if (DSM_HEAP && p && hcrt__dsm_contains(p)) {
        hcrt__dsm_free(p);
        return;
    }
    free(p);
}

HCRT_ABI_EXPORT void *__hcrt_aligned_alloc(size_t align, size_t size)
{
    if (DSM_HEAP)
        return hcrt__dsm_aligned_alloc(align, size);
    return aligned_alloc(align, size);
}

/* posix_memalign's contract, checked here so every heap behind these
 * entries (libc today, the DSM later) sees only valid requests. */
static int valid_alignment(size_t align)
{
    return align >= sizeof(void *) && (align & (align - 1)) == 0;
}

HCRT_ABI_EXPORT int __hcrt_posix_memalign(void **out, size_t align, size_t size)
{
    if (!valid_alignment(align))
        return EINVAL;
    if (DSM_HEAP)
        return hcrt__dsm_posix_memalign(out, align, size);
    return posix_memalign(out, align, size);
}

HCRT_ABI_EXPORT void *__hcrt_memalign(size_t align, size_t size)
{
    void *p = NULL;
    int rc;

    /* memalign(3) accepts any power of two, posix_memalign needs at least
     * sizeof(void *). */
    if (align < sizeof(void *) && align && (align & (align - 1)) == 0)
        align = sizeof(void *);
    if (!valid_alignment(align)) {
        errno = EINVAL;
        return NULL;
    }
    rc = DSM_HEAP ? hcrt__dsm_posix_memalign(&p, align, size)
                  : posix_memalign(&p, align, size);
    if (rc) {
        errno = rc;
        return NULL;
    }
    return p;
}
