/*
 * origin.c - the origin side of an event: send, progress, completion, and
 * the waitable handle.
 *
 * The reply receive is posted before the notice leaves, so a fast reply
 * never sits in MPI's unexpected queue, and it can always be cancelled when
 * the deadline passes (a dead peer makes MPI report nothing).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/wait.h"
#include "libhcrt/event/event_int.h"

static hcrt_status_t check_send(const hcrt__event_send_t *s, int ev_out_given)
{
    const char *why = NULL;

    if (!hcrt__ev.ready || hcrt__ev.stopping)
        why = hcrt__ev.ready ? "the event system is shutting down"
                             : "the event system is not initialised "
                               "(call hcrt__event_init first)";
    else if (s->type < 0 || s->type >= HCRT_EVENT_MAX_TYPES)
        why = "the event type is out of range";
    else if (s->dest < 0 || s->dest >= hcrt__ev.size)
        why = "the destination rank is out of range";
    else if (hcrt__wait_is_failed(s->dest))
        return HCRT_ERR_NODE_FAILED; /* FT mode: it was lost */
    else if (s->hdr_len > HCRT_EVENT_HDR_MAX || (s->hdr_len && !s->hdr))
        why = "the header is longer than HCRT_EVENT_HDR_MAX or NULL";
    else if (s->sync && !ev_out_given)
        why = "a sync event needs a handle to wait on (ev_out)";
    else if (s->nbufs < 0 || s->nbufs > HCRT_EVENT_MAX_BUFS || s->nreply < 0 ||
             s->nreply > HCRT_EVENT_MAX_BUFS || (s->nbufs && !s->bufs) ||
             (s->nreply && !s->reply_bufs))
        why = "more buffers than HCRT_EVENT_MAX_BUFS, or a NULL array";
    for (int i = 0; !why && i < s->nbufs; i++)
        if (s->bufs[i].len && !s->bufs[i].ptr)
            why = "a buffer to send is NULL";
    if (!why)
        return HCRT_OK;
    hcrt_error(HCRT_MOD_EVENT, "cannot send event type %d to rank %d: %s",
               s->type, s->dest, why);
    return HCRT_ERR_INVALID;
}

void hcrt__ev_live_add(hcrt__event_t *ev)
{
    hcrt__event_t *h = &hcrt__ev.live;

    pthread_mutex_lock(&hcrt__ev.lock);
    ev->live_next = h->live_next;
    ev->live_prev = h;
    h->live_next->live_prev = ev;
    h->live_next = ev;
    if (ev->origin_side)
        hcrt__ev.nlive_origin++;
    else
        hcrt__ev.nlive_dest++;
    pthread_mutex_unlock(&hcrt__ev.lock);
}

static void fill_notice(hcrt__event_t *ev, const hcrt__event_send_t *s)
{
    ev_notice_t *n = &ev->notice;

    n->magic = EV_MAGIC;
    n->type = s->type;
    n->tag = ev->tag;
    n->nbufs = s->nbufs;
    n->nreply = s->nreply;
    n->hdr_len = (uint32_t)s->hdr_len;
    for (int i = 0; i < s->nbufs; i++)
        n->len[i] = s->bufs[i].len;
    for (int i = 0; i < s->nreply; i++) {
        n->cap[i] = s->reply_bufs[i].len;
        ev->reply_bufs[i] = s->reply_bufs[i];
    }
    if (s->hdr_len)
        memcpy(n->hdr, s->hdr, s->hdr_len);
}

