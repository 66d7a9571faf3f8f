/*
 * interpose_io.c - the C library's calls that hand user memory to the
 * kernel, interposed (libhcrt.so only; docs/dsm.md "The kernel and DSM
 * memory").
 *
 * DSM pages are protected with mprotect: a page not present on this rank
 * (never touched at its home, invalid here) is PROT_NONE, and a page whose
 * writes the protocol must see is PROT_READ. A store of the program faults
 * and the DSM resolves it; a store of the *kernel* (read() into a global
 * array, fread of a large block, stat into a global struct) does not
 * fault: the system call fails with EFAULT, and a program that does not
 * check (fread returning 0 items) computes on without its input. So every
 * call below first makes the user memory it passes resident with the
 * access the kernel needs (hcrt__dsm_make_resident), and retries once more
 * if the kernel still found a page protected (another thread's acquire
 * invalidated it meanwhile). Memory outside the DSM costs one test; on one
 * node none at all (no DSM: one test of a global).
 *
 * Covered: read, pread, readv, preadv, recv, recvfrom, recvmsg, fread,
 * fread_unlocked (the kernel writes); write, pwrite, writev, pwritev, send,
 * sendto, sendmsg, fwrite, fwrite_unlocked (the kernel reads); stat, lstat,
 * fstat, fstatat, sched_getaffinity, getrusage, pipe, pipe2, waitpid,
 * wait, poll, select, readlink, nanosleep, clock_nanosleep,
 * getrandom (results written by the kernel); and the path argument of
 * open, openat, creat, fopen, freopen, access, unlink, remove, rename,
 * mkdir, rmdir, chdir, opendir (read by the kernel). Calls made inside the
 * C library (its own read() under fscanf) copy through its buffers, which
 * are not DSM memory, and need nothing.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dsm/dsm.h"
#include "libhcrt/cluster.h"

#define EXPORT __attribute__((visibility("default")))
/* glibc marks read's buffer write_only: passing it to prep (which reads
 * only the pointer) looks to GCC like reading uninitialised memory */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#undef fread_unlocked /* glibc's inline versions, at -O2 */
#undef fwrite_unlocked

/* The DSM exists (cluster mode, from its start-up on). */
#define dsm_on (__atomic_load_n(&hcrt__cluster_heap_lo, __ATOMIC_RELAXED) != 0)

/* Memory [p, p+n) the kernel will write (w) or read: resident first. */
static void prep(const void *p, size_t n, int w)
{
    if (!p || !n)
        return;
    if (hcrt__dsm_contains(p) || hcrt__dsm_contains((const char *)p + n - 1))
        hcrt__dsm_make_resident((void *)p, n, w);
}

static void prep_iov(const struct iovec *iov, int cnt, int w)
{
    if (!iov || cnt <= 0)
        return;
    prep(iov, (size_t)cnt * sizeof(*iov), 0);
    for (int i = 0; i < cnt; i++)
        prep(iov[i].iov_base, iov[i].iov_len, w);
}

/* A path read by the kernel: reading it here brings its pages in. */
static void prep_path(const char *s)
{
    if (s && hcrt__dsm_contains(s))
        prep(s, strlen(s) + 1, 0);
}

/* The next definition of `name` (the C library's), found once. */
static void *next(void **slot, const char *name)
{
    void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

    if (!f) {
        f = dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    }
    return f;
}

