/*
 * service.c - the DSM's service thread: the only thread that calls MPI for
 * the protocol.
 *
 * Why one thread: a fault can hit while the faulting thread is anywhere,
 * even inside MPI or malloc, so the SIGSEGV path only queues a request
 * (lock-free push) and sleeps on a futex, both async-signal-safe. This
 * thread posts the request, receives every incoming message in order
 * (MPI's non-overtaking rule per sender is what keeps a fetched page and a
 * later "no longer exempt" notice in order), serves homes' work, and wakes
 * the waiting thread. It never touches a protected page: it reads and
 * writes page data through the alias view.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm_int.h"

#define MAX_SLOTS 4096
#define MAX_DEFER 1024
#define RECV_INLINE 65536

typedef struct pending_send {
    MPI_Request req;
    void *to_free; /* reply buffer owned by this thread */
    dsm_op_t *op;  /* one-way request: done when sent */
} pending_send_t;

#define MAX_ADOPTED 256

typedef struct deferred {
    int dest;
    uint64_t left; /* ranks whose acknowledgement is still due */
    void *msg;
    size_t len;
    const void *data; /* page data sent right after msg (tag DSM_TAG_DATA) */
    size_t dlen;
    int own_data; /* data is a malloc'd copy: free it once sent */
} deferred_t;

static struct {
    pthread_t thread;
    _Atomic(dsm_op_t *) submitted;
    _Atomic(dsm_adopted_t *) adopt_in;
    dsm_adopted_t *adopted[MAX_ADOPTED];
    int nadopted;
    _Atomic int sleeping;
    uint64_t contended_until; /* block instead of yielding until then */
    uint64_t bell_at;         /* woken by a bell then, nothing received yet */
    _Atomic int stop;
    dsm_op_t *slots[MAX_SLOTS];
    int free_slots[MAX_SLOTS], nfree;
    pending_send_t *sends;
    MPI_Request *reqs;
    int nsends, cap;
    deferred_t defer[MAX_DEFER];
    int nfailed_seen; /* hcrt__wait_nfailed() at the last sweep_failed */
    char *inbuf;
} svc;

void hcrt__dsm_futex_wait(_Atomic uint32_t *w, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

void hcrt__dsm_futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL,
            NULL, 0);
}

void hcrt__dsm_submit(dsm_op_t *op)
{
    atomic_store_explicit(&op->done, 0, memory_order_relaxed);
    dsm_op_t *head = atomic_load_explicit(&svc.submitted, memory_order_relaxed);
    do {
        op->next = head;
    } while (!atomic_compare_exchange_weak_explicit(
        &svc.submitted, &head, op, memory_order_release, memory_order_relaxed));
    if (atomic_load(&svc.sleeping)) {
        hcrt__bell_local(&hcrt__dsm_bell);
    }
}

/* A direct fetch's requests, tested by this thread from now on. */
void hcrt__dsm_adopt(dsm_adopted_t *a)
{
    atomic_store_explicit(&a->done, 0, memory_order_relaxed);
    dsm_adopted_t *head =
        atomic_load_explicit(&svc.adopt_in, memory_order_relaxed);
    do {
        a->next = head;
    } while (!atomic_compare_exchange_weak_explicit(
        &svc.adopt_in, &head, a, memory_order_release, memory_order_relaxed));
    if (atomic_load(&svc.sleeping))
        hcrt__bell_local(&hcrt__dsm_bell);
}

static void wake_done(_Atomic uint32_t *done)
{
    if (atomic_exchange_explicit(done, 1, memory_order_acq_rel) == 2)
        hcrt__dsm_futex_wake(done);
}

/* Tests the adopted requests; 1 if any was taken over or completed. */
static int test_adopted(void)
{
    dsm_adopted_t *in =
        atomic_exchange_explicit(&svc.adopt_in, NULL, memory_order_acquire);
    int moved = in != NULL;
    for (; in; in = in->next) {
        if (svc.nadopted == MAX_ADOPTED)
            hcrt_fatal(HCRT_MOD_DSM, "too many late DSM fetches");
        svc.adopted[svc.nadopted++] = in;
    }
    int done_any = 0;
    for (int i = 0; i < svc.nadopted;) {
        dsm_adopted_t *a = svc.adopted[i];
        int flag = 0;
        MPI_Testall(a->n, a->rq, &flag, MPI_STATUSES_IGNORE);
        if (!flag) {
            i++;
            continue;
        }
        svc.adopted[i] = svc.adopted[--svc.nadopted];
        wake_done(&a->done);
        done_any = 1;
    }
    return moved || done_any;
}

