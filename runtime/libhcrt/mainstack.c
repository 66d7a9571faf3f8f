/*
 * mainstack.c - in cluster mode every rank's main thread runs on a stack in
 * DSM memory.
 *
 * Why: a local variable of the head's sequential code may reach a parallel
 * region through code the compiler pass never sees together (a function in
 * another file, a static library, a callback): verify() passing its
 * `double x[5]` to error_norm() in error.c. The pass moves escaping slots to
 * DSM storage only within one module. With the head's main running on a
 * stack that *is* DSM memory (runtime/dsm/stacks.c: homed on the head and
 * always writable there), every address of the head's frames means the same
 * bytes on every node, whoever computes it. Workers run their command loop
 * the same way, so what a worker's region thread shares from its frames is
 * valid everywhere too.
 *
 * How: makecontext/swapcontext onto the DSM stack, once per process, back
 * when the function returns (main's return value is kept; exit() from main
 * runs its handlers on the DSM stack, which stays mapped at DSM shutdown).
 * Before the switch the head copies argv and the environment strings to the
 * top of its DSM stack and points argv, envp, `environ` and
 * program_invocation_name there, so a region reading argv[1] or a getenv()
 * result on a worker reads the head's bytes.
 *
 * A worker also protects the unused part of its original stack (below the
 * frames of the switch) and blocks its growth: without ASLR the head's
 * ordinary stack lies at the same addresses, so a head stack address that
 * still reaches a worker (HCRT_STACK_HEAD=0, or memory from before main)
 * faults there and is reported with the place of the access (fault.c)
 * instead of reading the worker's own garbage.
 *
 * Debuggers: a backtrace of the main thread ends at the switch
 * (__start_context); `info threads` and the frames above it are intact.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>

#include "base/config.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/runtime.h"

#define MIB ((size_t)1 << 20)
#define GUARD MIB          /* below every DSM stack */
#define SWITCH_MARGIN 4096 /* of the original stack left below the switch */
/* With HCRT_STACK_HEAD=0 the head's main starts this far below the frames
 * of __hcrt_main, so that its locals lie in the part of the original stack
 * a worker protects (a worker switches right below those frames). */
#define HEAD_PAD (128 * 1024)

extern char **environ;

static size_t main_size;       /* bytes of each main thread's DSM stack */
static char gtid_mode_was[16]; /* a KMP_GTID_MODE we had to override */

/* libomp finds a thread's id by its stack address when KMP_GTID_MODE is 0
 * (for few threads) or 1: the main thread's window would then span from
 * its original stack down to its DSM stack, over other threads' stacks,
 * and libomp aborts or confuses threads. Its default on Linux (3, thread-
 * local storage) does not look at stacks; so does 2. Before libomp reads
 * the environment (its first use). */
void hcrt__mainstack_prepare(void)
{
    const char *m = getenv("KMP_GTID_MODE");
    if (m && *m && atoi(m) < 2) {
        snprintf(gtid_mode_was, sizeof gtid_mode_was, "%s", m);
        setenv("KMP_GTID_MODE", "3", 1);
    }
}

/* HCRT_STACK_SIZE, or the ordinary stack's limit (RLIMIT_STACK) capped at
 * 1 GiB, 256 MiB when unlimited. */
static size_t stack_size(void)
{
    size_t s = (size_t)hcrt__config_int("HCRT_STACK_SIZE");
    struct rlimit rl;
    if (s == 0) {
        s = 256 * MIB;
        if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            s = rl.rlim_cur < 1024 * MIB ? (size_t)rl.rlim_cur : 1024 * MIB;
    }
    if (s < 256 * 1024)
        s = 256 * 1024;
    return (s + 4095) & ~(size_t)4095;
}

void hcrt__mainstack_reserve(void)
{
    if (gtid_mode_was[0] && hcrt__rank() == 0)
        hcrt_warn(HCRT_MOD_CORE,
                  "KMP_GTID_MODE=%s makes libomp tell threads apart by their "
                  "stack addresses, which fails with stacks in DSM memory "
                  "(cluster mode): using KMP_GTID_MODE=3 (thread-local "
                  "storage, libomp's default)",
                  gtid_mode_was);
    main_size = stack_size();
    size_t threads = hcrt__config_bool("HCRT_STACK_THREADS")
                         ? hcrt__threads_stack_budget()
                         : 0;
    /* the main stack must fit; the threads get what is left of their
     * budget within half the slice (threads.c stops when it is full) */
    hcrt__dsm_stacks_reserve(main_size + GUARD, main_size + GUARD + threads);
}