hcrt_status_t hcrt__event_send(const hcrt__event_send_t *s,
                               hcrt__event_t **ev_out)
{
    hcrt_status_t st = check_send(s, ev_out != NULL);
    if (st != HCRT_OK)
        return st;
    hcrt__event_t *ev = calloc(1, sizeof(*ev));
    if (!ev)
        return HCRT_ERR_NOMEM;
    ev->tag = hcrt__ev_tag_get();
    if (ev->tag < 0) {
        hcrt_error(HCRT_MOD_EVENT,
                   "cannot send event type %d: all %d event "
                   "tags are in flight; wait for some events first",
                   s->type, hcrt__ev.ntags);
        free(ev);
        return HCRT_ERR_BUSY;
    }
    ev->origin_side = 1;
    ev->type = s->type;
    ev->peer = s->dest;
    ev->comm = hcrt__ev.pool[ev->tag % hcrt__ev.opts.comms];
    ev->state = EV_O_ACTIVE;
    ev->start = MPI_Wtime();
    ev->deadline = ev_deadline(s->timeout);
    ev->quiet_until = s->quiet > 0 ? ev->start + s->quiet : 0;
    ev->nreply = s->nreply;
    ev->done_cb = s->done;
    ev->arg = s->arg;
    ev->rhdr_req = MPI_REQUEST_NULL;
    atomic_init(&ev->refs, ev_out ? 2 : 1);
    fill_notice(ev, s);
    hcrt__ev_xfer_setup(&ev->out, 1, ev->tag, s->nbufs, s->bufs);

    MPI_Irecv(&ev->reply, sizeof(ev->reply), MPI_BYTE, ev->peer,
              ev_reply_tag(ev->tag), ev->comm, &ev->reply_req);
    size_t nbytes = offsetof(ev_notice_t, hdr) + s->hdr_len;
    MPI_Isend(&ev->notice, (int)nbytes, MPI_BYTE, ev->peer, EV_CTRL_TAG,
              hcrt__ev.ctrl, &ev->notice_req);
    /* its gate may be blocked; one rung less than half a spin window ago
     * still polls (and a missed ring costs at most one nap), except in a
     * spread TASKS region, where gates block between notices (event.c):
     * ring each time */
    hcrt__bell_ring(&hcrt__ev.bell, ev->peer,
                    atomic_load(&hcrt__ev.compute_busy) > 0
                        ? 0
                        : (int64_t)hcrt__ev.opts.spin_us * 500);
    int sent; /* a small notice is usually out at once: no handler pass */
    MPI_Test(&ev->notice_req, &sent, MPI_STATUS_IGNORE);
    atomic_fetch_add(&hcrt__ev.bytes_sent, nbytes);
    atomic_fetch_add(&hcrt__ev.sent, 1);
    int progress = 0; /* post the first chunks now, not after a handoff */
    hcrt__ev_xfer_step(&ev->out, ev, &progress);
    hcrt__ev_live_add(ev);
    if (ev_out)
        *ev_out = ev;
    if (!s->sync)
        hcrt__ev_to_handlers(ev);
    return HCRT_OK;
}

/* The reply header arrived: check it and post the reply-buffer receives. */
static void reply_arrived(hcrt__event_t *ev)
{
    ev_reply_t *r = &ev->reply;
    hcrt__event_buf_t b[HCRT_EVENT_MAX_BUFS];
    int n = r->nbufs;

    atomic_fetch_add(&hcrt__ev.bytes_recv,
                     offsetof(ev_reply_t, hdr) + r->hdr_len);
    if (n < 0 || n > ev->nreply)
        hcrt_fatal(HCRT_MOD_EVENT,
                   "event type %d: rank %d replied with %d "
                   "buffers, %d expected (corrupt reply)",
                   ev->type, ev->peer, n, ev->nreply);
    for (int i = 0; i < n; i++) {
        if (r->len[i] > ev->reply_bufs[i].len)
            hcrt_fatal(HCRT_MOD_EVENT,
                       "event type %d: rank %d replied with "
                       "%llu bytes in buffer %d, room for %zu",
                       ev->type, ev->peer, (unsigned long long)r->len[i], i,
                       ev->reply_bufs[i].len);
        b[i].ptr = ev->reply_bufs[i].ptr;
        b[i].len = r->len[i];
    }
    hcrt__ev_xfer_setup(&ev->in, 0, ev_reply_tag(ev->tag), n, b);
    ev->state = EV_O_REPLY;
    hcrt_debug(HCRT_MOD_EVENT,
               "event type %d tag %d to rank %d: reply "
               "header after %.1f us",
               ev->type, ev->tag, ev->peer, (MPI_Wtime() - ev->start) * 1e6);
}

/* Hands an origin event to the DATA queue's handlers, once. */
void hcrt__ev_to_handlers(hcrt__event_t *ev)
{
    if (!atomic_exchange(&ev->queued, 1))
        hcrt__ev_push(ev, HCRT_EVENT_QUEUE_DATA);
}

