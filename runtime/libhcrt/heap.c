/*
 * heap.c - the user heap (malloc family rewritten by the pass).
 *
 * One node: the C library's heap. In a cluster job: before main the arena
 * (arena.c: static constructors run before the DSM exists), from start-up
 * on the DSM heap (runtime/dsm/dsm.h), so every node sees the same block at
 * the same address. free/realloc keep accepting pointers the C library
 * handed out (anything allocated outside these calls): they test DSM and
 * arena ownership first and pass anything else to libc. A libc block grown
 * in cluster mode moves to the DSM heap. heap.h says who else uses this.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/heap.h"

#define SHARED_HEAP HCRT_UNLIKELY(hcrt__heap_mode != HCRT_HEAP_LIBC)

/* glibc's own allocator, past any interposition (interpose.c). */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

int hcrt__heap_mode, hcrt__heap_any;

/* A job that will run in cluster mode: the launcher says more than one
 * rank and HCRT_CLUSTER is not off (the start-up decides the same way). */
static int cluster_job(void)
{
    const char *n = getenv("OMPI_COMM_WORLD_SIZE");
    const char *c = getenv("HCRT_CLUSTER");

    if (!n)
        n = getenv("PMI_SIZE");
    if (!n || atoi(n) < 2)
        return 0;
    return !c || !(!strcmp(c, "0") || !strcasecmp(c, "false") ||
                   !strcasecmp(c, "no") || !strcasecmp(c, "off"));
}

/* ---- whether the executable is an hcc program ---------------------------
 * Only a program whose main the pass wrapped (it calls __hcrt_main, so the
 * executable imports that name) starts the runtime before its own main
 * runs; another program linked with libhcrt (a C test, a library user)
 * might never, and its allocations must not stay in the arena. */

static uintptr_t dyn_ptr(const struct dl_phdr_info *info, uintptr_t p)
{
    return p >= info->dlpi_addr ? p : p + info->dlpi_addr; /* relocated? */
}

/* Number of .dynsym entries from the GNU hash table. */
static size_t gnu_hash_nsyms(const uint32_t *h)
{
    uint32_t nb = h[0], off = h[1], bloom = h[2], top = 0;
    const uint32_t *buckets = h + 4 + bloom * (sizeof(ElfW(Addr)) / 4);
    const uint32_t *chain = buckets + nb;

    for (uint32_t i = 0; i < nb; i++)
        top = buckets[i] > top ? buckets[i] : top;
    if (top < off)
        return off;
    while (!(chain[top - off] & 1))
        top++;
    return (size_t)top + 1;
}

static int exe_imports_main(struct dl_phdr_info *info, size_t size, void *arg)
{
    const ElfW(Dyn) *dyn = NULL;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    size_t n = 0;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr +
                                      info->dlpi_phdr[i].p_vaddr);
    for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
        uintptr_t p = dyn_ptr(info, dyn->d_un.d_ptr);
        if (dyn->d_tag == DT_SYMTAB)
            sym = (const ElfW(Sym) *)p;
        else if (dyn->d_tag == DT_STRTAB)
            str = (const char *)p;
        else if (dyn->d_tag == DT_GNU_HASH)
            n = gnu_hash_nsyms((const uint32_t *)p);
        else if (dyn->d_tag == DT_HASH && !n)
            n = ((const uint32_t *)p)[1];
    }
    for (size_t i = 0; sym && str && i < n; i++)
        if (!strcmp(str + sym[i].st_name, "__hcrt_main"))
            *(int *)arg = 1;
    return 1; /* the executable comes first: stop there */
}

static int hcc_program(void)
{
    int yes = 0;
    dl_iterate_phdr(exe_imports_main, &yes);
    return yes;
}

/* ---- whether the process's allocator is ours ----------------------------
 * The executable and LD_PRELOAD libraries come before libhcrt.so in symbol
 * lookup: a program that defines malloc & co. itself (or runs under a
 * preloaded jemalloc, tcmalloc, ...) serves MPI's, libomp's and the C
 * library's allocations, and the runtime can no longer keep the program's
 * heap shared or its own memory out of the DSM. The definition must come
 * from libhcrt (its interposition, interpose.c) or from the C library. */

static const char *const alloc_names[] = {
    "malloc", "calloc",        "realloc",        "free",   "memalign",
    "valloc", "aligned_alloc", "posix_memalign", "pvalloc"};

static const void *object_base(const void *addr)
{
    Dl_info di;
    return addr && dladdr(addr, &di) ? di.dli_fbase : NULL;
}

static void find_foreign(const char **who, const char **what)
{
    const void *self = object_base((const void *)hcrt__heap_started);
    const void *libc = object_base((const void *)__libc_malloc);

    for (size_t i = 0; i < sizeof(alloc_names) / sizeof(*alloc_names); i++) {
        Dl_info di;
        void *f = dlsym(RTLD_DEFAULT, alloc_names[i]);
        if (!f || !dladdr(f, &di) || di.dli_fbase == self ||
            di.dli_fbase == libc)
            continue;
        *what = alloc_names[i];
        *who = di.dli_fname && *di.dli_fname ? di.dli_fname : "the program";
        return;
    }
}