#define REAL(ret, name, params)                                                \
    static void *real_##name;                                                  \
    typedef ret(*name##_fn) params;                                            \
    static inline name##_fn lib_##name(void)                                   \
    {                                                                          \
        return (name##_fn)next(&real_##name, #name);                           \
    }

/* Calls whose EFAULT may be a page protected again meanwhile: once more. */
#define RETRY(call, failed, again)                                             \
    do {                                                                       \
        for (int try_ = 0;; try_++) {                                          \
            call;                                                              \
            if (!dsm_on || try_ == 1 || !(failed) || errno != EFAULT)          \
                break;                                                         \
            again;                                                             \
        }                                                                      \
    } while (0)

/* ---- data the kernel writes --------------------------------------------- */

REAL(ssize_t, read, (int, void *, size_t))
EXPORT ssize_t read(int fd, void *buf, size_t n)
{
    ssize_t r;

    if (!dsm_on) { /* also in signal handlers: no dlsym */
        read_fn f = __atomic_load_n(&real_read, __ATOMIC_ACQUIRE);
        return f ? f(fd, buf, n) : syscall(SYS_read, fd, buf, n);
    }
    prep(buf, n, 1);
    RETRY(r = lib_read()(fd, buf, n), r < 0, prep(buf, n, 1));
    return r;
}

REAL(ssize_t, pread, (int, void *, size_t, off_t))
EXPORT ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    ssize_t r;

    if (dsm_on)
        prep(buf, n, 1);
    RETRY(r = lib_pread()(fd, buf, n, off), r < 0, prep(buf, n, 1));
    return r;
}
EXPORT ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    return pread(fd, buf, n, off);
}

REAL(ssize_t, readv, (int, const struct iovec *, int))
EXPORT ssize_t readv(int fd, const struct iovec *iov, int cnt)
{
    ssize_t r;

    if (dsm_on)
        prep_iov(iov, cnt, 1);
    RETRY(r = lib_readv()(fd, iov, cnt), r < 0, prep_iov(iov, cnt, 1));
    return r;
}

REAL(ssize_t, preadv, (int, const struct iovec *, int, off_t))
EXPORT ssize_t preadv(int fd, const struct iovec *iov, int cnt, off_t off)
{
    ssize_t r;

    if (dsm_on)
        prep_iov(iov, cnt, 1);
    RETRY(r = lib_preadv()(fd, iov, cnt, off), r < 0, prep_iov(iov, cnt, 1));
    return r;
}

REAL(ssize_t, recv, (int, void *, size_t, int))
EXPORT ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    if (dsm_on)
        prep(buf, n, 1);
    return lib_recv()(fd, buf, n, flags);
}

REAL(ssize_t, recvfrom,
     (int, void *, size_t, int, struct sockaddr *, socklen_t *))
EXPORT ssize_t recvfrom(int fd, void *buf, size_t n, int flags,
                        struct sockaddr *a, socklen_t *alen)
{
    if (dsm_on) {
        prep(buf, n, 1);
        prep(alen, sizeof(*alen), 1);
        if (a && alen)
            prep(a, *alen, 1);
    }
    return lib_recvfrom()(fd, buf, n, flags, a, alen);
}

REAL(ssize_t, recvmsg, (int, struct msghdr *, int))
EXPORT ssize_t recvmsg(int fd, struct msghdr *m, int flags)
{
    if (dsm_on && m) {
        prep(m, sizeof(*m), 1);
        prep_iov(m->msg_iov, (int)m->msg_iovlen, 1);
        prep(m->msg_name, m->msg_namelen, 1);
        prep(m->msg_control, m->msg_controllen, 1);
    }
    return lib_recvmsg()(fd, m, flags);
}

REAL(size_t, fread, (void *, size_t, size_t, FILE *))
EXPORT size_t fread(void *buf, size_t size, size_t n, FILE *f)
{
    if (dsm_on && size && n <= (size_t)-1 / size)
        prep(buf, size * n, 1);
    return lib_fread()(buf, size, n, f);
}

REAL(size_t, fread_unlocked, (void *, size_t, size_t, FILE *))
EXPORT size_t fread_unlocked(void *buf, size_t size, size_t n, FILE *f)
{
    if (dsm_on && size && n <= (size_t)-1 / size)
        prep(buf, size * n, 1);
    return lib_fread_unlocked()(buf, size, n, f);
}

/* ---- data the kernel reads ---------------------------------------------- */

REAL(ssize_t, write, (int, const void *, size_t))
EXPORT ssize_t write(int fd, const void *buf, size_t n)
{
    ssize_t r;

    if (!dsm_on) { /* also in signal handlers: no dlsym */
        write_fn f = __atomic_load_n(&real_write, __ATOMIC_ACQUIRE);
        return f ? f(fd, buf, n) : syscall(SYS_write, fd, buf, n);
    }
    prep(buf, n, 0);
    RETRY(r = lib_write()(fd, buf, n), r < 0, prep(buf, n, 0));
    return r;
}