/* One nonblocking step; *finished when the event completed. The caller
 * holds ev->stepping. */
static int origin_advance(hcrt__event_t *ev, int *finished)
{
    int progress = 0, flag = 0;

    *finished = 0;
    if (ev->deadline >= 0 && MPI_Wtime() > ev->deadline) {
        hcrt__ev_expired(ev);
        return *finished = 1;
    }
    if (hcrt__wait_is_failed(ev->peer)) { /* FT mode: lost */
        hcrt__ev_lost(ev);
        return *finished = 1;
    }
    if (ev->notice_req != MPI_REQUEST_NULL) {
        MPI_Test(&ev->notice_req, &flag, MPI_STATUS_IGNORE);
        progress |= flag;
    }
    int out_done = hcrt__ev_xfer_step(&ev->out, ev, &progress);
    if (ev->state == EV_O_ACTIVE) {
        MPI_Test(&ev->reply_req, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            reply_arrived(ev);
            progress = 1;
        }
    }
    if (ev->state == EV_O_REPLY && hcrt__ev_xfer_step(&ev->in, ev, &progress) &&
        out_done && ev->notice_req == MPI_REQUEST_NULL) {
        hcrt__ev_complete(ev, (hcrt_status_t)ev->reply.status);
        return *finished = 1;
    }
    return progress;
}

/* A handler popped the event (with the queue's reference). A thread in
 * hcrt__event_wait may be advancing it, or may have completed it. */
int hcrt__ev_origin_step(hcrt__event_t *ev)
{
    int progress = 0, finished = 1;

    if (atomic_exchange(&ev->stepping, 1)) {
        hcrt__ev_push(ev, HCRT_EVENT_QUEUE_DATA);
        hcrt__ev_unref(ev);
        return 0;
    }
    if (ev->state != EV_DONE)
        progress = origin_advance(ev, &finished);
    if (!finished)
        hcrt__ev_push(ev, HCRT_EVENT_QUEUE_DATA);
    atomic_store(&ev->stepping, 0);
    hcrt__ev_unref(ev);
    return progress;
}

void hcrt__ev_unref(hcrt__event_t *ev)
{
    if (atomic_fetch_sub(&ev->refs, 1) == 1 && !ev->leak)
        free(ev);
}

/* Runs the callbacks, wakes waiters, frees the tag (unless the event
 * expired) and drops the layer's reference. */
void hcrt__ev_complete(hcrt__event_t *ev, hcrt_status_t st)
{
    ev->status = st;
    ev->state = EV_DONE;
    if (st != HCRT_ERR_TIMEOUT && st != HCRT_ERR_NODE_FAILED)
        hcrt__ev_tag_put(ev->tag);
    pthread_mutex_lock(&hcrt__ev.lock);
    ev->live_prev->live_next = ev->live_next;
    ev->live_next->live_prev = ev->live_prev;
    hcrt__ev.nlive_origin--;
    pthread_mutex_unlock(&hcrt__ev.lock);
    hcrt_debug(HCRT_MOD_EVENT,
               "event type %d tag %d to rank %d done: %s "
               "(%.1f us)",
               ev->type, ev->tag, ev->peer, hcrt_strerror(st),
               (MPI_Wtime() - ev->start) * 1e6);
    if (hcrt__ev.types[ev->type].origin_done)
        hcrt__ev.types[ev->type].origin_done(ev);
    if (ev->done_cb)
        ev->done_cb(ev, ev->arg);
    pthread_mutex_lock(&hcrt__ev.lock);
    atomic_store(&ev->done, 1);
    pthread_cond_broadcast(&hcrt__ev.done_cv);
    pthread_mutex_unlock(&hcrt__ev.lock);
    hcrt__ev_unref(ev);
}

int hcrt__event_test(hcrt__event_t *ev)
{
    return atomic_load(&ev->done);
}

/* Sleeps on done_cv at most us microseconds. */
static void wait_done(hcrt__event_t *ev, int us)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += (long)us * 1000;
    ts.tv_sec += ts.tv_nsec / 1000000000;
    ts.tv_nsec %= 1000000000;
    pthread_mutex_lock(&hcrt__ev.lock);
    if (!atomic_load(&ev->done))
        pthread_cond_timedwait(&hcrt__ev.done_cv, &hcrt__ev.lock, &ts);
    pthread_mutex_unlock(&hcrt__ev.lock);
}