const char *hcrt__heap_foreign_allocator(const char **name)
{
    static int done;
    static const char *who, *what;

    if (!done) /* the constructor asks first, start-up again */
        find_foreign(&who, &what), done = 1;
    if (name)
        *name = what;
    return who;
}

/* Before any static constructor of the program (shared libraries' run
 * first, the executable's last): memory of a cluster job's constructors
 * comes from the arena. */
__attribute__((constructor(101))) static void heap_early(void)
{
    if (cluster_job() && hcc_program() && !hcrt__heap_foreign_allocator(NULL) &&
        hcrt__arena_open()) {
        hcrt__heap_any = 1;
        hcrt__heap_mode = HCRT_HEAP_ARENA;
    }
}

void hcrt__heap_started(int cluster)
{
    hcrt__heap_mode = cluster ? HCRT_HEAP_DSM : HCRT_HEAP_LIBC;
    hcrt__heap_any |= cluster;
}

/* A child forked in cluster mode: DSM memory is a mapping shared with the
 * parent and no service thread serves the child's faults, so its blocks
 * are the parent's (never freed or resized in place here) and the child
 * allocates from the C library. */
static int forked;

void hcrt__heap_fork_child(void)
{
    forked = 1;
    hcrt__heap_mode = HCRT_HEAP_LIBC;
}

void hcrt__heap_shutdown(void)
{
    hcrt__heap_mode = HCRT_HEAP_LIBC;
}

static int in_dsm_heap(const void *p)
{
    uintptr_t v = (uintptr_t)p;
    return v >= hcrt__cluster_heap_lo && v < hcrt__cluster_heap_hi;
}

int hcrt__heap_owned(const void *p)
{
    return hcrt__heap_any && p &&
           ((in_dsm_heap(p) && hcrt__cluster_on) || hcrt__arena_contains(p));
}

static void *dsm_alloc(size_t size, size_t align, int zero)
{
    void *p = NULL;

    if (align > 16) {
        if (hcrt__dsm_posix_memalign(&p, align, size ? size : 1) != 0)
            return NULL;
        if (zero)
            memset(p, 0, size);
        return p;
    }
    return zero ? hcrt__dsm_calloc(1, size) : hcrt__dsm_malloc(size);
}

void *hcrt__heap_alloc(size_t size, size_t align, int zero)
{
    switch (hcrt__heap_mode) {
    case HCRT_HEAP_DSM:
        return dsm_alloc(size, align, zero);
    case HCRT_HEAP_ARENA: {
        void *p = hcrt__arena_alloc(size, align);
        if (p)
            return p;
        /* a full arena: the C library's, private to each rank */
    }
        /* fall through */
    default:
        if (align > 16)
            return __libc_memalign(align, size);
        return zero ? __libc_calloc(1, size) : __libc_malloc(size);
    }
}

void hcrt__heap_free(void *p)
{
    if (!p)
        return;
    if (HCRT_UNLIKELY(hcrt__heap_any)) {
        /* after shutdown (destructors of C++ globals, atexit handlers)
         * and in a forked child DSM blocks are dropped: the DSM's
         * allocator is not this process's to use, and libc must never see
         * such a pointer; arena blocks are never reused */
        if (in_dsm_heap(p)) {
            if (hcrt__cluster_on && !forked)
                hcrt__dsm_free(p);
            return;
        }
        if (hcrt__arena_contains(p))
            return;
    }
    __libc_free(p);
}

size_t hcrt__heap_usable(void *p)
{
    if (!hcrt__heap_any || !p)
        return 0;
    if (in_dsm_heap(p) && hcrt__cluster_on)
        return hcrt__dsm_usable_size(p);
    return hcrt__arena_contains(p) ? hcrt__arena_usable(p) : 0;
}

/* A block of another heap (the arena's, or libc's in cluster mode) moves
 * to the heap of the moment, so it is shared like every other block. */
static void *move_block(void *p, size_t old, size_t size)
{
    void *q = hcrt__heap_alloc(size ? size : 1, 0, 0);

    if (q) {
        memcpy(q, p, old < size ? old : size);
        hcrt__heap_free(p);
    }
    return q;
}

/* Bytes a DSM block this process may not resize in place can be copied
 * from: its size in a forked child, the rest of the range (mapped) after
 * shutdown, when the allocator's records are gone. */
static size_t foreign_size(void *p)
{
    if (hcrt__cluster_on)
        return hcrt__dsm_usable_size(p);
    return hcrt__cluster_heap_hi - (uintptr_t)p;
}