REAL(ssize_t, pwrite, (int, const void *, size_t, off_t))
EXPORT ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (dsm_on)
        prep(buf, n, 0);
    return lib_pwrite()(fd, buf, n, off);
}
EXPORT ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    return pwrite(fd, buf, n, off);
}

REAL(ssize_t, writev, (int, const struct iovec *, int))
EXPORT ssize_t writev(int fd, const struct iovec *iov, int cnt)
{
    if (dsm_on)
        prep_iov(iov, cnt, 0);
    return lib_writev()(fd, iov, cnt);
}

REAL(ssize_t, pwritev, (int, const struct iovec *, int, off_t))
EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int cnt, off_t off)
{
    if (dsm_on)
        prep_iov(iov, cnt, 0);
    return lib_pwritev()(fd, iov, cnt, off);
}

REAL(ssize_t, send, (int, const void *, size_t, int))
EXPORT ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    if (dsm_on)
        prep(buf, n, 0);
    return lib_send()(fd, buf, n, flags);
}

REAL(ssize_t, sendto,
     (int, const void *, size_t, int, const struct sockaddr *, socklen_t))
EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags,
                      const struct sockaddr *a, socklen_t alen)
{
    if (dsm_on) {
        prep(buf, n, 0);
        prep(a, alen, 0);
    }
    return lib_sendto()(fd, buf, n, flags, a, alen);
}

REAL(ssize_t, sendmsg, (int, const struct msghdr *, int))
EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
    if (dsm_on && m) {
        prep(m, sizeof(*m), 0);
        prep_iov(m->msg_iov, (int)m->msg_iovlen, 0);
        prep(m->msg_name, m->msg_namelen, 0);
        prep(m->msg_control, m->msg_controllen, 0);
    }
    return lib_sendmsg()(fd, m, flags);
}

REAL(size_t, fwrite, (const void *, size_t, size_t, FILE *))
EXPORT size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
    if (dsm_on && size && n <= (size_t)-1 / size)
        prep(buf, size * n, 0);
    return lib_fwrite()(buf, size, n, f);
}

REAL(size_t, fwrite_unlocked, (const void *, size_t, size_t, FILE *))
EXPORT size_t fwrite_unlocked(const void *buf, size_t size, size_t n, FILE *f)
{
    if (dsm_on && size && n <= (size_t)-1 / size)
        prep(buf, size * n, 0);
    return lib_fwrite_unlocked()(buf, size, n, f);
}

/* ---- results the kernel writes ------------------------------------------ */

#define OUT(ret, name, params, args, prepare)                                  \
    REAL(ret, name, params)                                                    \
    EXPORT ret name params                                                     \
    {                                                                          \
        if (dsm_on) {                                                          \
            prepare;                                                           \
        }                                                                      \
        return lib_##name() args;                                              \
    }

OUT(int, stat, (const char *p, struct stat *st), (p, st),
    (prep_path(p), prep(st, sizeof(*st), 1)))
OUT(int, lstat, (const char *p, struct stat *st), (p, st),
    (prep_path(p), prep(st, sizeof(*st), 1)))
OUT(int, fstat, (int fd, struct stat *st), (fd, st), prep(st, sizeof(*st), 1))
OUT(int, fstatat, (int d, const char *p, struct stat *st, int fl),
    (d, p, st, fl), (prep_path(p), prep(st, sizeof(*st), 1)))
OUT(int, sched_getaffinity, (pid_t pid, size_t n, cpu_set_t *s), (pid, n, s),
    prep(s, n, 1))
OUT(int, getrusage, (int who, struct rusage *u), (who, u),
    prep(u, sizeof(*u), 1))
OUT(int, pipe, (int fds[2]), (fds), prep(fds, 2 * sizeof(int), 1))
OUT(int, pipe2, (int fds[2], int fl), (fds, fl), prep(fds, 2 * sizeof(int), 1))
OUT(pid_t, waitpid, (pid_t pid, int *st, int o), (pid, st, o),
    prep(st, sizeof(*st), 1))
