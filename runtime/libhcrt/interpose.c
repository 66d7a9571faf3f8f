/*
 * interpose.c - the process's malloc family, and the C library's functions
 * that allocate for their caller, interposed (libhcrt.so only).
 *
 * The pass renames the program's own calls of malloc & co. (heap.c), but
 * memory also comes from code it does not see: the C++ library's
 * non-inline code (std::string growth, streams), the Fortran runtime, code
 * not built by hcc, and the C library on the program's behalf (strdup,
 * getline, asprintf, ...). In a cluster job that memory must be shared
 * too. libhcrt.so precedes libc in every hcc program's symbol lookup, so
 * these definitions serve every call in the process, and route each one by
 * its caller (the return address):
 * - the program: the executable, the C++ and Fortran runtimes and the
 *   libraries named in HCRT_HEAP_LIBS -> the program's heap of the moment
 *   (heap.h: the arena before main, the DSM heap after start-up);
 * - anyone else (MPI, PMIx, libevent, hwloc, libomp, the dynamic loader,
 *   libhcrt itself, the C library's own needs) -> glibc's allocator. MPI
 *   must never get DSM memory it would touch while a page is protected,
 *   and the DSM's own metadata must not come from the DSM.
 * The C library's allocating functions called by the program run with a
 * thread-local mark that sends their internal malloc/realloc calls (which
 * reach these definitions) to the program's heap (getline's line moves
 * there afterwards instead: see line_to_program). free, realloc and
 * malloc_usable_size go by the pointer's owner. On one node, and before a
 * cluster job starts, every call costs one test of a global.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "libhcrt/core.h"
#include "libhcrt/heap.h"

#define EXPORT __attribute__((visibility("default")))
#define RA __builtin_return_address(0)
#define MAX_RANGES 32

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void *__libc_valloc(size_t);
extern void *__libc_pvalloc(size_t);
extern void __libc_free(void *);

static struct {
    uintptr_t lo, hi;
} ranges[MAX_RANGES];
static int nranges;
static uintptr_t libc_lo, libc_hi; /* the C library's code */
static _Thread_local int forced;   /* in a C library call of the program */

/* ---- whose call is it --------------------------------------------------- */

static int named(const char *path, const char *list)
{
    const char *base = strrchr(path, '/');
    size_t n;

    base = base ? base + 1 : path;
    for (const char *s = list; s && *s; s += n + (s[n] == ',')) {
        n = strcspn(s, ",");
        if (n && memmem(base, strlen(base), s, n))
            return 1;
    }
    return 0;
}

static int add_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    const char *extra = arg;

    (void)size;
    if (named(info->dlpi_name, "libc.so.")) {
        for (int i = 0; i < info->dlpi_phnum; i++) {
            const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
            if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
                libc_lo = info->dlpi_addr + ph->p_vaddr;
                libc_hi = libc_lo + ph->p_memsz;
            }
        }
        return 0;
    }
    if (info->dlpi_name[0] &&
        !named(info->dlpi_name, "libstdc++,libc++.,"
                                "libgfortran,libflang,"
                                "libFortran") &&
        !named(info->dlpi_name, extra))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && nranges < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        ranges[nranges].lo = info->dlpi_addr + ph->p_vaddr;
        ranges[nranges].hi = ranges[nranges].lo + ph->p_memsz;
        nranges++;
    }
    return 0;
}

/* The code of the program (main executable first, dlpi_name ""), before
 * any static constructor of the executable allocates. */
__attribute__((constructor(101))) static void find_program(void)
{
    dl_iterate_phdr(add_object, getenv("HCRT_HEAP_LIBS"));
}

static int program(const void *ra)
{
    uintptr_t a = (uintptr_t)ra;

    /* marked: the C library's code working for the program (not the
     * runtime's own calls while it serves such a request) */
    if (forced && a >= libc_lo && a < libc_hi)
        return 1;
    for (int i = 0; i < nranges; i++)
        if (a >= ranges[i].lo && a < ranges[i].hi)
            return 1;
    return 0;
}

/* The program's heap for this call? (One test on one node.) */
#define SHARED(ra) (HCRT_UNLIKELY(hcrt__heap_mode) && program(ra))

/* ---- the malloc family -------------------------------------------------- */

EXPORT void *malloc(size_t n)
{
    if (SHARED(RA))
        return hcrt__heap_alloc(n, 0, 0);
    return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t size)
{
    size_t total;

    if (!SHARED(RA))
        return __libc_calloc(n, size);
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return hcrt__heap_alloc(total, 0, 1);
}

EXPORT void free(void *p)
{
    if (HCRT_UNLIKELY(hcrt__heap_any))
        hcrt__heap_free(p);
    else
        __libc_free(p);
}

static void *routed_realloc(void *p, size_t n, const void *ra)
{
    if (!hcrt__heap_any)
        return __libc_realloc(p, n);
    if (hcrt__heap_owned(p) || SHARED(ra))
        return hcrt__heap_realloc(p, n);
    return __libc_realloc(p, n); /* includes dropped DSM blocks: as before */
}

EXPORT void *realloc(void *p, size_t n)
{
    return routed_realloc(p, n, RA);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
    size_t total;

    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    return routed_realloc(p, total, RA);
}

