/*
 * dreduce_rep.c - FT mode: the replicas of raw inputs this rank holds for
 * other ranks (docs/reduce.md "Failures"), received as they arrive.
 *
 * A sender's input is recoverable once its replica is complete here and
 * the scheduler knows it. Received only in this rank's own reduction
 * calls, a rendezvous-sized replica stayed unmatched while this rank
 * computed, and a sender lost meanwhile lost its input. So a thread of
 * its own takes replicas in: it blocks on the replicas' bell (the sender
 * rings it after its MPI_Isend), matches and receives, naps briefly while
 * a transfer is under way, and reports REPLICA to the scheduler (tag
 * DR_TAG_REP, which the scheduler reads before it applies a loss) as soon
 * as the last byte is in. It never waits for a peer: a receive from a
 * lost sender is dropped, a report is only tested.
 *
 * The reduction calls run the same pass too (a rank that waits in one
 * matches at once); without the thread (the program owns MPI, which it
 * may finalise before the runtime's shutdown) only they do.
 * Lock order: hcrt__dr_lock, then rep_lock (the thread takes only
 * rep_lock: a long fold under hcrt__dr_lock never holds it up).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/log.h"
#include "libhcrt/dreduce_int.h"
#include "libhcrt/fault/ft.h"

#define IDLE_WAIT_NS 50000000L /* no transfer: block this long on the bell */
#define XFER_NAP_MIN_NS 20000L /* a transfer under way: nap, doubling */
#define XFER_NAP_MAX_NS 1000000L
#define QUIET_NAP_MAX_NS 5000000L /* without bells: naps up to this */
#define AFTER_BELL_NS 5000000L    /* after a bell: poll this long */

/* A replica this rank holds or receives. */
typedef struct rep {
    uint32_t id;
    int from, root, complete;
    void *buf;
    size_t len;
    MPI_Request req;  /* the receive */
    MPI_Request rreq; /* the REPLICA report, while it is sent */
    int reported;
    dr_ctl_t msg; /* the report's buffer */
    struct rep *next;
} rep_t;

static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static rep_t *reps;
static pthread_t thread;
static int threaded;
static atomic_int stop;
hcrt_bell_t hcrt__dr_bell = {.efd = -1, .sfd = -1};
int hcrt__dr_bell_up;

static void rep_free(rep_t **pp)
{
    rep_t *p = *pp;
    *pp = p->next;
    int busy = hcrt__dr_req_abort(&p->rreq);
    busy |= hcrt__dr_req_abort(&p->req);
    if (busy) /* MPI may still use p's buffers (after a loss): left to it */
        return;
    free(p->buf);
    free(p);
}

/* Matches every replica that came and posts its receive. */
static int post_new(void)
{
    int n = 0;
    for (;;) {
        int flag = 0, count;
        MPI_Message msg;
        MPI_Status st;
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, hcrt__dr_rcomm, &flag, &msg,
                    &st);
        if (!flag)
            return n;
        MPI_Get_count(&st, MPI_BYTE, &count);
        rep_t *p = calloc(1, sizeof *p);
        if (p)
            p->buf = malloc(count ? (size_t)count : 1);
        if (!p || !p->buf)
            hcrt_fatal(HCRT_MOD_CORE,
                       "out of memory for a reduction's replica (%d bytes)",
                       count);
        hcrt__dr_rep_tag_read(st.MPI_TAG, &p->id, &p->root);
        p->from = st.MPI_SOURCE;
        p->len = (size_t)count;
        p->rreq = MPI_REQUEST_NULL;
        MPI_Imrecv(p->buf, count, MPI_BYTE, &msg, &p->req);
        p->next = reps;
        reps = p;
        n++;
    }
}

/* The scheduler learns that this rank holds p's input: sent on its own
 * tag, which the scheduler reads before it applies a loss. */
static void report(rep_t *p)
{
    int to = hcrt__dr_sched_rank(p->id);
    p->msg = (dr_ctl_t){.kind = CTL_REPLICA,
                        .id = p->id,
                        .rank = hcrt__dr_rank,
                        .root = p->root,
                        .a = p->from};
    p->reported = 1;
    if (MPI_Isend(&p->msg, sizeof p->msg, MPI_BYTE, to, DR_TAG_REP,
                  hcrt__dr_comm, &p->rreq) != MPI_SUCCESS)
        p->rreq = MPI_REQUEST_NULL;
}

/* One replica's receive and report. Returns 0 when it was dropped (its
 * sender was lost mid-way), else 1; *open: its transfer is under way. */
static int advance(rep_t **pp, int *open, int *moved)
{
    rep_t *p = *pp;
    int flag = 0;
    if (!p->complete) {
        MPI_Test(&p->req, &p->complete, MPI_STATUS_IGNORE);
        if (!p->complete && hcrt__ft_lost(p->from)) {
            rep_free(pp);
            *moved = 1;
            return 0;
        }
        *open |= !p->complete;
        *moved |= p->complete;
    }
    if (p->complete && !p->reported) {
        report(p);
        *moved = 1;
    }
    /* tested, never waited for (its scheduler, the head, is never lost
     * in a job that goes on) */
    if (p->rreq != MPI_REQUEST_NULL)
        MPI_Test(&p->rreq, &flag, MPI_STATUS_IGNORE);
    return 1;
}