/* done: 0 pending, 1 done, 2 pending with the owner asleep (so the
 * service thread only pays for a futex wake when somebody sleeps). A
 * lock may be held for long (deadline < 0: none); other requests owe a
 * quick answer, and a late one is a symptom for the fault detector
 * (base/wait.h). */
static void wait_done(_Atomic uint32_t *done, int peer, int deadline,
                      const char *what)
{
    /* A short spin, then sleep: spinning longer takes the core from the
     * service thread that must complete the request. */
    for (int i = 0; i < 50; i++) {
        if (atomic_load_explicit(done, memory_order_acquire) == 1)
            return;
        __builtin_ia32_pause();
    }
    uint32_t zero = 0;
    atomic_compare_exchange_strong(done, &zero, 2);
    hcrt_wait_t w = {.what = what, .peer = peer};
    if (deadline)
        w.deadline = hcrt__wait_reply_deadline();
    while (atomic_load_explicit(done, memory_order_acquire) != 1)
        hcrt__wait_word(done, 2, &w);
}

#define FETCH_WHAT "a DSM page fetch from the page's home"

void hcrt__dsm_wait_done(_Atomic uint32_t *done, int peer)
{
    wait_done(done, peer, 1, FETCH_WHAT);
}

/* What a request waits for, as the fault report names it. */
static const char *request_name(const dsm_msg_t *m)
{
    switch (m ? m->type : 0) {
    case M_FETCH:
        return FETCH_WHAT;
    case M_DIFF:
        return "a DSM write-back (diff) to the page's home";
    case M_WRITER:
        return "a DSM write registration at the page's home";
    case M_ATOMIC:
        return "an atomic operation on a DSM page it homes";
    case M_LOCK:
        return "a DSM lock it manages";
    case M_FREE:
        return "free() of a block its threads allocated";
    case M_SIZE:
        return "the size of a block its threads allocated (realloc, "
               "malloc_usable_size)";
    default:
        return "a DSM request";
    }
}

void hcrt__dsm_wait(dsm_op_t *op)
{
    const dsm_msg_t *m = op->sbuf;
    wait_done(&op->done, op->dest, !m || m->type != M_LOCK, request_name(m));
}

uint64_t hcrt__dsm_call(int dest, uint32_t type, uint64_t a, uint64_t b,
                        uint64_t c, uint64_t d)
{
    dsm_msg_t m = {type, 0, a, b, c, d};
    dsm_op_t op = {0};
    op.dest = dest;
    op.sbuf = &m;
    op.slen = sizeof m;
    op.want_reply = 1;
    hcrt__dsm_submit(&op);
    hcrt__dsm_wait(&op);
    return op.result;
}

static void track_send(MPI_Request req, void *to_free, dsm_op_t *op)
{
    if (svc.nsends == svc.cap) {
        svc.cap = svc.cap ? 2 * svc.cap : 256;
        svc.sends = realloc(svc.sends, svc.cap * sizeof *svc.sends);
        svc.reqs = realloc(svc.reqs, svc.cap * sizeof *svc.reqs);
        if (!svc.sends || !svc.reqs)
            hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM service");
    }
    svc.sends[svc.nsends] = (pending_send_t){req, to_free, op};
    svc.reqs[svc.nsends] = req;
    svc.nsends++;
}

static void isend_tag(int dest, const void *buf, size_t len, int tag,
                      void *to_free, dsm_op_t *op)
{
    MPI_Request req;
    int rc = MPI_Isend(buf, (int)len, MPI_BYTE, dest, tag, dsm.svc_comm, &req);
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_DSM,
                   "DSM message to rank %d failed (MPI error "
                   "%d)",
                   dest, rc);
    track_send(req, to_free, op);
    /* not after page data (DSM_TAG_DATA): its header rang; a direct
     * fetch's reply rings too, for a requester that handed it over */
    if ((tag == 0 || tag >= DSM_TAG_DIRECT) && dest != dsm.rank)
        hcrt__bell_mark(&hcrt__dsm_bell, dest);
}