static void *aligned(size_t align, size_t n, const void *ra)
{
    if (SHARED(ra))
        return hcrt__heap_alloc(n, align, 0);
    return __libc_memalign(align, n);
}

EXPORT void *memalign(size_t align, size_t n)
{
    if (align & (align - 1)) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, n, RA);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (!align || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return aligned(align, n, RA);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    void *p = aligned(align, n, RA);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

EXPORT void *valloc(size_t n)
{
    if (SHARED(RA))
        return hcrt__heap_alloc(n, 4096, 0);
    return __libc_valloc(n);
}

EXPORT void *pvalloc(size_t n)
{
    if (SHARED(RA))
        return hcrt__heap_alloc((n + 4095) & ~(size_t)4095, 4096, 0);
    return __libc_pvalloc(n);
}

/* The C library's own function (the next definition after this one). */
#define REAL(name, type)                                                       \
    static __typeof__(type) real_##name;                                       \
    if (!real_##name)                                                          \
        real_##name = (type)dlsym(RTLD_NEXT, #name);

EXPORT size_t malloc_usable_size(void *p)
{
    REAL(malloc_usable_size, size_t (*)(void *))
    if (hcrt__heap_owned(p))
        return hcrt__heap_usable(p);
    return p ? real_malloc_usable_size(p) : 0;
}

/* ---- the C library's functions that allocate for their caller ----------
 * Each runs the C library's own code, marked as the program's when its
 * caller is, so that its malloc/realloc calls come back here and take the
 * program's heap. */

#define WRAP(ret, name, params, args)                                          \
    static __attribute__((noinline)) ret marked_##name params                  \
    {                                                                          \
        REAL(name, ret(*) params)                                              \
        forced++;                                                              \
        ret r_ = real_##name args;                                             \
        forced--;                                                              \
        return r_;                                                             \
    }                                                                          \
    EXPORT ret name params                                                     \
    {                                                                          \
        REAL(name, ret(*) params)                                              \
        if (SHARED(RA))                                                        \
            return marked_##name args;                                         \
        return real_##name args;                                               \
    }

WRAP(char *, strdup, (const char *s), (s))
WRAP(char *, __strdup, (const char *s), (s))
WRAP(char *, strndup, (const char *s, size_t n), (s, n))
WRAP(wchar_t *, wcsdup, (const wchar_t *s), (s))
WRAP(char *, __strndup, (const char *s, size_t n), (s, n))
WRAP(int, __vasprintf_chk, (char **out, int flag, const char *fmt, va_list ap),
     (out, flag, fmt, ap))
WRAP(int, vasprintf, (char **out, const char *fmt, va_list ap), (out, fmt, ap))
WRAP(char *, realpath, (const char *path, char *resolved), (path, resolved))
WRAP(char *, canonicalize_file_name, (const char *path), (path))
WRAP(char *, get_current_dir_name, (void), ())
WRAP(char *, getcwd, (char *buf, size_t n), (buf, n))
WRAP(char *, tempnam, (const char *dir, const char *pfx), (dir, pfx))
WRAP(int, scandir,
     (const char *dir, struct dirent ***list, int (*sel)(const struct dirent *),
      int (*cmp)(const struct dirent **, const struct dirent **)),
     (dir, list, sel, cmp))

EXPORT int asprintf(char **out, const char *fmt, ...)
{
    REAL(vasprintf, int (*)(char **, const char *, va_list))
    va_list ap;
    int shared = SHARED(RA), r;

    va_start(ap, fmt);
    forced += shared;
    r = real_vasprintf(out, fmt, ap);
    forced -= shared;
    va_end(ap);
    return r;
}

EXPORT int __asprintf_chk(char **out, int flag, const char *fmt, ...)
{
    REAL(__vasprintf_chk, int (*)(char **, int, const char *, va_list))
    va_list ap;
    int shared = SHARED(RA), r;

    va_start(ap, fmt);
    forced += shared;
    r = real___vasprintf_chk(out, flag, fmt, ap);
    forced -= shared;
    va_end(ap);
    return r;
}

/* getline and getdelim: glibc's code runs unmarked (a stream's own buffer,
 * allocated at its first read, must stay the C library's: it is used at
 * exit, after the DSM is gone); a line buffer it allocated moves to the
 * program's heap, once, and grows there afterwards (realloc goes by the
 * pointer's owner). */
static void line_to_program(char **line, size_t *n)
{
    if (!*line || hcrt__heap_owned(*line))
        return;
    char *q = hcrt__heap_alloc(*n ? *n : 1, 0, 0);
    if (!q)
        return; /* stays the C library's: still valid */
    memcpy(q, *line, *n);
    __libc_free(*line);
    *line = q;
}

#define LINE_WRAP(name, params, args)                                          \
    EXPORT ssize_t name params                                                 \
    {                                                                          \
        REAL(name, ssize_t(*) params)                                          \
        ssize_t r = real_##name args;                                          \
        if (SHARED(RA) && line && n)                                           \
            line_to_program(line, n);                                          \
        return r;                                                              \
    }

LINE_WRAP(getline, (char **line, size_t *n, FILE *f), (line, n, f))
LINE_WRAP(getdelim, (char **line, size_t *n, int d, FILE *f), (line, n, d, f))
LINE_WRAP(__getdelim, (char **line, size_t *n, int d, FILE *f), (line, n, d, f))