/* ---- argv and the environment, copied to the top of the stack ---- */

static size_t strings_size(char **v, size_t *n)
{
    size_t bytes = 0;
    for (*n = 0; v && v[*n]; (*n)++)
        bytes += strlen(v[*n]) + 1;
    return bytes;
}

/* Copies the n strings of v below *top, then the pointer array below them;
 * returns the array. */
static char **copy_vector(char **v, size_t n, char **top)
{
    char *p = *top;
    char **nv;
    for (size_t i = n; i-- > 0;) {
        size_t len = strlen(v[i]) + 1;
        p -= len;
        memcpy(p, v[i], len);
    }
    nv = (char **)(((uintptr_t)p - (n + 1) * sizeof(char *)) & ~(uintptr_t)15);
    char *s = p;
    for (size_t i = 0; i < n; i++) {
        nv[i] = s;
        s += strlen(s) + 1;
    }
    nv[n] = NULL;
    *top = (char *)nv;
    return nv;
}

/* argv, envp and `environ` (MPI_Init may have replaced the array envp
 * still points to) into DSM memory below `top`; returns the new top of the
 * usable stack (16-byte aligned), or top when they do not fit in an eighth
 * of the stack (they then stay where they are). */
static char *copy_args(char *top, char ***argv, char ***envp)
{
    size_t na, ne, np;
    int same = *envp == environ;
    size_t need = strings_size(*argv, &na) + strings_size(environ, &ne) +
                  (same ? 0 : strings_size(*envp, &np)) +
                  (na + ne + (same ? 0 : np) + 3) * sizeof(char *) + 64;
    if (need > main_size / 8) {
        hcrt_warn(HCRT_MOD_CORE,
                  "argv and the environment (%zu bytes) are not copied to "
                  "shared memory: a parallel region must not read them "
                  "through the head's pointers on other nodes",
                  need);
        return top;
    }
    char *t = top;
    char **nenv = copy_vector(environ, ne, &t);
    char **nenvp = same ? nenv : copy_vector(*envp, np, &t);
    char **nargv = copy_vector(*argv, na, &t);
    if (na > 0) {
        char *slash = strrchr(nargv[0], '/');
        program_invocation_name = nargv[0];
        program_invocation_short_name = slash ? slash + 1 : nargv[0];
    }
    environ = nenv;
    *envp = nenvp;
    *argv = nargv;
    return (char *)((uintptr_t)t & ~(uintptr_t)15);
}

/* ---- the original stack of a worker ---- */

static struct {
    uintptr_t lo, hi;           /* protected part of the [stack] mapping */
    uintptr_t fill_lo, fill_hi; /* PROT_NONE mapping that blocks growth */
} orig;

/* The [stack] mapping of /proc/self/maps. */
static int stack_mapping(uintptr_t *lo, uintptr_t *hi)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f))
        if (strstr(line, "[stack]") &&
            sscanf(line, "%lx-%lx", (unsigned long *)lo, (unsigned long *)hi) ==
                2)
            found = 1;
    fclose(f);
    return found;
}

/* Protects the original stack below `sp` (minus a margin for the switch's
 * own frames) and maps an inaccessible block where it could grow, so that
 * an access to an address of the head's ordinary stack faults here. */
static void protect_original(uintptr_t sp)
{
    uintptr_t lo, hi;
    struct rlimit rl;
    if (!stack_mapping(&lo, &hi))
        return;
    uintptr_t top = (sp - SWITCH_MARGIN) & ~(uintptr_t)4095;
    if (top > lo && mprotect((void *)lo, top - lo, PROT_NONE) == 0)
        orig.lo = lo, orig.hi = top;
    size_t grow = 64 * MIB;
    if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        grow = rl.rlim_cur > hi - lo ? rl.rlim_cur - (hi - lo) : 0;
    if (grow > 1024 * MIB)
        grow = 1024 * MIB;
    grow &= ~(size_t)4095;
    void *f = grow ? mmap((void *)(lo - grow), grow, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
                              MAP_FIXED_NOREPLACE,
                          -1, 0)
                   : MAP_FAILED;
    if (f != MAP_FAILED && (uintptr_t)f == lo - grow)
        orig.fill_lo = lo - grow, orig.fill_hi = lo;
    else if (f != MAP_FAILED)
        munmap(f, grow);
    uintptr_t nlo = orig.fill_hi ? orig.fill_lo : orig.lo;
    uintptr_t nhi = orig.hi ? orig.hi : orig.fill_hi;
    if (nlo < nhi)
        hcrt__dsm_fault_name_range(
            nlo, nhi, "the head's stack",
            hcrt__config_bool("HCRT_STACK_HEAD")
                ? "the head handed out memory of its original stack (from "
                  "before main, e.g. getauxval()), which only the head can "
                  "read; copy it to a global or heap variable first"
                : "the head's main runs on its own stack (HCRT_STACK_HEAD=0), "
                  "so its local variables are private to the head; unset "
                  "HCRT_STACK_HEAD or keep shared data in globals or the heap");
}

