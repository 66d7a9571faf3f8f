/* An LD_PRELOAD allocator for own_allocator.c: counts, forwards to glibc. */
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static unsigned long calls;

void *malloc(size_t n)
{
    __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED);
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b) { return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