static void isend(int dest, void *buf, size_t len, void *to_free, dsm_op_t *op)
{
    isend_tag(dest, buf, len, 0, to_free, op);
}

/* Header, then the page data straight from the alias view: no copy. The
 * reply of a fetch its faulting thread sent (direct.c) goes, data too, on
 * the tag that thread receives on. */
static void send_with_data(int dest, void *msg, size_t len, const void *data,
                           size_t dlen, int own_data)
{
    uint32_t op = ((dsm_msg_t *)msg)->op;
    int direct = (op & DSM_OP_DIRECT) && ((dsm_msg_t *)msg)->type == M_FETCH_R;
    int tag = direct ? DSM_TAG_DIRECT + (int)(op & ~DSM_OP_DIRECT) : 0;
    isend_tag(dest, msg, len, tag, msg, NULL);
    if (dlen)
        isend_tag(dest, data, dlen, direct ? tag : DSM_TAG_DATA,
                  own_data ? (void *)data : NULL, NULL);
}

void hcrt__dsm_send(int dest, const void *buf, size_t len)
{
    void *copy = malloc(len);
    if (!copy)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM service");
    memcpy(copy, buf, len);
    isend(dest, copy, len, copy, NULL);
}

void hcrt__dsm_reply(int dest, const dsm_msg_t *req, uint32_t type, uint64_t a,
                     const void *payload, size_t plen)
{
    size_t len = sizeof(dsm_msg_t) + plen;
    dsm_msg_t *m = malloc(len);
    if (!m)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM service");
    *m = (dsm_msg_t){type, req->op, a, req->b, req->c, req->d};
    if (plen)
        memcpy(m + 1, payload, plen);
    isend(dest, m, len, m, NULL);
}

/* Sends `msg` (malloc'd, taken over) once every rank in notify_mask has
 * acknowledged a notice that pages [idx, idx+n) are no longer exempt. */
void hcrt__dsm_defer(int dest, void *msg, size_t len, const void *data,
                     size_t dlen, int own_data, size_t idx, size_t stride,
                     uint64_t notify_mask)
{
    int n = (int)((dsm_msg_t *)msg)->b;
    /* FT mode: a lost rank acknowledges nothing (its copies are gone) */
    notify_mask &= ~hcrt__wait_failed_mask();
    if (notify_mask == 0) {
        send_with_data(dest, msg, len, data, dlen, own_data);
        return;
    }
    int k = 0;
    while (k < MAX_DEFER && svc.defer[k].msg)
        k++;
    if (k == MAX_DEFER)
        hcrt_fatal(HCRT_MOD_DSM, "too many deferred DSM replies");
    svc.defer[k] = (deferred_t){.dest = dest,
                                .left = notify_mask,
                                .msg = msg,
                                .len = len,
                                .data = data,
                                .dlen = dlen,
                                .own_data = own_data};
    for (int x = 0; x < dsm.size; x++) {
        if (!(notify_mask & (1ULL << x)))
            continue;
        dsm_msg_t note = {M_NOTIFY, (uint32_t)k, idx, (uint64_t)n, stride, 0};
        hcrt__dsm_send(x, &note, sizeof note);
    }
}

/* A write fetch's reply waited for notices; meanwhile another writer may
 * have registered and told the requester "not exempt" - a notice that
 * arrived before this reply. Recompute the exempt bits as of now, so the
 * reply cannot undo that notice. */
static void refresh_exempt(int dest, dsm_msg_t *r)
{
    if (r->type != M_FETCH_R)
        return;
    uint8_t *exempt = (uint8_t *)(r + 1);
    size_t s = r->d ? r->d : 1; /* the run's stride */
    for (size_t i = 0; i < r->b; i++) {
        uint64_t w = atomic_load(&dsm.dir[r->c + i * s].writers);
        exempt[i] = dsm.classify && (w & ~(1ULL << dest)) == 0;
    }
}

static void defer_acked(deferred_t *d, uint64_t ranks)
{
    d->left &= ~ranks;
    if (d->left != 0)
        return;
    if (hcrt__wait_is_failed(d->dest)) { /* FT mode: nobody to answer */
        free(d->msg);
        if (d->own_data)
            free((void *)d->data);
    } else {
        refresh_exempt(d->dest, d->msg);
        send_with_data(d->dest, d->msg, d->len, d->data, d->dlen, d->own_data);
    }
    d->msg = NULL;
}

