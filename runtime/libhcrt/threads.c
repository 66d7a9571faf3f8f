/*
 * threads.c - libomp's threads on DSM stacks, and fork() off a DSM stack.
 *
 * In cluster mode (HCRT_STACK_THREADS=1, the default) every thread libomp
 * creates runs on a stack in DSM memory homed on its own rank
 * (runtime/dsm/stacks.c), like the main threads (mainstack.c): a region
 * thread's local handed to code that shares it with other nodes - a
 * callback, a nested construct, a pointer published through a shared
 * variable - then means the same bytes on every node. libhcrt defines
 * pthread_create and pthread_join, which the dynamic linker binds in
 * libomp (libhcrt comes first in the link): a call from libomp's code gets
 * a DSM stack of the size libomp asked for (OMP_STACKSIZE), with a guard
 * below it and an alternate signal stack above it (a thread on a DSM stack
 * takes its SIGSEGV/SIGBUS there: DSM misses, stack overflows); any other
 * caller, and every call outside cluster mode, goes straight to the C
 * library. The stack goes back when the thread is joined (libomp joins its
 * threads at exit); a detached thread keeps it.
 *
 * fork(): DSM memory is a shared mapping, so a child forked on a DSM stack
 * would share its stack with the parent and each would overwrite the
 * other's frames - and the same holds for the arena of the locals the pass
 * moved to DSM memory (stack.c). In cluster mode fork() therefore runs on
 * a private stack, and the child replaces the caller's DSM stack and arena
 * chunks by private copies taken while the parent waits, before either
 * returns. The child also drops the DSM's fault handlers (it has no
 * service thread): it may use its locals and exec; DSM heap and globals
 * remain the parent's shared memory.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/heap.h"

#define HCRT_EXPORT __attribute__((visibility("default")))
#define GUARD ((size_t)1 << 20)
#define ALT_SIZE ((size_t)64 << 10)  /* alternate signal stack */
#define TLS_ROOM ((size_t)256 << 10) /* glibc puts TLS at a stack's top */
#define MAX_LIVE 1024

typedef int (*create_fn_t)(pthread_t *, const pthread_attr_t *,
                           void *(*)(void *), void *);
typedef int (*join_fn_t)(pthread_t, void **);
typedef pid_t (*fork_fn_t)(void);

static create_fn_t real_create;
static join_fn_t real_join;
static fork_fn_t real_fork;
static const void *libomp_base;
static int enabled; /* cluster mode with HCRT_STACK_THREADS: set once */

/* Threads on DSM stacks not yet joined. */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    pthread_t t;
    void *lo;
} live[MAX_LIVE];
static size_t nlive;

static void *next_sym(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        f = dlsym(RTLD_DEFAULT, name); /* libhcrt linked statically */
    return f;
}

static void resolve(void)
{
    if (!real_create) {
        real_join = (join_fn_t)next_sym("pthread_join");
        real_fork = (fork_fn_t)next_sym("fork");
        __atomic_store_n(&real_create, (create_fn_t)next_sym("pthread_create"),
                         __ATOMIC_RELEASE);
    }
}

void hcrt__threads_init(void)
{
    Dl_info di;
    void *f = dlsym(RTLD_DEFAULT, "__kmp_fork_call");
    resolve();
    if (f && dladdr(f, &di))
        libomp_base = di.dli_fbase;
    enabled = hcrt__cluster_on && hcrt__dsm_stacks_size() &&
              hcrt__config_bool("HCRT_STACK_THREADS") && libomp_base;
}

typedef struct start {
    void *(*fn)(void *);
    void *arg;
    char *alt; /* alternate signal stack */
} start_t;

static void *on_dsm_stack(void *p)
{
    start_t s = *(start_t *)p;
    free(p);
    stack_t ss = {.ss_sp = s.alt, .ss_size = ALT_SIZE};
    sigaltstack(&ss, NULL);
    return s.fn(s.arg);
}

