/*
 * direct.c - fetches the faulting thread sends and receives itself.
 *
 * Through the service thread a remote read miss crosses four threads:
 * the faulting thread queues the request, the local service thread sends
 * it, the home's service thread replies, the local service thread
 * installs the page and wakes the faulting thread. Between two hosts
 * over TCP the first and the last hand-off cost ~4 and ~6 us of a 48 us
 * fault on an idle machine, and 5-20 us each under load (the woken thread
 * waits for a core). So a fault of the program's own code sends its fetch
 * itself (MPI_Isend from the SIGSEGV handler), receives the reply on a
 * tag of its own (DSM_TAG_DIRECT + slot, which nobody else receives) and
 * installs the run: one thread at each end.
 *
 * Why MPI may be called here: the signal is synchronous, raised by a load
 * or store of the program's own code (the executable's text, checked on
 * the faulting instruction). That code is not inside an MPI call (hcc
 * registers no MPI callback that runs program code), and not inside the C
 * library's allocator, which MPI uses: the program's malloc goes to the
 * DSM heap, whose metadata never lives in the DSM (alloc.c). A fault
 * anywhere else - in the C library (a memcpy, possibly on MPI's behalf),
 * in libhcrt, in MPI - keeps the service-thread path, which never calls
 * MPI in the faulting thread.
 *
 * The thread polls MPI for the reply while replies come fast (see
 * spin_budget), else hands its requests to the service thread at once and
 * sleeps until they complete, woken by it as before; that sleep has the
 * deadline of every DSM reply, a symptom for the fault detector
 * (base/wait.h).
 */
#include <link.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE /* Linux 5.14; Debian 12's headers have it */
#define MADV_POPULATE_WRITE 23
#endif

#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm_int.h"

#define DIRECT_SLOTS 64
#define MAX_CODE 8
/* the largest header: exempt flags of HCRT_DSM_PREFETCH's maximum, and the
 * pages of a run that rides inside */
#define DIRECT_BUF (sizeof(dsm_msg_t) + 1024 + DSM_INLINE_PAGES * DSM_PAGE)

static struct {
    uintptr_t lo, hi;
} code[MAX_CODE];
static int ncode;
static _Atomic uint64_t used;     /* bit s: slot s has a fetch in flight */
static _Atomic uint64_t reply_ns; /* mean reply time (spin_budget) */
static _Alignas(64) char bufs[DIRECT_SLOTS][DIRECT_BUF];
static struct {
    MPI_Request rq[3]; /* reply, page data, request */
    dsm_adopted_t a;
} late[DIRECT_SLOTS];

/* The executable is the first object dl_iterate_phdr reports. */
static int add_program(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    (void)arg;
    for (int i = 0; i < info->dlpi_phnum && ncode < MAX_CODE; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        code[ncode].lo = info->dlpi_addr + ph->p_vaddr;
        code[ncode].hi = code[ncode].lo + ph->p_memsz;
        ncode++;
    }
    return 1;
}

void hcrt__dsm_direct_init(void)
{
    ncode = 0;
    atomic_store(&used, 0);
    atomic_store(&reply_ns, 0);
    if (dsm.direct)
        dl_iterate_phdr(add_program, NULL);
}

int hcrt__dsm_direct_code(uintptr_t pc)
{
    for (int i = 0; i < ncode; i++)
        if (pc >= code[i].lo && pc < code[i].hi)
            return 1;
    return 0;
}

static int slot_get(void)
{
    uint64_t u = atomic_load(&used);
    while (~u) {
        int s = __builtin_ctzll(~u);
        if (atomic_compare_exchange_weak(&used, &u, u | (1ULL << s)))
            return s;
    }
    return -1; /* 64 fetches in flight: the service thread takes this one */
}

static void slot_put(int s)
{
    atomic_fetch_and(&used, ~(1ULL << s));
}

static void check(int rc, const char *what, int home)
{
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_DSM, "DSM %s with rank %d failed (MPI error %d)",
                   what, home, rc);
}