static void unprotect_original(void)
{
    if (orig.hi)
        mprotect((void *)orig.lo, orig.hi - orig.lo, PROT_READ | PROT_WRITE);
    if (orig.fill_hi)
        munmap((void *)orig.fill_lo, orig.fill_hi - orig.fill_lo);
    memset(&orig, 0, sizeof orig);
}

/* ---- the switch ---- */

/* One run per process, on the main thread: makecontext's entry point
 * takes no pointer portably, so the request lives here. */
static struct {
    int (*fn)(void *);
    void *arg;
    int ret, worker;
    uintptr_t sp; /* the original stack at the switch */
    ucontext_t back, on;
} run;

static void on_dsm_stack(void)
{
    if (run.worker)
        protect_original(run.sp);
    run.ret = run.fn(run.arg);
    if (run.worker)
        unprotect_original(); /* before the original frames run again */
}

/* Runs fn(arg) on the DSM stack [lo, top) and returns its result. */
static int run_on(char *lo, char *top, int (*fn)(void *), void *arg, int worker)
{
    volatile char here = 0; /* the lowest frame in use: swapcontext's */
    run.fn = fn, run.arg = arg, run.worker = worker;
    run.sp = (uintptr_t)&here;
    if (getcontext(&run.on) != 0)
        hcrt_fatal(HCRT_MOD_CORE, "getcontext failed: %s", strerror(errno));
    run.on.uc_stack.ss_sp = lo;
    run.on.uc_stack.ss_size = (size_t)(top - lo);
    run.on.uc_link = &run.back;
    makecontext(&run.on, on_dsm_stack, 0);
    if (swapcontext(&run.back, &run.on) != 0)
        hcrt_fatal(HCRT_MOD_CORE, "swapcontext failed: %s", strerror(errno));
    return run.ret;
}

static char *new_stack(void)
{
    char *lo = hcrt__dsm_stack_new(main_size, GUARD, "the main thread",
                                   "raise HCRT_STACK_SIZE");
    if (!lo)
        hcrt_fatal(HCRT_MOD_CORE,
                   "no room for the %zu MiB main stack in DSM memory (%zu MiB "
                   "per rank for stacks): lower HCRT_STACK_SIZE or raise "
                   "HCRT_DSM_SIZE",
                   main_size >> 20, hcrt__dsm_stacks_size() >> 20);
    return lo;
}

typedef struct main_call {
    hcrt_main_fn_t fn;
    int argc;
    char **argv, **envp;
} main_call_t;

static int call_main(void *p)
{
    main_call_t *c = p;
    return c->fn(c->argc, c->argv, c->envp);
}

int hcrt__mainstack_run_main(hcrt_main_fn_t fn, int argc, char **argv,
                             char **envp)
{
    if (!hcrt__cluster_on || !hcrt__dsm_stacks_size())
        return fn(argc, argv, envp);
    if (!hcrt__config_bool("HCRT_STACK_HEAD")) {
        char *pad = __builtin_alloca(HEAD_PAD);
        __asm__ volatile("" : : "r"(pad) : "memory"); /* keep it */
        return fn(argc, argv, envp);
    }
    char *lo = new_stack();
    main_call_t c = {fn, argc, argv, envp};
    char *top = copy_args(lo + main_size, &c.argv, &c.envp);
    return run_on(lo, top, call_main, &c, 0);
}

static int call_loop(void *p)
{
    return ((int (*)(void))p)();
}

int hcrt__mainstack_run_worker(int (*loop)(void))
{
    if (!hcrt__cluster_on || !hcrt__dsm_stacks_size())
        return loop();
    char *lo = new_stack();
    return run_on(lo, lo + main_size, call_loop, (void *)loop, 1);
}