/* attr's settings with [lo, lo+size) as the stack. */
static int attr_with_stack(const pthread_attr_t *attr, pthread_attr_t *na,
                           void *lo, size_t size)
{
    int v;
    struct sched_param sp;
    cpu_set_t cpus;
    sigset_t mask;
    pthread_attr_init(na);
    if (attr) {
        if (pthread_attr_getdetachstate(attr, &v) == 0)
            pthread_attr_setdetachstate(na, v);
        if (pthread_attr_getinheritsched(attr, &v) == 0)
            pthread_attr_setinheritsched(na, v);
        if (pthread_attr_getschedpolicy(attr, &v) == 0)
            pthread_attr_setschedpolicy(na, v);
        if (pthread_attr_getschedparam(attr, &sp) == 0)
            pthread_attr_setschedparam(na, &sp);
        if (pthread_attr_getscope(attr, &v) == 0)
            pthread_attr_setscope(na, v);
        if (pthread_attr_getaffinity_np(attr, sizeof cpus, &cpus) == 0)
            pthread_attr_setaffinity_np(na, sizeof cpus, &cpus);
        if (pthread_attr_getsigmask_np(attr, &mask) == 0)
            pthread_attr_setsigmask_np(na, &mask);
    }
    return pthread_attr_setstack(na, lo, size);
}

/* DSM memory for the stacks of libomp's threads on this rank: twice what
 * a team of the default size plus libomp's helper threads takes (nested
 * teams, threads libomp re-creates), at least 256 MiB. The DSM makes the
 * region at least a quarter of the rank's slice (dsm/stacks.c): room for
 * the large teams of regions kept on the head. */
size_t hcrt__threads_stack_budget(void)
{
    size_t per = kmp_get_stacksize_s() + TLS_ROOM + ALT_SIZE + GUARD;
    size_t all = ((size_t)omp_get_max_threads() + 16) * per * 2;
    return all < ((size_t)256 << 20) ? (size_t)256 << 20 : all;
}

static size_t wanted_size(const pthread_attr_t *attr)
{
    size_t size = 0;
    pthread_attr_t d;
    if (!attr || pthread_attr_getstacksize(attr, &size) != 0 || !size) {
        if (pthread_getattr_default_np(&d) == 0) {
            pthread_attr_getstacksize(&d, &size);
            pthread_attr_destroy(&d);
        }
    }
    if (size < ((size_t)1 << 20))
        size = (size_t)1 << 20;
    return (size + TLS_ROOM + 4095) & ~(size_t)4095;
}

static int from_libomp(const void *caller)
{
    Dl_info di;
    return caller && dladdr(caller, &di) && di.dli_fbase == libomp_base;
}

/* A thread of libomp on a DSM stack; no room is a fatal error. */
static int create_on_dsm(pthread_t *t, const pthread_attr_t *attr,
                         void *(*fn)(void *), void *arg)
{
    size_t size = wanted_size(attr);
    char *lo = hcrt__dsm_stack_new(size + ALT_SIZE, GUARD, "an OpenMP thread",
                                   "raise OMP_STACKSIZE");
    start_t *s = malloc(sizeof *s);
    pthread_attr_t na;
    if (!s)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory creating a thread");
    if (!lo) /* an ordinary stack would make its locals private silently */
        hcrt_fatal(HCRT_MOD_CORE,
                   "no room for another %zu MiB OpenMP thread stack in the "
                   "%zu MiB of DSM memory this rank keeps for stacks: lower "
                   "OMP_STACKSIZE or the number of threads, raise "
                   "HCRT_DSM_SIZE, or set HCRT_STACK_THREADS=0 (OpenMP "
                   "threads then keep ordinary stacks, private to their node)",
                   size >> 20, hcrt__dsm_stacks_size() >> 20);
    *s = (start_t){fn, arg, lo + size};
    int rc = attr_with_stack(attr, &na, lo, size);
    if (rc == 0)
        rc = real_create(t, &na, on_dsm_stack, s);
    pthread_attr_destroy(&na);
    if (rc != 0) {
        hcrt__dsm_stack_free(lo);
        free(s);
        return rc;
    }
    pthread_mutex_lock(&live_mu);
    if (nlive < MAX_LIVE)
        live[nlive].t = *t, live[nlive++].lo = lo;
    pthread_mutex_unlock(&live_mu);
    return 0;
}

HCRT_EXPORT int pthread_create(pthread_t *t, const pthread_attr_t *attr,
                               void *(*fn)(void *), void *arg)
{
    if (HCRT_UNLIKELY(!__atomic_load_n(&real_create, __ATOMIC_ACQUIRE)))
        resolve();
    if (enabled && from_libomp(__builtin_return_address(0))) {
        return create_on_dsm(t, attr, fn, arg);
    }
    return real_create(t, attr, fn, arg);
}