void hcrt__dsm_notify_ack(int src, dsm_msg_t *m)
{
    defer_acked(&svc.defer[m->op], 1ULL << src);
}

/* FT mode: once a rank was lost, the replies that wait for its
 * acknowledgements go without them (its copies went with it). */
static int sweep_failed(void)
{
    int n = hcrt__wait_nfailed();
    if (n == svc.nfailed_seen)
        return 0;
    svc.nfailed_seen = n;
    uint64_t lost = hcrt__wait_failed_mask();
    for (int k = 0; k < MAX_DEFER; k++)
        if (svc.defer[k].msg && (svc.defer[k].left & lost))
            defer_acked(&svc.defer[k], lost);
    return 1;
}

static void post_submitted(void)
{
    dsm_op_t *list =
        atomic_exchange_explicit(&svc.submitted, NULL, memory_order_acquire);
    dsm_op_t *rev = NULL;
    while (list) { /* oldest first */
        dsm_op_t *next = list->next;
        list->next = rev;
        rev = list;
        list = next;
    }
    for (dsm_op_t *op = rev, *next; op; op = next) {
        next = op->next;
        dsm_msg_t *m = op->sbuf;
        if (op->want_reply) {
            if (svc.nfree == 0)
                hcrt_fatal(HCRT_MOD_DSM, "too many DSM requests in flight");
            int s = svc.free_slots[--svc.nfree];
            svc.slots[s] = op;
            m->op = (uint32_t)s;
            isend(op->dest, op->sbuf, op->slen, NULL, NULL);
        } else {
            isend(op->dest, op->sbuf, op->slen, NULL, op);
        }
    }
}

static void complete(dsm_op_t *op)
{
    wake_done(&op->done);
}

static int test_sends(void)
{
    if (svc.nsends == 0)
        return 0;
    int idx[64], n = 0;
    int k = svc.nsends < 64 ? svc.nsends : 64;
    MPI_Testsome(k, svc.reqs, &n, idx, MPI_STATUSES_IGNORE);
    if (n <= 0 || n == MPI_UNDEFINED)
        return 0;
    for (int i = 0; i < n; i++) {
        pending_send_t *p = &svc.sends[idx[i]];
        free(p->to_free);
        if (p->op)
            complete(p->op);
        p->op = NULL;
        p->to_free = NULL;
    }
    int w = 0; /* compact: completed entries have MPI_REQUEST_NULL */
    for (int i = 0; i < svc.nsends; i++) {
        if (svc.reqs[i] == MPI_REQUEST_NULL)
            continue;
        svc.reqs[w] = svc.reqs[i];
        svc.sends[w] = svc.sends[i];
        svc.sends[w].req = svc.reqs[i];
        w++;
    }
    svc.nsends = w;
    return 1;
}

static void on_reply(dsm_msg_t *m, size_t len)
{
    dsm_op_t *op = svc.slots[m->op];
    if (m->op >= MAX_SLOTS || !op)
        hcrt_fatal(HCRT_MOD_DSM,
                   "DSM reply of type %u for unknown request "
                   "%u",
                   m->type, m->op);
    svc.slots[m->op] = NULL;
    svc.free_slots[svc.nfree++] = (int)m->op;
    op->result = m->a;
    if (op->on_reply)
        op->on_reply(op, m, len);
    complete(op);
}

