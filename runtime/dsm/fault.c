/*
 * fault.c - the SIGSEGV handler: DSM misses, and real segfaults reported
 * as such; with userfaultfd minor faults (shm.c), the SIGBUS handler too:
 * read misses on pages of a same-host home, and real bus errors.
 *
 * Only protection faults (SEGV_ACCERR) inside DSM memory are the
 * protocol's; everything else - unmapped addresses, the range's guard page,
 * a stack's guard (an overflow), executing DSM memory, a miss the protocol
 * cannot resolve - is the user's segfault: reported once per rank with
 * address, rank, host and place (fault_report.c), then handed to the
 * previous handler (Open MPI's, or the default action), so the process
 * dies as it would have without the DSM. Resolving a miss takes no lock
 * but the cached list's and allocates nothing; it calls MPI only for a
 * fault of the program's own code (direct.c says why that is safe).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "base/log.h"
#include "dsm/dsm_int.h"

static struct sigaction old_segv, old_bus;
static int installed, installed_bus;
static __thread uintptr_t last_addr;
static __thread unsigned repeats;
static char altstack[1 << 16];
static volatile sig_atomic_t crash_now; /* hcrt__dsm_crash_in_handler */

/* Gives the fault to whoever had the signal before us. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    const struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        old->sa_sigaction(sig, si, uc);
        return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    /* Default action: restore it; the faulting access repeats and kills. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
}

static const char *classify(siginfo_t *si, ucontext_t *uc, long *idx)
{
    uintptr_t addr = (uintptr_t)si->si_addr;
    if (!dsm.ready)
        return "not DSM memory";
    *idx = hcrt__dsm_page_index(addr, NULL);
    if (*idx < 0)
        return "not DSM memory";
    if (*idx == 0)
        return "the DSM range's guard page";
    if (atomic_load(&dsm.pages[*idx].state) == PG_GUARD)
        return "a stack's guard page"; /* reported as an overflow */
    if (si->si_code != SEGV_ACCERR)
        return "DSM page not mapped";
    if ((uintptr_t)uc->uc_mcontext.gregs[REG_RIP] == addr)
        return "instruction fetch from DSM memory";
    return NULL;
}

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
    if (crash_now) {
        crash_now = 0;
        *(volatile int *)0 = 1; /* the test hook's crash */
    }
    ucontext_t *uc = ucv;
    uintptr_t addr = (uintptr_t)si->si_addr;
    long idx = -1;
    int saved = errno;
    const char *why = classify(si, uc, &idx);
    if (!why) {
        int is_write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
        /* the program's own load or store: its thread may send the
         * fetch itself (direct.c) */
        int direct =
            hcrt__dsm_direct_code((uintptr_t)uc->uc_mcontext.gregs[REG_RIP]);
        int spurious = hcrt__dsm_resolve_from((size_t)idx, is_write, direct);
        if (!spurious || addr != last_addr)
            repeats = 0;
        last_addr = addr;
        errno = saved;
        if (!spurious || ++repeats < 10000)
            return;
        why = "access the DSM protocol does not allow";
    }
    if (hcrt__dsm_fault_report(sig, si, ucv, why))
        chain(sig, si, ucv);
    errno = saved;
}

/* SIGBUS: with userfaultfd minor faults, an access to a page of a
 * same-host home that has no page-table entry. Only reads get here (the
 * mapping is read-only: writes take SIGSEGV), so: resolve a read miss if
 * the page is invalid, then map it. */
static void on_bus(int sig, siginfo_t *si, void *ucv)
{
    uintptr_t addr = (uintptr_t)si->si_addr;
    int saved = errno;
    long idx =
        dsm.ready && dsm.uffd >= 0 ? hcrt__dsm_page_index(addr, NULL) : -1;
    const char *why = "not DSM memory";
    if (idx > 0) {
        /* a miss resolved here was mapped by its resolution; a page found
         * valid (another thread resolved it, or its page-table entry was
         * dropped) is mapped now. One that the protocol moved away
         * meanwhile (invalid again: compaction) faults again. */
        int ok = !hcrt__dsm_resolve((size_t)idx, 0) ||
                 hcrt__dsm_uffd_map((size_t)idx) == 0;
        if (ok || addr != last_addr)
            repeats = 0;
        last_addr = addr;
        errno = saved;
        if (++repeats < 10000)
            return;
        why = "the DSM page cannot be mapped: out of memory?";
    }
    if (hcrt__dsm_fault_report(sig, si, ucv, why))
        chain(sig, si, ucv);
    errno = saved;
}

_Noreturn void hcrt__dsm_crash_in_handler(void)
{
    crash_now = installed;
    if (dsm.ready)
        (void)*(volatile char *)hcrt__dsm_base(); /* the guard page */
    *(volatile int *)0 = 1;
    _exit(139); /* not reached */
}

hcrt_status_t hcrt__dsm_fault_install(void)
{
    hcrt__dsm_fault_report_init();
    hcrt__dsm_direct_init();
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL); /* main thread: reports even a stack overflow */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGSEGV, &sa, &old_segv) != 0) {
        hcrt_error(HCRT_MOD_DSM, "cannot install the DSM SIGSEGV handler: %s",
                   strerror(errno));
        return HCRT_ERR_IO;
    }
    installed = 1;
    if (dsm.uffd >= 0) {
        sa.sa_sigaction = on_bus;
        if (sigaction(SIGBUS, &sa, &old_bus) != 0) {
            hcrt_error(HCRT_MOD_DSM,
                       "cannot install the DSM SIGBUS handler: %s",
                       strerror(errno));
            return HCRT_ERR_IO;
        }
        installed_bus = 1;
    }
    return HCRT_OK;
}

void hcrt__dsm_fault_uninstall(void)
{
    if (installed)
        sigaction(SIGSEGV, &old_segv, NULL);
    if (installed_bus)
        sigaction(SIGBUS, &old_bus, NULL);
    installed = installed_bus = 0;
}

/* A child of fork() has no service thread: its DSM misses could never be
 * served, so they fault as they would without the DSM. */
void hcrt__dsm_fork_child(void)
{
    hcrt__dsm_fault_uninstall();
}
