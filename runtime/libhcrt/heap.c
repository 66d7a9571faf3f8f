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
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
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

/* Frees `p` if the DSM heap handed it out and says so. After shutdown
 * (destructors of C++ globals, atexit handlers) DSM blocks are dropped: the
 * range is gone, and libc must never see such a pointer. */
static int dsm_free_if_owned(void *p)
{
    uintptr_t v = (uintptr_t)p;

    if (DSM_HEAP && p && hcrt__dsm_contains(p)) {
        hcrt__dsm_free(p);
        return 1;
    }
    return v >= hcrt__cluster_heap_lo && v < hcrt__cluster_heap_hi;
}

HCRT_ABI_EXPORT void __hcrt_free(void *p)
{
    if (!dsm_free_if_owned(p))
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

/* ---- C++ replaceable operator new/delete (every form) --------------------
 *
 * The pass renames user calls of ::operator new/delete to these. In cluster
 * mode memory comes from the DSM heap with operator new's contract: on
 * failure call the new-handler and retry, or throw std::bad_alloc (nothrow
 * forms return NULL). Otherwise, and for delete of memory the DSM did not
 * hand out (e.g. allocated by a static constructor before main, or by
 * libstdc++ itself), the C++ library's own operator runs. Its symbols are
 * weak references: a C program never links them and never calls these. */
typedef void (*new_handler_t)(void);
extern void *_Znwm(size_t) __attribute__((weak));
extern void *_Znam(size_t) __attribute__((weak));
extern void *_ZnwmRKSt9nothrow_t(size_t, const void *) __attribute__((weak));
extern void *_ZnamRKSt9nothrow_t(size_t, const void *) __attribute__((weak));
extern void *_ZnwmSt11align_val_t(size_t, size_t) __attribute__((weak));
extern void *_ZnamSt11align_val_t(size_t, size_t) __attribute__((weak));
extern void *_ZnwmSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *)
    __attribute__((weak));
extern void *_ZnamSt11align_val_tRKSt9nothrow_t(size_t, size_t, const void *)
    __attribute__((weak));
extern void _ZdlPv(void *) __attribute__((weak));
extern void _ZdaPv(void *) __attribute__((weak));
extern void _ZdlPvm(void *, size_t) __attribute__((weak));
extern void _ZdaPvm(void *, size_t) __attribute__((weak));
extern void _ZdlPvRKSt9nothrow_t(void *, const void *) __attribute__((weak));
extern void _ZdaPvRKSt9nothrow_t(void *, const void *) __attribute__((weak));
extern void _ZdlPvSt11align_val_t(void *, size_t) __attribute__((weak));
extern void _ZdaPvSt11align_val_t(void *, size_t) __attribute__((weak));
extern void _ZdlPvmSt11align_val_t(void *, size_t, size_t)
    __attribute__((weak));
extern void _ZdaPvmSt11align_val_t(void *, size_t, size_t)
    __attribute__((weak));
extern void _ZdlPvSt11align_val_tRKSt9nothrow_t(void *, size_t, const void *)
    __attribute__((weak));
extern void _ZdaPvSt11align_val_tRKSt9nothrow_t(void *, size_t, const void *)
    __attribute__((weak));
extern new_handler_t _ZSt15get_new_handlerv(void) __attribute__((weak));
extern _Noreturn void _ZSt17__throw_bad_allocv(void) __attribute__((weak));

/* DSM memory for operator new: `align` 0 means the default alignment. */
static void *cxx_dsm_new(size_t size, size_t align, int nothrow)
{
    for (;;) {
        void *p = NULL;
        if (align > 2 * sizeof(void *)) {
            if (hcrt__dsm_posix_memalign(&p, align, size ? size : 1) != 0)
                p = NULL;
        } else {
            p = hcrt__dsm_malloc(size ? size : 1);
        }
        if (p || nothrow)
            return p;
        new_handler_t h =
            _ZSt15get_new_handlerv ? _ZSt15get_new_handlerv() : NULL;
        if (h) {
            h(); /* may free memory, throw, or end the program */
            continue;
        }
        if (_ZSt17__throw_bad_allocv)
            _ZSt17__throw_bad_allocv();
        hcrt_fatal(HCRT_MOD_CORE,
                   "operator new: out of DSM memory (%zu "
                   "bytes)",
                   size);
    }
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new(size_t size)
{
    return DSM_HEAP ? cxx_dsm_new(size, 0, 0) : _Znwm(size);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_array(size_t size)
{
    return DSM_HEAP ? cxx_dsm_new(size, 0, 0) : _Znam(size);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_nothrow(size_t size, const void *nt)
{
    return DSM_HEAP ? cxx_dsm_new(size, 0, 1) : _ZnwmRKSt9nothrow_t(size, nt);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_array_nothrow(size_t size, const void *nt)
{
    return DSM_HEAP ? cxx_dsm_new(size, 0, 1) : _ZnamRKSt9nothrow_t(size, nt);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_aligned(size_t size, size_t al)
{
    return DSM_HEAP ? cxx_dsm_new(size, al, 0) : _ZnwmSt11align_val_t(size, al);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_array_aligned(size_t size, size_t al)
{
    return DSM_HEAP ? cxx_dsm_new(size, al, 0) : _ZnamSt11align_val_t(size, al);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_aligned_nothrow(size_t size, size_t al,
                                                     const void *nt)
{
    return DSM_HEAP ? cxx_dsm_new(size, al, 1)
                    : _ZnwmSt11align_val_tRKSt9nothrow_t(size, al, nt);
}

HCRT_ABI_EXPORT void *
__hcrt_cxx_new_array_aligned_nothrow(size_t size, size_t al, const void *nt)
{
    return DSM_HEAP ? cxx_dsm_new(size, al, 1)
                    : _ZnamSt11align_val_tRKSt9nothrow_t(size, al, nt);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete(void *p)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdlPv(p);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_array(void *p)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdaPv(p);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_sized(void *p, size_t n)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdlPvm(p, n);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_sized(void *p, size_t n)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdaPvm(p, n);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_nothrow(void *p, const void *nt)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdlPvRKSt9nothrow_t(p, nt);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_nothrow(void *p, const void *nt)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdaPvRKSt9nothrow_t(p, nt);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_aligned(void *p, size_t al)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdlPvSt11align_val_t(p, al);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_aligned(void *p, size_t al)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdaPvSt11align_val_t(p, al);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_sized_aligned(void *p, size_t n,
                                                     size_t al)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdlPvmSt11align_val_t(p, n, al);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_sized_aligned(void *p, size_t n,
                                                           size_t al)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdaPvmSt11align_val_t(p, n, al);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_aligned_nothrow(void *p, size_t al,
                                                       const void *nt)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdlPvSt11align_val_tRKSt9nothrow_t(p, al, nt);
}

HCRT_ABI_EXPORT void __hcrt_cxx_delete_array_aligned_nothrow(void *p, size_t al,
                                                             const void *nt)
{
    if (!dsm_free_if_owned(p) && p)
        _ZdaPvSt11align_val_tRKSt9nothrow_t(p, al, nt);
}