/* The waiting thread advances its own event too (when no handler is on
 * it): the reply is seen without a handoff between threads. It polls with
 * the same backoff as the handlers, up to HCRT_EVENT_IDLE_MAX_US between
 * polls, and a completion by a handler wakes it at once. */
hcrt_status_t hcrt__event_wait(hcrt__event_t *ev, double timeout)
{
    double end = timeout < 0 ? -1.0 : MPI_Wtime() + timeout;
    ev_backoff_t bo = {0, 0, MPI_Wtime()};
    hcrt_wait_t w = {.what = "an event", .peer = ev->peer, .recoverable = 1};
    hcrt_wait_state_t ws;
    hcrt__wait_begin(&ws);

    while (!atomic_load(&ev->done)) {
        int progress = 0, finished;
        if (!atomic_exchange(&ev->stepping, 1)) {
            if (ev->state != EV_DONE)
                progress = origin_advance(ev, &finished);
            atomic_store(&ev->stepping, 0);
        }
        if (atomic_load(&ev->done))
            break;
        double now = MPI_Wtime();
        if (end >= 0 && now >= end) {
            hcrt__ev_to_handlers(ev); /* a sync event: nobody else polls */
            hcrt__wait_end(&ws);
            return HCRT_ERR_BUSY;
        }
        /* woken by the fault detector when the peer failed (wait.h) */
        hcrt_status_t fst = hcrt__wait_poll(&ws, &w);
        if (fst != HCRT_OK) {
            hcrt__ev_to_handlers(ev);
            hcrt__wait_end(&ws);
            return fst;
        }
        hcrt__ev_backoff(&bo, progress, hcrt__ev.opts.idle_max_us);
        int us = bo.sleep_us;
        if (end >= 0 && us > (end - now) * 1e6)
            us = (int)((end - now) * 1e6) + 1;
        if (us == 1)
            sched_yield(); /* see hcrt__ev_backoff */
        else if (us > 1)
            wait_done(ev, us);
    }
    hcrt__wait_end(&ws);
    return ev->status;
}

hcrt_status_t hcrt__event_status(const hcrt__event_t *ev)
{
    /* EV_DONE is set before the callbacks run, so they see the status. */
    return atomic_load(&ev->done) || ev->state == EV_DONE ? ev->status
                                                          : HCRT_ERR_BUSY;
}

const void *hcrt__event_reply_hdr(const hcrt__event_t *ev, size_t *len)
{
    *len = ev->state == EV_DONE && ev->status != HCRT_ERR_TIMEOUT
               ? ev->reply.hdr_len
               : 0;
    return ev->reply.hdr;
}

size_t hcrt__event_reply_len(const hcrt__event_t *ev, int i)
{
    if (ev->state != EV_DONE || ev->status == HCRT_ERR_TIMEOUT || i < 0 ||
        i >= ev->reply.nbufs)
        return 0;
    return ev->reply.len[i];
}

int hcrt__event_peer(const hcrt__event_t *ev)
{
    return ev->peer;
}

void hcrt__event_release(hcrt__event_t *ev)
{
    if (ev)
        hcrt__ev_unref(ev);
}

hcrt_status_t hcrt__event_call(int dest, int type, const void *hdr,
                               size_t hdr_len, void *reply_hdr,
                               size_t *reply_len, double timeout)
{
    hcrt__event_send_t s = {.type = type,
                            .dest = dest,
                            .hdr = hdr,
                            .hdr_len = hdr_len,
                            .timeout = timeout,
                            .sync = 1};
    hcrt__event_t *ev;
    hcrt_status_t st = hcrt__event_send(&s, &ev);
    if (st != HCRT_OK)
        return st;
    st = hcrt__event_wait(ev, -1.0);
    if (reply_len) {
        size_t len;
        const void *p = hcrt__event_reply_hdr(ev, &len);
        if (len > *reply_len)
            len = *reply_len;
        if (reply_hdr && len)
            memcpy(reply_hdr, p, len);
        *reply_len = len;
    }
    hcrt__event_release(ev);
    return st;
}