HCRT_EXPORT int pthread_join(pthread_t t, void **ret)
{
    if (HCRT_UNLIKELY(!__atomic_load_n(&real_create, __ATOMIC_ACQUIRE)))
        resolve();
    int rc = real_join(t, ret);
    if (rc != 0 || !enabled)
        return rc;
    void *lo = NULL;
    pthread_mutex_lock(&live_mu);
    for (size_t i = 0; i < nlive; i++)
        if (pthread_equal(live[i].t, t)) {
            lo = live[i].lo;
            live[i] = live[--nlive];
            break;
        }
    pthread_mutex_unlock(&live_mu);
    hcrt__dsm_stack_free(lo); /* the thread is gone: nothing runs there */
    return rc;
}

/* ---- fork() on a DSM stack ---- */

#define FORK_STACK ((size_t)128 << 10)

static pthread_mutex_t fork_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *lo, *copy_from; /* the caller's DSM stack, from its sp up */
    size_t size;
    pid_t pid;
    int err;
    int pipe[2];
    ucontext_t back, on;
    char stack[FORK_STACK] __attribute__((aligned(16)));
} fk;

/* Child: [p, p+len) becomes private memory holding the bytes it had at
 * the fork, from `from` up (below it: zeros). */
static void privatise(char *p, size_t len, char *from)
{
    void *q = mmap(NULL, len, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        _exit(127);
    memcpy((char *)q + (from - p), from, (size_t)(p + len - from));
    if (mremap(q, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, p) == MAP_FAILED)
        _exit(127);
}

static void privatise_chunk(void *p, size_t len)
{
    privatise(p, len, p);
}

static void fork_body(void)
{
    char c = 0;
    fk.pid = real_fork();
    fk.err = errno;
    if (fk.pid == 0) {
        if (fk.lo) /* the parent's frames as they were: it waits */
            privatise(fk.lo, fk.size, fk.copy_from);
        hcrt__stack_each_chunk(privatise_chunk);
        hcrt__dsm_fork_child();
        hcrt__heap_fork_child();
        close(fk.pipe[0]);
        (void)!write(fk.pipe[1], &c, 1);
        close(fk.pipe[1]);
    } else if (fk.pid > 0) {
        close(fk.pipe[1]); /* read() sees the byte, or the child's death */
        while (read(fk.pipe[0], &c, 1) < 0 && errno == EINTR)
            ;
        close(fk.pipe[0]);
    } else {
        close(fk.pipe[0]);
        close(fk.pipe[1]);
    }
}

static pid_t fork_privately(void *lo, size_t size)
{
    volatile char here = 0;
    pthread_mutex_lock(&fork_mu);
    fk.lo = lo, fk.size = size;
    fk.copy_from = (char *)(((uintptr_t)&here - 4096) & ~(uintptr_t)4095);
    if (fk.copy_from < fk.lo)
        fk.copy_from = fk.lo;
    if (pipe(fk.pipe) != 0) {
        pthread_mutex_unlock(&fork_mu);
        return -1;
    }
    getcontext(&fk.on);
    fk.on.uc_stack.ss_sp = fk.stack;
    fk.on.uc_stack.ss_size = FORK_STACK;
    fk.on.uc_link = &fk.back;
    makecontext(&fk.on, fork_body, 0);
    swapcontext(&fk.back, &fk.on);
    pid_t pid = fk.pid;
    int err = fk.err;
    if (pid == 0) /* the child's lock is its own copy, held: release it */
        pthread_mutex_init(&fork_mu, NULL);
    else
        pthread_mutex_unlock(&fork_mu);
    errno = err;
    return pid;
}

HCRT_EXPORT pid_t fork(void)
{
    volatile char here = 0;
    void *lo = NULL;
    size_t size = 0;
    if (HCRT_UNLIKELY(!__atomic_load_n(&real_create, __ATOMIC_ACQUIRE)))
        resolve();
    if (!hcrt__cluster_on)
        return real_fork();
    hcrt__dsm_stack_find((void *)&here, &lo, &size);
    return fork_privately(lo, size);
}