/* How long to poll for a reply before sleeping: twice the mean reply
 * time of the last fetches, if that is under HCRT_DSM_DIRECT_SPIN_US,
 * else not at all. A woken thread gets its core at once; one that polls
 * on a loaded machine takes a core others need (on this 2-core VM, the
 * home's) and waits for its turn: polling 150 us made a fault over TCP
 * 2-4x slower at a load of 16 (240-1058 us against 95-110 us sleeping at
 * once), while on a quiet machine the reply comes within the poll. */
static uint64_t spin_budget(void)
{
    uint64_t mean = atomic_load_explicit(&reply_ns, memory_order_relaxed);
    return mean < dsm.direct_spin_ns ? 2 * mean : 0;
}

/* Mean reply time, weight 1/8 for the newest (racy updates: a hint). */
static void note_reply(uint64_t ns)
{
    uint64_t mean = atomic_load_explicit(&reply_ns, memory_order_relaxed);
    atomic_store_explicit(&reply_ns, mean - mean / 8 + ns / 8,
                          memory_order_relaxed);
}

/* Polls for the reply of slot s (spin_budget), then hands the requests
 * over to the service thread and sleeps until they complete. */
static void wait_reply(int s, int nreq, int home, uint64_t t0)
{
    uint64_t spin = spin_budget();
    for (unsigned i = 0; spin; i++) {
        int done = 0;
        MPI_Testall(nreq, late[s].rq, &done, MPI_STATUSES_IGNORE);
        if (done) {
            note_reply(hcrt__dsm_now_ns() - t0);
            return;
        }
        if ((i & 15) == 15 && hcrt__dsm_now_ns() - t0 > spin)
            break;
        __builtin_ia32_pause();
    }
    late[s].a.rq = late[s].rq;
    late[s].a.n = nreq;
    hcrt__dsm_adopt(&late[s].a);
    hcrt__dsm_wait_done(&late[s].a.done, home);
    note_reply(hcrt__dsm_now_ns() - t0);
}

int hcrt__dsm_direct_fetch(dsm_msg_t *m, fetch_ctx_t *c, int home)
{
    /* a strided run's pages arrive packed, and scattering more than the
     * inline ones needs a buffer: malloc, not in a signal handler */
    if (c->stride > 1 && c->n > DSM_INLINE_PAGES)
        return -1;
    int s = slot_get();
    if (s < 0)
        return -1;
    int tag = DSM_TAG_DIRECT + s, nreq = 1;
    uint64_t t0 = hcrt__dsm_now_ns();
    size_t len = hcrt__dsm_fetch_reply_len(c->n);
    char *alias = hcrt__dsm_page_alias(c->idx);
    MPI_Request *rq = late[s].rq;
    check(
        MPI_Irecv(bufs[s], (int)len, MPI_BYTE, home, tag, dsm.svc_comm, &rq[0]),
        "page fetch reply", home);
    if (c->n > DSM_INLINE_PAGES) /* the data follows on the same tag */
        check(MPI_Irecv(alias, (int)(c->n * DSM_PAGE), MPI_BYTE, home, tag,
                        dsm.svc_comm, &rq[nreq++]),
              "page data", home);
    m->op = DSM_OP_DIRECT | (uint32_t)s;
    check(MPI_Isend(m, (int)sizeof *m, MPI_BYTE, home, 0, dsm.svc_comm,
                    &rq[nreq++]),
          "page fetch", home);
    hcrt__bell_ring(&hcrt__dsm_bell, home, 0); /* a home that blocks */
    /* while the request travels: the local pages the data goes to (a
     * first fetch allocates them, ~4 us a page) */
    if (c->stride == 1)
        madvise(alias, c->n * DSM_PAGE, MADV_POPULATE_WRITE);
    wait_reply(s, nreq, home, t0);
    hcrt__dsm_install_reply(c, bufs[s], len, home, -1);
    slot_put(s);
    dsm_count(direct_fetches, 1);
    return 0;
}