static void dispatch(int src, dsm_msg_t *m, size_t len)
{
    DSM_DELAY(DLY_SERVICE);
    switch (m->type) {
    case M_FETCH:
        hcrt__dsm_serve_fetch(src, m);
        break;
    case M_DIFF:
        hcrt__dsm_serve_diff(src, m, len);
        break;
    case M_HOME:
        hcrt__dsm_reply(src, m, M_HOME_R,
                        hcrt__dsm_home_serve(m->a, src, (int)m->b), NULL, 0);
        break;
    case M_WRITER:
        hcrt__dsm_serve_writer(src, m);
        break;
    case M_NOTIFY:
        hcrt__dsm_serve_notify(src, m);
        break;
    case M_NOTIFY_R:
        hcrt__dsm_notify_ack(src, m);
        break;
    case M_ATOMIC:
        hcrt__dsm_atomic_serve(src, m);
        break;
    case M_LOCK:
        hcrt__dsm_lock_serve(src, m);
        break;
    case M_UNLOCK:
        hcrt__dsm_unlock_serve(src, m);
        break;
    case M_FREE:
        hcrt__dsm_reply(src, m, M_FREE_R, hcrt__dsm_alloc_serve_free(m->a),
                        NULL, 0);
        break;
    case M_SIZE:
        hcrt__dsm_reply(src, m, M_SIZE_R, hcrt__dsm_alloc_serve_size(m->a),
                        NULL, 0);
        break;
    case M_STATS:
        hcrt__dsm_stats_serve(src, m);
        break;
    case M_MIGRATE:
        hcrt__dsm_migrate_serve(src, m, len);
        break;
    case M_COMPACT:
        hcrt__dsm_compact();
        hcrt__dsm_reply(src, m, M_COMPACT_R, 0, NULL, 0);
        break;
    case M_FETCH_R:
    case M_DIFF_R:
    case M_HOME_R:
    case M_WRITER_R:
    case M_ATOMIC_R:
    case M_LOCK_R:
    case M_FREE_R:
    case M_SIZE_R:
    case M_STATS_R:
    case M_COMPACT_R:
    case M_MIGRATE_R:
        on_reply(m, len);
        break;
    default:
        hcrt_fatal(HCRT_MOD_DSM, "unknown DSM message type %u from rank %d",
                   m->type, src);
    }
}

