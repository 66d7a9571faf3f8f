/*
 * stack.c - storage for stack variables whose address may reach a parallel
 * region: a per-thread LIFO arena.
 *
 * A frame saves the arena's top on entry, allocates each escaping variable
 * (VLAs and dynamic allocas included) and restores the mark on exit. The
 * arena is a list of mmap'd chunks; one chunk is kept as a spare when popped
 * so a frame that straddles a chunk boundary in a loop does not mmap each
 * time. In cluster mode the chunks are DSM memory, so a captured variable
 * has the same address on every node.
 */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"

#define CHUNK_SIZE ((size_t)1 << 20)
#define MIN_ALIGN 16

typedef struct chunk {
    struct chunk *prev;
    size_t size; /* of the whole mapping */
    char *end;
} chunk_t;

typedef struct arena {
    chunk_t *cur; /* the chunk being filled */
    chunk_t *spare;
    int dsm; /* chunks are DSM memory (cluster mode) */
} arena_t;

/* top, end and base of cur: what compiled frames read and bump inline
 * (include/hcrt/abi.h) */
HCRT_ABI_EXPORT _Thread_local hcrt_stack_arena_t __hcrt_stack_arena;
static _Thread_local arena_t arena;
#define view __hcrt_stack_arena
static pthread_key_t arena_key;
static pthread_once_t arena_once = PTHREAD_ONCE_INIT;

static char *chunk_data(chunk_t *c)
{
    return (char *)c + sizeof(chunk_t);
}

static void chunk_unmap(chunk_t *c)
{
    if (hcrt__dsm_contains(c))
        hcrt__dsm_free(c);
    else
        munmap(c, c->size);
}

static void *chunk_map(size_t size)
{
    if (HCRT_UNLIKELY(hcrt__cluster_on)) {
        arena.dsm = 1;
        return hcrt__dsm_aligned_alloc(4096, size);
    }
    void *c = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return c == MAP_FAILED ? NULL : c;
}

/* Thread exit: give the chunks back. */
static void arena_destroy(void *unused)
{
    (void)unused;
    /* After the DSM's shutdown its memory is gone: nothing to give back. */
    if (arena.dsm && !hcrt__dsm_initialized()) {
        memset(&arena, 0, sizeof(arena));
        memset(&view, 0, sizeof(view));
        return;
    }
    while (arena.cur) {
        chunk_t *prev = arena.cur->prev;
        chunk_unmap(arena.cur);
        arena.cur = prev;
    }
    if (arena.spare)
        chunk_unmap(arena.spare);
    memset(&arena, 0, sizeof(arena));
    memset(&view, 0, sizeof(view));
}

static void arena_key_create(void)
{
    pthread_key_create(&arena_key, arena_destroy);
}

static chunk_t *chunk_new(size_t need)
{
    size_t size = CHUNK_SIZE;
    chunk_t *c;

    if (need > SIZE_MAX - sizeof(chunk_t) - 4096)
        return NULL;
    if (need + sizeof(chunk_t) > size)
        size = (need + sizeof(chunk_t) + 4095) & ~(size_t)4095;
    if (arena.spare && arena.spare->size >= size) {
        c = arena.spare;
        arena.spare = NULL;
        return c;
    }
    c = chunk_map(size);
    if (!c)
        return NULL;
    c->size = size;
    c->end = (char *)c + size;
    if (!arena.cur && !arena.spare) { /* this thread's first chunk */
        pthread_once(&arena_once, arena_key_create);
        pthread_setspecific(arena_key, &arena);
    }
    return c;
}

static void chunk_pop(void)
{
    chunk_t *c = arena.cur;

    arena.cur = c->prev;
    if (!arena.spare || arena.spare->size < c->size) {
        if (arena.spare)
            chunk_unmap(arena.spare);
        arena.spare = c;
    } else {
        chunk_unmap(c);
    }
    view.top = arena.cur ? arena.cur->end : NULL;
    view.end = arena.cur ? arena.cur->end : NULL;
    view.base = arena.cur ? chunk_data(arena.cur) : NULL;
}

HCRT_ABI_EXPORT void *__hcrt_stack_save(void)
{
    return view.top;
}

static void *alloc_slow(size_t size, size_t align)
{
    chunk_t *c = chunk_new(size + align);

    if (!c)
        hcrt_fatal(HCRT_MOD_CORE,
                   "out of memory for a stack variable of %zu bytes; a "
                   "variable-length array this large should be heap-allocated",
                   size);
    c->prev = arena.cur;
    arena.cur = c;
    view.end = c->end;
    view.base = chunk_data(c);
    char *p = (char *)(((uintptr_t)chunk_data(c) + align - 1) &
                       ~(uintptr_t)(align - 1));
    view.top = p + size;
    return p;
}

HCRT_ABI_EXPORT void *__hcrt_stack_alloc(size_t size, size_t align)
{
    if (align < MIN_ALIGN)
        align = MIN_ALIGN;
    if (HCRT_UNLIKELY(align & (align - 1)))
        hcrt_fatal(HCRT_MOD_CORE,
                   "internal error: stack alignment %zu is "
                   "not a power of two",
                   align);
    if (size == 0)
        size = 1; /* distinct addresses for distinct variables */
    uintptr_t p = ((uintptr_t)view.top + align - 1) & ~(uintptr_t)(align - 1);
    if (HCRT_LIKELY(view.top && p >= (uintptr_t)view.top &&
                    size <= (uintptr_t)view.end - p)) {
        view.top = (char *)p + size;
        return (void *)p;
    }
    return alloc_slow(size, align);
}

HCRT_ABI_EXPORT void __hcrt_stack_restore(void *mark)
{
    char *m = mark;

    /* Pop every chunk allocated after the mark was taken. */
    while (arena.cur && !(m >= chunk_data(arena.cur) && m <= arena.cur->end))
        chunk_pop();
    if (arena.cur)
        view.top = m;
}

/* fork(): calls fn on each chunk of the calling thread's arena (threads.c
 * gives the child private copies: they are DSM memory in cluster mode). */
void hcrt__stack_each_chunk(void (*fn)(void *p, size_t len))
{
    for (chunk_t *c = arena.cur; c; c = c->prev)
        if (arena.dsm)
            fn(c, c->size);
    if (arena.spare && arena.dsm)
        fn(arena.spare, arena.spare->size);
}
