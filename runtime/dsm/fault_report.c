/*
 * fault_report.c - the one report of a fatal fault on a rank.
 *
 * A segfault the DSM does not own is the program's (or a cross-node
 * address hcc could not make valid here): the first thread that takes one
 * prints a single report - what was touched, where in the program (file:
 * line of the first frame outside the runtime libraries, by the LLVM
 * symbolizer run in a child process, else function and module offset) -
 * and hands the signal on. A second fault, in the report, in the handler
 * it was handed to (Open MPI's backtrace) or in another thread, never
 * prints again: the faulting thread restores the default action and dies
 * by the signal, other threads wait for that. So a rank that crashes says
 * so once, however broken its stack.
 *
 * Async-signal-safety: the message is built in a local buffer and written
 * with write(2). Finding the user's frame uses backtrace() (libgcc's
 * unwinder, loaded at install time) and dladdr(), and the symbolizer runs
 * by vfork + execve: not strictly async-signal-safe, but the process is
 * about to die, and a fault inside them is the second fault above.
 */
#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/lastword.h"
#include "base/log.h"
#include "dsm/dsm_int.h"

#ifndef HCRT_LLVM_BINDIR
#define HCRT_LLVM_BINDIR "/usr/bin"
#endif

#define MSG_MAX 1536
#define NRANGES 4
#define NFRAMES 48

static struct {
    uintptr_t lo, hi;
    const char *what, *hint;
} ranges[NRANGES];
static _Atomic int nranges;
static _Atomic int reporter; /* thread id of the reporting thread, 0: none */
/* Modules whose frames are the runtime's, not the program's. */
static const void *rt_base[4];
static const void *exe_base;
static char host[64];

void hcrt__dsm_fault_name_range(uintptr_t lo, uintptr_t hi, const char *what,
                                const char *hint)
{
    int n = atomic_load(&nranges);
    for (int i = 0; i < n; i++)
        if (ranges[i].lo == lo) {
            ranges[i].hi = hi;
            return;
        }
    if (n == NRANGES)
        return;
    ranges[n].lo = lo, ranges[n].hi = hi;
    ranges[n].what = what, ranges[n].hint = hint;
    atomic_store(&nranges, n + 1);
}

static const void *module_of(const void *p)
{
    Dl_info di;
    return dladdr(p, &di) ? di.dli_fbase : NULL;
}

void hcrt__dsm_fault_report_init(void)
{
    void *pcs[2];
    backtrace(pcs, 2); /* loads libgcc's unwinder now, not in a handler */
    if (gethostname(host, sizeof host - 1) != 0)
        strcpy(host, "?");
    rt_base[0] = module_of((void *)hcrt__dsm_fault_report_init); /* libhcrt */
    rt_base[1] = module_of((void *)write);                       /* libc */
    rt_base[2] = module_of(dlsym(RTLD_DEFAULT, "__kmpc_fork_call"));
    rt_base[3] = module_of(dlsym(RTLD_DEFAULT, "MPI_Init"));
    exe_base = module_of((void *)getauxval(AT_ENTRY));
}

/* ---- message building (no allocation, no stdio) ---- */

typedef struct out {
    char b[MSG_MAX];
    size_t k;
} out_t;

static void put(out_t *o, const char *s)
{
    while (s && *s && o->k < MSG_MAX - 2)
        o->b[o->k++] = *s++;
}