static int receive_one(void)
{
    int flag = 0, count = 0;
    MPI_Message msg;
    MPI_Status st;
    MPI_Improbe(MPI_ANY_SOURCE, 0, dsm.svc_comm, &flag, &msg, &st);
    if (!flag)
        return 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    char *buf = count <= RECV_INLINE ? svc.inbuf : malloc((size_t)count);
    if (!buf)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory receiving %d bytes", count);
    MPI_Mrecv(buf, count, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    dispatch(st.MPI_SOURCE, (dsm_msg_t *)buf, (size_t)count);
    if (buf != svc.inbuf)
        free(buf);
    return 1;
}

/* Idle policy: poll while work arrived within the last spin_ns (a burst
 * of faults or a stream keeps this thread hot and off the scheduler), then
 * nap with a short timeout (a local submitter or a peer's bell wakes it,
 * bell.c), so idle ranks leave the core to computation. */
#define IDLE_NAP_MAX_NS 8000000L

/* A sched_yield that took this long gave the core to another thread for
 * a time slice: the core is contended, and for CONTENDED_NS after that the
 * thread blocks on its bells (bell.c) instead of yielding, when every peer
 * can ring it. Under contention each yield cost a request from another
 * node 1.7-4 ms; a thread woken by a bell preempts the computation at
 * once. Not at 100 us: other runtime threads that poll take the core
 * that long, and blocking made an uncontended fault ~50 us slower (one
 * more wake-up). */
#define YIELD_LOST_NS 1000000L
#define CONTENDED_NS 20000000L

/* A bell can overtake its message (over TCP the datagram may arrive
 * first): woken with nothing to receive, the thread naps briefly for a
 * while rather than for the rest of the spin window. */
#define BELL_EARLY_NS 500000L
#define BELL_EARLY_NAP_NS 50000L

static void nap(long ns)
{
    uint64_t t = hcrt__dsm_now_ns();
    if (svc.bell_at && t - svc.bell_at < BELL_EARLY_NS &&
        ns > BELL_EARLY_NAP_NS)
        ns = BELL_EARLY_NAP_NS;
    atomic_store(&svc.sleeping, 1);
    if (!atomic_load(&svc.submitted) && hcrt__bell_wait(&hcrt__dsm_bell, ns))
        svc.bell_at = hcrt__dsm_now_ns();
    atomic_store(&svc.sleeping, 0);
}

static void idle(uint64_t *last_busy)
{
    uint64_t t = hcrt__dsm_now_ns();
    if (t - *last_busy < dsm.spin_ns) {
        /* While the core is contended this thread blocks on its bells,
         * also with a request of this rank's threads in flight: they
         * sleep until its reply, but the core is not ours then either
         * (another process or rank computes on it), and each yield gave
         * it away for a time slice; the home rings when it replies. A
         * node slowed by a CPU hog measured its first nbody iteration
         * (66 fetches) at 0.002 of the head's speed that way. */
        if (t < svc.contended_until && hcrt__bell_inbound_ok(&hcrt__dsm_bell)) {
            long left = (long)(dsm.spin_ns - (t - *last_busy));
            /* a send of ours in flight may need our progress (over TCP,
             * a large one does): short naps until it is done */
            nap(svc.nsends && left > BELL_EARLY_NAP_NS ? BELL_EARLY_NAP_NS
                                                       : left);
            return;
        }
        /* yield, not pause: a faulting thread woken on this core must get
         * it at once, or every fault costs a scheduler tick */
        sched_yield();
        uint64_t t1 = hcrt__dsm_now_ns();
        if (t1 - t > YIELD_LOST_NS)
            svc.contended_until = t1 + CONTENDED_NS;
        return;
    }
    /* A nap is 2% of the quiet spell so far (20 us .. IDLE_NAP_MAX_NS): a
     * request arriving after a quiet spell from a peer that cannot ring
     * waits at most 2% of it, and a spell of length T costs ~50 ln(T / 1
     * ms) wake-ups (~15-70 us of a core each on this kind of VM). Fixed
     * 100 us naps through a long computation took 12-19% of a core from
     * it (EP-like loop at 2 ranks); a ramp that stayed at 20 us for the
     * first 16 ms of each spell still woke ~700 times a second. */
    uint64_t quiet = t - *last_busy;
    long ns = (long)(quiet / 50);
    if (ns < 20000)
        ns = 20000;
    if (ns > IDLE_NAP_MAX_NS)
        ns = IDLE_NAP_MAX_NS;
    nap(ns);
}

static void *service_main(void *arg)
{
    (void)arg;
    uint64_t last_busy = hcrt__dsm_now_ns();
    /* the default slice: a short one let the head's service thread
     * preempt the head's computation for every request of an idle
     * worker (LU with a hog on the worker's core: 2.1-3.0 s -> 2.8-3.9 s,
     * NPB LU class S at 2 ranks); it blocks on bells when contended */
    hcrt__helper_thread_start("hcrt-dsm", 0);
    while (!atomic_load(&svc.stop) || svc.nsends > 0 ||
           atomic_load(&svc.submitted) || svc.nadopted) {
        int busy = 0;
        if (atomic_load_explicit(&svc.submitted, memory_order_relaxed)) {
            DSM_DELAY(DLY_SERVICE);
            post_submitted();
            busy = 1;
        }
        busy |= test_sends();
        if (svc.nadopted ||
            atomic_load_explicit(&svc.adopt_in, memory_order_relaxed))
            busy |= test_adopted();
        while (receive_one())
            busy = 1;
        busy |= sweep_failed();
        hcrt__bell_flush(&hcrt__dsm_bell); /* after the pass's sends */
        if (busy)
            last_busy = hcrt__dsm_now_ns(), svc.bell_at = 0;
        else
            idle(&last_busy);
    }
    return NULL;
}

int hcrt__dsm_in_service_thread(void)
{
    return pthread_equal(pthread_self(), svc.thread);
}

hcrt_status_t hcrt__dsm_service_start(void)
{
    svc.inbuf = malloc(RECV_INLINE);
    if (!svc.inbuf)
        return HCRT_ERR_NOMEM;
    svc.nfree = 0;
    for (int i = MAX_SLOTS - 1; i >= 0; i--)
        svc.free_slots[svc.nfree++] = i;
    atomic_store(&svc.stop, 0);
    int rc = pthread_create(&svc.thread, NULL, service_main, NULL);
    if (rc != 0) {
        hcrt_error(HCRT_MOD_DSM, "cannot start the DSM service thread: %s",
                   strerror(rc));
        return HCRT_ERR_IO;
    }
    return HCRT_OK;
}

void hcrt__dsm_service_stop(void)
{
    atomic_store(&svc.stop, 1);
    hcrt__bell_local(&hcrt__dsm_bell);
    pthread_join(svc.thread, NULL);
    free(svc.inbuf);
    free(svc.sends);
    free(svc.reqs);
    memset(&svc, 0, sizeof svc);
}
