/*
 * wait.c - named waits on peers with deadlines, woken by the fault
 * detector (wait.h).
 */
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/wait.h"

#define WORD_SLICE_NS 100000000L /* a futex sleep between checks */
#define NWORDS (HCRT_WAIT_MAX_RANKS / 64)

static _Atomic uint64_t failed[NWORDS];
static atomic_int nfailed; /* 0: the fast path of every check */
static hcrt_wait_symptom_cb symptom_cb;
static hcrt_wait_failed_cb failed_cb;
static double reply_deadline;
static int ft_mode;

void hcrt__wait_set_ft(int on)
{
    ft_mode = on;
}

int hcrt__wait_ft(void)
{
    return ft_mode;
}

int hcrt__wait_nfailed(void)
{
    return atomic_load_explicit(&nfailed, memory_order_relaxed);
}

void hcrt__wait_set_reply_deadline(double seconds)
{
    reply_deadline = seconds;
}

double hcrt__wait_reply_deadline(void)
{
    return reply_deadline;
}

void hcrt__wait_set_hooks(hcrt_wait_symptom_cb symptom,
                          hcrt_wait_failed_cb failed_policy)
{
    symptom_cb = symptom;
    failed_cb = failed_policy;
}

void hcrt__wait_peer_failed(int rank)
{
    if (rank < 0 || rank >= HCRT_WAIT_MAX_RANKS)
        return;
    uint64_t bit = 1ULL << (rank % 64);
    if (!(atomic_fetch_or(&failed[rank / 64], bit) & bit))
        atomic_fetch_add(&nfailed, 1);
}

int hcrt__wait_is_failed(int rank)
{
    if (rank < 0 || rank >= HCRT_WAIT_MAX_RANKS ||
        !atomic_load_explicit(&nfailed, memory_order_relaxed))
        return 0;
    return (atomic_load(&failed[rank / 64]) >> (rank % 64)) & 1;
}

uint64_t hcrt__wait_failed_mask(void)
{
    return atomic_load(&failed[0]);
}

int hcrt__wait_failed_for(int peer)
{
    if (!atomic_load_explicit(&nfailed, memory_order_relaxed))
        return -1;
    if (peer != HCRT_WAIT_ANY)
        return hcrt__wait_is_failed(peer) ? peer : -1;
    for (int i = 0; i < NWORDS; i++) {
        uint64_t v = atomic_load(&failed[i]);
        if (v)
            return i * 64 + __builtin_ctzll(v);
    }
    return -1;
}

/* initial-exec: no __tls_get_addr in the SIGSEGV handler's waits */
static _Thread_local uint64_t thread_waited
    __attribute__((tls_model("initial-exec")));

uint64_t hcrt__wait_thread_ns(void)
{
    return thread_waited;
}

void hcrt__wait_end(const hcrt_wait_state_t *s)
{
    thread_waited += hcrt__now_ns() - s->start;
}

void hcrt__wait_begin(hcrt_wait_state_t *s)
{
    s->start = hcrt__now_ns();
    s->next_check = s->start;
    s->warned = 0;
    s->nfailed0 = atomic_load_explicit(&nfailed, memory_order_relaxed);
}

/* The deadline is looked at every millisecond at most: a clock read per
 * poll would cost more than the MPI_Test it follows. */
hcrt_status_t hcrt__wait_poll(hcrt_wait_state_t *s, const hcrt_wait_t *w)
{
    int dead = hcrt__wait_failed_for(w->peer);
    if (dead >= 0 && w->survivors && w->peer == HCRT_WAIT_ANY &&
        atomic_load_explicit(&nfailed, memory_order_relaxed) == s->nfailed0)
        dead = -1; /* only ranks that are not members failed */
    if (dead >= 0) {
        if (w->recoverable && ft_mode)
            return HCRT_ERR_NODE_FAILED;
        return failed_cb ? failed_cb(dead, w->what) : HCRT_ERR_NODE_FAILED;
    }
    if (w->deadline <= 0 || s->warned)
        return HCRT_OK;
    uint64_t t = hcrt__now_ns();
    if (t < s->next_check)
        return HCRT_OK;
    s->next_check = t + 1000000;
    double waited = (double)(t - s->start) * 1e-9;
    if (waited >= w->deadline) {
        s->warned = 1;
        if (symptom_cb)
            symptom_cb(w->peer, w->what, waited);
        if (w->give_up)
            return HCRT_ERR_TIMEOUT;
    }
    return HCRT_OK;
}

hcrt_status_t hcrt__wait_request(MPI_Request *req, const hcrt_wait_t *w)
{
    return hcrt__wait_requests(1, req, w);
}

hcrt_status_t hcrt__wait_requests(int n, MPI_Request *reqs,
                                  const hcrt_wait_t *w)
{
    hcrt_wait_state_t s;
    hcrt_pause_t p;
    hcrt__wait_begin(&s);
    hcrt__pause_begin(&p);
    for (unsigned i = 0;; i++) {
        int done = 0;
        if (MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return HCRT_ERR_MPI;
        if (done) {
            if (i)
                hcrt__wait_end(&s);
            return HCRT_OK;
        }
        hcrt_status_t st = hcrt__wait_poll(&s, w);
        if (st != HCRT_OK) {
            hcrt__wait_end(&s);
            return st;
        }
        if (i >= 100 && !w->busy) /* a reply right after the post */
            hcrt__pause_bell(&p, w->spin_ns, w->bell);
    }
}

hcrt_status_t hcrt__wait_word(_Atomic uint32_t *word, uint32_t val,
                              const hcrt_wait_t *w)
{
    hcrt_wait_state_t s;
    hcrt__wait_begin(&s);
    int waited = 0;
    while (atomic_load_explicit(word, memory_order_acquire) == val) {
        hcrt_status_t st = hcrt__wait_poll(&s, w);
        if (st != HCRT_OK) {
            hcrt__wait_end(&s);
            return st;
        }
        struct timespec ts = {0, WORD_SLICE_NS};
        syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, &ts, NULL,
                0);
        waited = 1;
    }
    if (waited) /* no clock read for a reply already there */
        hcrt__wait_end(&s);
    return HCRT_OK;
}

MPI_Comm hcrt__wait_live_comm(MPI_Comm comm)
{
    static int lost[HCRT_WAIT_MAX_RANKS];
    int size, n = 0;
    if (!hcrt__wait_nfailed() || comm == MPI_COMM_NULL)
        return comm;
    MPI_Comm_size(comm, &size);
    for (int r = 0; r < size && r < HCRT_WAIT_MAX_RANKS; r++)
        if (hcrt__wait_is_failed(r))
            lost[n++] = r;
    MPI_Group g, live;
    MPI_Comm out = MPI_COMM_NULL;
    MPI_Comm_group(comm, &g);
    MPI_Group_excl(g, n, lost, &live);
    int rc = MPI_Comm_create_group(comm, live, 0x4654, &out);
    MPI_Group_free(&live);
    MPI_Group_free(&g);
    return rc == MPI_SUCCESS ? out : MPI_COMM_NULL;
}