OUT(pid_t, wait, (int *st), (st), prep(st, sizeof(*st), 1))
OUT(int, poll, (struct pollfd * f, nfds_t n, int t), (f, n, t),
    prep(f, n * sizeof(*f), 1))
OUT(int, select, (int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *t),
    (n, r, w, e, t),
    (prep(r, sizeof(*r), 1), prep(w, sizeof(*w), 1), prep(e, sizeof(*e), 1),
     prep(t, sizeof(*t), 1)))
OUT(ssize_t, readlink, (const char *p, char *b, size_t n), (p, b, n),
    (prep_path(p), prep(b, n, 1)))
OUT(int, nanosleep, (const struct timespec *r, struct timespec *m), (r, m),
    (prep(r, sizeof(*r), 0), prep(m, sizeof(*m), 1)))
OUT(int, clock_nanosleep,
    (clockid_t c, int fl, const struct timespec *r, struct timespec *m),
    (c, fl, r, m), (prep(r, sizeof(*r), 0), prep(m, sizeof(*m), 1)))
OUT(ssize_t, getrandom, (void *b, size_t n, unsigned fl), (b, n, fl),
    prep(b, n, 1))

/* ---- paths the kernel reads --------------------------------------------- */

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE
               ? (mode_t)va_arg(ap, int)
               : 0;
}

REAL(int, open, (const char *, int, ...))
EXPORT int open(const char *p, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    if (dsm_on)
        prep_path(p);
    return lib_open()(p, flags, m);
}
EXPORT int open64(const char *p, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return open(p, flags, m);
}

REAL(int, openat, (int, const char *, int, ...))
EXPORT int openat(int d, const char *p, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    if (dsm_on)
        prep_path(p);
    return lib_openat()(d, p, flags, m);
}

OUT(int, creat, (const char *p, mode_t m), (p, m), prep_path(p))
OUT(FILE *, fopen, (const char *p, const char *m), (p, m),
    (prep_path(p), prep_path(m)))
OUT(FILE *, freopen, (const char *p, const char *m, FILE *f), (p, m, f),
    (prep_path(p), prep_path(m)))
OUT(int, access, (const char *p, int m), (p, m), prep_path(p))
OUT(int, unlink, (const char *p), (p), prep_path(p))
OUT(int, remove, (const char *p), (p), prep_path(p))
OUT(int, rename, (const char *a, const char *b), (a, b),
    (prep_path(a), prep_path(b)))
OUT(int, mkdir, (const char *p, mode_t m), (p, m), prep_path(p))
OUT(int, rmdir, (const char *p), (p), prep_path(p))
OUT(int, chdir, (const char *p), (p), prep_path(p))
OUT(DIR *, opendir, (const char *p), (p), prep_path(p))

/* The large-file names (the same functions on x86_64). */
EXPORT FILE *fopen64(const char *p, const char *m)
{
    return fopen(p, m);
}
EXPORT int creat64(const char *p, mode_t m)
{
    return creat(p, m);
}
EXPORT int stat64(const char *p, struct stat64 *st)
{
    return stat(p, (struct stat *)st);
}
EXPORT int lstat64(const char *p, struct stat64 *st)
{
    return lstat(p, (struct stat *)st);
}
EXPORT int fstat64(int fd, struct stat64 *st)
{
    return fstat(fd, (struct stat *)st);
}
EXPORT int fstatat64(int d, const char *p, struct stat64 *st, int fl)
{
    return fstatat(d, p, (struct stat *)st, fl);
}
EXPORT int openat64(int d, const char *p, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t m = mode_arg(flags, ap);
    va_end(ap);
    return openat(d, p, flags, m);
}
EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    return preadv(fd, iov, cnt, off);
}
EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int cnt, off_t off)
{
    return pwritev(fd, iov, cnt, off);
}

/* The C library's definitions, found before any call can need them (a
 * signal handler's write must not run dlsym). */
__attribute__((constructor(102))) static void find_real(void)
{
    (void)lib_read(), (void)lib_write(), (void)lib_pread();
    (void)lib_fread(), (void)lib_fwrite();
}