/* Receives and reports what it can. Returns 1 when a transfer is still
 * under way, |2 when something moved. */
static int pass(void)
{
    int open = 0, moved = post_new() > 0;
    for (rep_t **pp = &reps; *pp;)
        if (advance(pp, &open, &moved))
            pp = &(*pp)->next;
    return open | moved << 1;
}

/* How long to sleep after a pass (a bell ends the sleep at once). While
 * a transfer is under way, or just after a bell (its replica's message
 * may become visible to this thread only a little later), poll with
 * naps that double while nothing moves; else block until a bell. */
static long sleep_ns(int r, long *nap, uint64_t now, uint64_t rung_at,
                     uint64_t quiet_since)
{
    if ((r & 1) || now - rung_at < AFTER_BELL_NS) {
        *nap = r & 2 ? XFER_NAP_MIN_NS : *nap * 2;
        if (*nap > XFER_NAP_MAX_NS)
            *nap = XFER_NAP_MAX_NS;
        return *nap;
    }
    if (hcrt__bell_inbound_ok(&hcrt__dr_bell))
        return IDLE_WAIT_NS; /* senders ring: the timeout is a safety net */
    long ns = (long)((now - quiet_since) / 50);      /* no bells: 2 % of the */
    return ns < XFER_NAP_MIN_NS    ? XFER_NAP_MIN_NS /* quiet spell */
           : ns > QUIET_NAP_MAX_NS ? QUIET_NAP_MAX_NS
                                   : ns;
}

static void *rep_main(void *arg)
{
    (void)arg;
    long nap = XFER_NAP_MIN_NS;
    uint64_t quiet_since = hcrt__now_ns(), rung_at = 0;
    hcrt__helper_thread_start("hcrt-replica", 1);
    while (!atomic_load(&stop)) {
        pthread_mutex_lock(&rep_lock);
        int r = pass();
        pthread_mutex_unlock(&rep_lock);
        uint64_t now = hcrt__now_ns();
        if (r)
            quiet_since = now;
        long ns = sleep_ns(r, &nap, now, rung_at, quiet_since);
        if (hcrt__bell_wait(&hcrt__dr_bell, ns))
            rung_at = hcrt__now_ns(), nap = XFER_NAP_MIN_NS / 2;
    }
    return NULL;
}

void hcrt__dr_rep_thread_start(void)
{
    atomic_store(&stop, 0);
    int rc = pthread_create(&thread, NULL, rep_main, NULL);
    if (rc != 0)
        hcrt_fatal(HCRT_MOD_CORE,
                   "cannot start the thread that receives reduction replicas "
                   "(FT mode): %s",
                   strerror(rc));
    threaded = 1;
}

/* At shutdown, before MPI_Finalize: the thread stops (it never waits on a
 * peer, so this returns within one pass), then what it held goes. */
void hcrt__dr_rep_fini(void)
{
    if (threaded) {
        atomic_store(&stop, 1);
        hcrt__bell_local(&hcrt__dr_bell);
        pthread_join(thread, NULL);
        threaded = 0;
    }
    pthread_mutex_lock(&rep_lock);
    while (reps)
        rep_free(&reps);
    pthread_mutex_unlock(&rep_lock);
    if (hcrt__dr_bell_up)
        hcrt__bell_fini(&hcrt__dr_bell);
    hcrt__dr_bell_up = 0;
}

/* With hcrt__dr_lock held. */
void hcrt__dr_rep_poll(void)
{
    if (hcrt__dr_rcomm == MPI_COMM_NULL)
        return;
    pthread_mutex_lock(&rep_lock);
    pass(); /* whoever comes first: this call or the thread */
    for (rep_t **pp = &reps; *pp;) {
        rep_t *p = *pp;
        /* a replica that came after this rank ended its instance */
        if (p->complete && p->reported && p->rreq == MPI_REQUEST_NULL &&
            (int32_t)(p->id - hcrt__dr_next_id) < 0 && !hcrt__dr_find(p->id))
            rep_free(pp);
        else
            pp = &p->next;
    }
    pthread_mutex_unlock(&rep_lock);
}

void *hcrt__dr_rep_get(uint32_t id, int k, size_t *len)
{
    void *buf = NULL;
    pthread_mutex_lock(&rep_lock);
    for (rep_t *p = reps; p; p = p->next)
        if (p->id == id && p->from == k && p->complete) {
            *len = p->len;
            buf = p->buf; /* freed only by the reduction calls' side */
            break;
        }
    pthread_mutex_unlock(&rep_lock);
    return buf;
}

void hcrt__dr_rep_forget(uint32_t id)
{
    pthread_mutex_lock(&rep_lock);
    for (rep_t **pp = &reps; *pp;)
        if ((*pp)->id == id && (*pp)->complete &&
            (*pp)->rreq == MPI_REQUEST_NULL)
            rep_free(pp);
        else
            pp = &(*pp)->next;
    pthread_mutex_unlock(&rep_lock);
}