void *hcrt__heap_realloc(void *p, size_t size)
{
    if (!p)
        return hcrt__heap_alloc(size, 0, 0);
    if (hcrt__heap_any) {
        if (in_dsm_heap(p) && hcrt__cluster_on && !forked)
            return hcrt__dsm_realloc(p, size);
        if (in_dsm_heap(p)) /* the parent's, or the DSM shut down */
            return move_block(p, foreign_size(p), size);
        if (hcrt__arena_contains(p))
            return move_block(p, hcrt__arena_usable(p), size);
        if (hcrt__heap_mode != HCRT_HEAP_LIBC && !in_dsm_heap(p))
            return move_block(p, malloc_usable_size(p), size);
    }
    return __libc_realloc(p, size);
}

/* ---- the calls the pass renames ------------------------------------------ */

HCRT_ABI_EXPORT void *__hcrt_malloc(size_t size)
{
    return hcrt__heap_alloc(size, 0, 0);
}

HCRT_ABI_EXPORT void *__hcrt_calloc(size_t n, size_t size)
{
    size_t total;

    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return hcrt__heap_alloc(total, 0, 1);
}

HCRT_ABI_EXPORT void *__hcrt_realloc(void *p, size_t size)
{
    return hcrt__heap_realloc(p, size);
}

HCRT_ABI_EXPORT void __hcrt_free(void *p)
{
    hcrt__heap_free(p);
}

/* posix_memalign's contract, checked here so every heap behind these
 * entries sees only valid requests. */
static int valid_alignment(size_t align)
{
    return align >= sizeof(void *) && (align & (align - 1)) == 0;
}

HCRT_ABI_EXPORT void *__hcrt_aligned_alloc(size_t align, size_t size)
{
    if (!align || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return hcrt__heap_alloc(size, align, 0);
}

HCRT_ABI_EXPORT int __hcrt_posix_memalign(void **out, size_t align, size_t size)
{
    if (!valid_alignment(align))
        return EINVAL;
    void *p = hcrt__heap_alloc(size, align, 0);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

HCRT_ABI_EXPORT void *__hcrt_memalign(size_t align, size_t size)
{
    /* memalign(3) accepts any power of two, posix_memalign needs at least
     * sizeof(void *). */
    if (align < sizeof(void *) && align && (align & (align - 1)) == 0)
        align = sizeof(void *);
    if (!valid_alignment(align)) {
        errno = EINVAL;
        return NULL;
    }
    return hcrt__heap_alloc(size, align, 0);
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

/* Shared memory for operator new (the arena before main, then the DSM):
 * `align` 0 means the default alignment. */
static void *cxx_dsm_new(size_t size, size_t align, int nothrow)
{
    for (;;) {
        void *p = hcrt__heap_alloc(size ? size : 1,
                                   align > 2 * sizeof(void *) ? align : 0, 0);
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

/* Frees `p` if the DSM heap or the arena handed it out and says so; after
 * shutdown DSM blocks are dropped (hcrt__heap_free). */
static int dsm_free_if_owned(void *p)
{
    uintptr_t v = (uintptr_t)p;

    if (hcrt__heap_owned(p) ||
        (v >= hcrt__cluster_heap_lo && v < hcrt__cluster_heap_hi)) {
        hcrt__heap_free(p);
        return 1;
    }
    return 0;
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new(size_t size)
{
    return SHARED_HEAP ? cxx_dsm_new(size, 0, 0) : _Znwm(size);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_array(size_t size)
{
    return SHARED_HEAP ? cxx_dsm_new(size, 0, 0) : _Znam(size);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_nothrow(size_t size, const void *nt)
{
    return SHARED_HEAP ? cxx_dsm_new(size, 0, 1)
                       : _ZnwmRKSt9nothrow_t(size, nt);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_array_nothrow(size_t size, const void *nt)
{
    return SHARED_HEAP ? cxx_dsm_new(size, 0, 1)
                       : _ZnamRKSt9nothrow_t(size, nt);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_aligned(size_t size, size_t al)
{
    return SHARED_HEAP ? cxx_dsm_new(size, al, 0)
                       : _ZnwmSt11align_val_t(size, al);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_array_aligned(size_t size, size_t al)
{
    return SHARED_HEAP ? cxx_dsm_new(size, al, 0)
                       : _ZnamSt11align_val_t(size, al);
}

HCRT_ABI_EXPORT void *__hcrt_cxx_new_aligned_nothrow(size_t size, size_t al,
                                                     const void *nt)
{
    return SHARED_HEAP ? cxx_dsm_new(size, al, 1)
                       : _ZnwmSt11align_val_tRKSt9nothrow_t(size, al, nt);
}

HCRT_ABI_EXPORT void *
__hcrt_cxx_new_array_aligned_nothrow(size_t size, size_t al, const void *nt)
{
    return SHARED_HEAP ? cxx_dsm_new(size, al, 1)
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