static void put_hex(out_t *o, uintptr_t v)
{
    char t[20];
    int n = 0;
    do {
        t[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    put(o, "0x");
    while (n && o->k < MSG_MAX - 2)
        o->b[o->k++] = t[--n];
}

static void put_dec(out_t *o, long v)
{
    char t[24];
    int n = 0;
    if (v < 0) {
        put(o, "-");
        v = -v;
    }
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n && o->k < MSG_MAX - 2)
        o->b[o->k++] = t[--n];
}

/* ---- where in the program ---- */

static int is_runtime(const void *base)
{
    for (int i = 0; i < 4; i++)
        if (base && base == rt_base[i])
            return 1;
    return 0;
}

static void copy(char *dst, const char *src, size_t cap)
{
    size_t n = strlen(src);
    n = n < cap - 1 ? n : cap - 1;
    memcpy(dst, src, n);
    dst[n] = 0;
}

/* Runs the symbolizer on (module, address); its first two lines (function,
 * file:line:col) into fn / loc. 0 on success. */
static int symbolize(const char *module, uintptr_t addr, char *fn, char *loc,
                     size_t cap)
{
    static const char llvm[] = HCRT_LLVM_BINDIR "/llvm-symbolizer";
    static const char binutils[] = "/usr/bin/addr2line";
    char obj[300] = "--obj=", hex[24];
    out_t h = {.k = 0};
    put_hex(&h, addr);
    memcpy(hex, h.b, h.k);
    hex[h.k] = 0;
    int use_llvm = access(llvm, X_OK) == 0;
    if (!use_llvm && access(binutils, X_OK) != 0)
        return -1;
    strncat(obj, module, sizeof obj - 7);
    char *const av_llvm[] = {(char *)llvm, obj, hex, NULL};
    char *const av_bin[] = {(char *)binutils, "-f", "-e",
                            (char *)module,   hex,  NULL};
    char *const envp[] = {NULL};
    int p[2];
    if (pipe(p) != 0)
        return -1;
    pid_t pid = vfork();
    if (pid == 0) {
        dup2(p[1], 1);
        close(p[0]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        execve(use_llvm ? llvm : binutils, use_llvm ? av_llvm : av_bin, envp);
        _exit(127);
    }
    close(p[1]);
    char buf[1024];
    size_t len = 0;
    struct pollfd pf = {.fd = p[0], .events = POLLIN};
    while (pid > 0 && len < sizeof buf - 1 && poll(&pf, 1, 5000) > 0) {
        ssize_t n = read(p[0], buf + len, sizeof buf - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(p[0]);
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    buf[len] = 0;
    char *nl = strchr(buf, '\n');
    if (!nl)
        return -1;
    *nl = 0;
    char *l2 = nl + 1, *e = strchr(l2, '\n');
    if (e)
        *e = 0;
    if (use_llvm && (e = strrchr(l2, ':')) && strchr(l2, ':') != e)
        *e = 0; /* file:line:col -> file:line */
    copy(fn, buf, cap);
    copy(loc, l2, cap);
    return 0;
}

static int runtime_name(const char *fn)
{
    return !strncmp(fn, "__hcrt_", 7) || !strncmp(fn, "hcrt_", 5) ||
           !strncmp(fn, "__kmp", 5);
}

/* Puts " at file:line (function)" of code address a (exact: the faulting
 * instruction, else a return address) if it is the program's, not the
 * runtime libraries'. Returns 1 when it put something. */
static int put_frame(out_t *o, uintptr_t a, int exact)
{
    Dl_info di;
    char self[40] = "/proc/", fn[256], loc[512];
    out_t t = {.k = 0};
    a -= !exact; /* a return address: the call is just before it */
    if (!dladdr((void *)a, &di) || is_runtime(di.dli_fbase))
        return 0;
    put_dec(&t, (long)getpid());
    strncat(self, t.b, t.k);
    strcat(self, "/exe");
    const Elf64_Ehdr *eh = di.dli_fbase;
    uintptr_t rel = eh && eh->e_type == ET_DYN ? a - (uintptr_t)eh : a;
    int exe =
        di.dli_fbase == exe_base || !di.dli_fname || di.dli_fname[0] != '/';
    const char *mod = exe ? self : di.dli_fname;
    int ok = symbolize(mod, rel, fn, loc, sizeof fn) == 0;
    if (ok && runtime_name(fn))
        return 0; /* the runtime linked statically into the program */
    put(o, " at ");
    if (ok && strncmp(loc, "??", 2) != 0) {
        put(o, loc);
        put(o, " (");
        put(o, fn);
        put(o, ")");
        return 1;
    }
    put(o, ok ? fn : di.dli_sname ? di.dli_sname : "?"); /* no -g */
    put(o, "+");
    put_hex(o, rel);
    put(o, " in ");
    put(o, exe ? "the program" : mod);
    if (ok)
        put(o, " (compile with -g for file:line)");
    return 1;
}

/* " at file:line (function)": the faulting instruction if it is the
 * program's, else the first frame of the program above it (the fault was
 * in a runtime function the program called, e.g. an atomic). */
static void put_where(out_t *o, uintptr_t pc)
{
    void *pcs[NFRAMES];
    if (put_frame(o, pc, 1))
        return;
    int n = backtrace(pcs, NFRAMES), first = n;
    for (int i = 0; i < n && first == n; i++)
        if ((uintptr_t)pcs[i] == pc)
            first = i; /* frames before it are the handler's own */
    for (int i = first + 1, tries = 0; i < n && tries < 4; i++, tries++)
        if (put_frame(o, (uintptr_t)pcs[i], 0))
            return;
}

/* ---- the report ---- */

static void put_fault(out_t *o, int sig, uintptr_t addr, const char *why,
                      uintptr_t pc)
{
    int rank = dsm.ready ? dsm.rank : -1;
    uintptr_t lo;
    size_t size;
    int n = atomic_load(&nranges);
    for (int i = 0; i < n; i++) {
        if (addr < ranges[i].lo || addr >= ranges[i].hi)
            continue;
        put(o, "rank ");
        put_dec(o, rank);
        put(o, " dereferenced ");
        put_hex(o, addr);
        put(o, " (");
        put(o, ranges[i].what);
        put(o, ")");
        put_where(o, pc);
        put(o, ": ");
        put(o, ranges[i].hint);
        return;
    }
    const char *who, *hint;
    if (sig == SIGSEGV &&
        hcrt__dsm_stack_guarded(addr, &lo, &size, &who, &hint)) {
        put(o, "stack overflow on rank ");
        put_dec(o, rank);
        put(o, ", host ");
        put(o, host);
        put(o, ": ");
        put(o, who);
        put(o, " ran past the end of its ");
        put_dec(o, (long)(size >> 10));
        put(o, " KiB stack at ");
        put_hex(o, lo);
        put(o, " (fault at ");
        put_hex(o, addr);
        put(o, " in the guard below it)");
        put_where(o, pc);
        put(o, "; ");
        put(o, hint);
        return;
    }
    put(o, sig == SIGBUS ? "bus error at address "
                         : "segmentation fault at address ");
    put_hex(o, addr);
    put(o, " (");
    put(o, why);
    put(o, ") on rank ");
    put_dec(o, rank);
    put(o, ", host ");
    put(o, host);
    put(o, ", pid ");
    put_dec(o, (long)getpid());
    put_where(o, pc);
}

static void die_by(int sig)
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL); /* the access repeats and kills */
}

/* The report being built: a fault while looking for the place (a stack
 * too broken to unwind) prints what is known so far. */
static out_t msg;
static _Atomic int placing;

static void print_msg(const char *tail)
{
    put(&msg, tail);
    msg.b[msg.k++] = '\n';
    msg.b[msg.k] = 0;
    hcrt__log_raw(msg.b);
    hcrt__lastword(HCRT_LASTWORD_CRASH, msg.b); /* to the fault detector */
}

int hcrt__dsm_fault_report(int sig, siginfo_t *si, void *ucv, const char *why)
{
    int me = (int)gettid(), none = 0;
    if (!atomic_compare_exchange_strong(&reporter, &none, me)) {
        if (none == me && atomic_exchange(&placing, 0))
            print_msg(" (place unknown: the stack cannot be unwound)");
        if (none != me) { /* another thread reports: let it finish */
            struct timespec t = {0, 50 * 1000 * 1000};
            for (int i = 0; i < 200; i++)
                nanosleep(&t, NULL);
        }
        die_by(sig); /* a fault inside the report or the chained handler */
        return 0;
    }
    ucontext_t *uc = ucv;
    atomic_store(&placing, 1);
    put_fault(&msg, sig, (uintptr_t)si->si_addr, why,
              (uintptr_t)uc->uc_mcontext.gregs[REG_RIP]);
    if (atomic_exchange(&placing, 0))
        print_msg("");
    return 1;
}
