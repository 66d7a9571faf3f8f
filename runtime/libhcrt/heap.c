/*
 * heap.c - the user heap (malloc family rewritten by the pass).
 *
 * One node: the C library's heap. The cluster runtime serves these from the
 * DSM heap (runtime/dsm/dsm.h) instead; the hook point is each function's
 * body. free/realloc must keep accepting pointers the C library handed out
 * directly (strdup, getline, ...), so they will test DSM ownership first and
 * pass anything else to libc.
 */
#include <errno.h>
#include <stdlib.h>

#include "libhcrt/core.h"

HCRT_ABI_EXPORT void *__hcrt_malloc(size_t size)
{
    return malloc(size);
}

HCRT_ABI_EXPORT void *__hcrt_calloc(size_t n, size_t size)
{
    return calloc(n, size);
}

HCRT_ABI_EXPORT void *__hcrt_realloc(void *p, size_t size)
{
    return realloc(p, size);
}

HCRT_ABI_EXPORT void __hcrt_free(void *p)
{
    free(p);
}

HCRT_ABI_EXPORT void *__hcrt_aligned_alloc(size_t align, size_t size)
{
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
    rc = posix_memalign(&p, align, size);
    if (rc) {
        errno = rc;
        return NULL;
    }
    return p;
}
