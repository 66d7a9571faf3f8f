/*
 * dest.c - the destination side of an event: receive the buffers, run the
 * type's handler on its queue, send the reply; and deadline expiry.
 *
 * Receiving and replying are DATA-queue work; only `run` of an EXEC type
 * goes to the EXEC queue, so a long kernel never holds up a transfer.
 */
#include <stdlib.h>
#include <string.h>

#include "base/wait.h"
#include "libhcrt/event/event_int.h"

#define ctx_event(c)                                                           \
    ((hcrt__event_t *)((char *)(c) - offsetof(hcrt__event_t, ctx)))

/* Called by the gate thread for every notice. */
void hcrt__ev_dest_start(const ev_notice_t *n, int origin)
{
    hcrt__event_t *ev = calloc(1, sizeof(*ev));
    if (!ev)
        hcrt_fatal(HCRT_MOD_EVENT, "out of memory for an event from rank %d",
                   origin);
    ev->type = n->type;
    ev->peer = origin;
    ev->tag = n->tag;
    ev->comm = hcrt__ev.pool[n->tag % hcrt__ev.opts.comms];
    ev->state = EV_D_PREP;
    ev->start = MPI_Wtime();
    ev->deadline = ev_deadline(HCRT_EVENT_TIMEOUT_DEFAULT);
    ev->rhdr_req = ev->notice_req = ev->reply_req = MPI_REQUEST_NULL;
    memcpy(&ev->notice, n, offsetof(ev_notice_t, hdr) + n->hdr_len);
    hcrt__event_ctx_t *c = &ev->ctx;
    c->type = n->type;
    c->origin = origin;
    c->hdr = ev->notice.hdr;
    c->hdr_len = n->hdr_len;
    c->nin = n->nbufs;
    for (int i = 0; i < n->nbufs; i++)
        c->in[i].len = n->len[i];
    c->nout_max = n->nreply;
    for (int i = 0; i < n->nreply; i++)
        c->out_cap[i] = n->cap[i];
    atomic_fetch_add(&hcrt__ev.served, 1);
    hcrt__ev_live_add(ev);
    size_t total = 0;
    for (int i = 0; i < n->nbufs; i++)
        total += n->len[i];
    /* Small data left the origin with the notice: wait for it here a
     * little rather than hand the event to another thread. */
    if (total && total <= EV_INLINE_RECV_MAX)
        ev->spin_until = ev->start + EV_INLINE_RECV_US * 1e-6;
    /* Fast path: take the first steps on the gate thread. An event whose
     * data is already here (or has none) and whose handler is short is
     * served and answered without any thread handoff; whatever still waits
     * for MPI, or is long, goes on to the queues from there. */
    hcrt__ev_dest_step(ev);
}

/* prepare(), then buffers for what it left NULL. On failure the incoming
 * data is still drained (the origin sends it regardless), then the error
 * is the reply. */
static void dest_prepare(hcrt__event_t *ev)
{
    hcrt__event_ctx_t *c = &ev->ctx;
    const hcrt__event_type_ops_t *ops = &hcrt__ev.types[ev->type];
    hcrt_status_t st = HCRT_OK;

    if (ev->type < 0 || ev->type >= HCRT_EVENT_MAX_TYPES ||
        !hcrt__ev.registered[ev->type]) {
        hcrt_error(HCRT_MOD_EVENT,
                   "rank %d sent event type %d, which this "
                   "rank does not serve (register it on every rank)",
                   ev->peer, ev->type);
        st = HCRT_ERR_NOT_FOUND;
    } else if (ops->prepare) {
        st = ops->prepare(c);
    }
    for (int i = 0; i < c->nin; i++) {
        if (st != HCRT_OK) {
            if (ev->owned[i])
                free(c->in[i].ptr);
            ev->owned[i] = 0;
            c->in[i].ptr = NULL; /* drain */
        } else if (!c->in[i].ptr && c->in[i].len) {
            c->in[i].ptr = malloc(c->in[i].len);
            ev->owned[i] = 1;
            if (!c->in[i].ptr) {
                hcrt_error(HCRT_MOD_EVENT,
                           "out of memory for a %zu-byte "
                           "buffer of event type %d",
                           c->in[i].len, ev->type);
                st = HCRT_ERR_NOMEM;
                i = -1; /* restart: drain everything */
            }
        }
    }
    ev->status = st;
    hcrt__ev_xfer_setup(&ev->in, 0, ev->tag, c->nin, c->in);
    ev->state = EV_D_RECV;
}

static void dest_finish(hcrt__event_t *ev)
{
    hcrt__event_ctx_t *c = &ev->ctx;

    if (c->out_release) /* the reply buffers are sent or abandoned */
        c->out_release(c);
    for (int i = 0; i < c->nin && !ev->leak; i++)
        if (ev->owned[i])
            free(c->in[i].ptr);
    pthread_mutex_lock(&hcrt__ev.lock);
    ev->live_prev->live_next = ev->live_next;
    ev->live_next->live_prev = ev->live_prev;
    hcrt__ev.nlive_dest--;
    pthread_cond_broadcast(&hcrt__ev.done_cv);
    pthread_mutex_unlock(&hcrt__ev.lock);
    if (!ev->leak)
        free(ev);
}

static hcrt_status_t check_reply(hcrt__event_t *ev, hcrt_status_t st)
{
    hcrt__event_ctx_t *c = &ev->ctx;
    int bad = c->nout < 0 || c->nout > c->nout_max ||
              c->reply_hdr_len > HCRT_EVENT_HDR_MAX;
    for (int i = 0; !bad && i < c->nout; i++)
        bad =
            c->out[i].len > c->out_cap[i] || (c->out[i].len && !c->out[i].ptr);
    if (!bad)
        return st;
    hcrt_error(HCRT_MOD_EVENT,
               "the handler of event type %d replied with %d "
               "buffers or a header that do not fit what rank %d can take "
               "(%d buffers); replying HCRT_ERR_INVALID instead",
               ev->type, c->nout, ev->peer, c->nout_max);
    c->nout = 0;
    c->reply_hdr_len = 0;
    return HCRT_ERR_INVALID;
}

static void start_reply(hcrt__event_t *ev, hcrt_status_t st)
{
    hcrt__event_ctx_t *c = &ev->ctx;
    ev_reply_t *r = &ev->reply;

    st = check_reply(ev, st);
    hcrt_debug(HCRT_MOD_EVENT,
               "event type %d tag %d from rank %d: reply "
               "after %.1f us",
               ev->type, ev->tag, ev->peer, (MPI_Wtime() - ev->start) * 1e6);
    r->status = st;
    r->nbufs = st == HCRT_OK ? c->nout : 0;
    r->hdr_len = (uint32_t)c->reply_hdr_len;
    for (int i = 0; i < r->nbufs; i++)
        r->len[i] = c->out[i].len;
    memcpy(r->hdr, c->reply_hdr, c->reply_hdr_len);
    size_t nbytes = offsetof(ev_reply_t, hdr) + r->hdr_len;
    ev->deadline = ev_deadline(HCRT_EVENT_TIMEOUT_DEFAULT);
    ev->state = EV_D_REPLY;
    MPI_Isend(r, (int)nbytes, MPI_BYTE, ev->peer, ev_reply_tag(ev->tag),
              ev->comm, &ev->rhdr_req);
    atomic_fetch_add(&hcrt__ev.bytes_sent, nbytes);
    hcrt__ev_xfer_setup(&ev->out, 1, ev_reply_tag(ev->tag), r->nbufs, c->out);
    hcrt__ev_dest_step(ev); /* small replies finish here, unqueued */
}

/* The handler may hand ctx to another thread that replies before run()
 * has even returned HCRT_EVENT_DEFER: whichever of the two comes second
 * starts the reply. */
void hcrt__event_reply(hcrt__event_ctx_t *ctx, hcrt_status_t status)
{
    hcrt__event_t *ev = ctx_event(ctx);

    ev->early_status = status;
    int was = atomic_exchange(&ev->defer, DEFER_REPLIED);
    hcrt_assert(was != DEFER_REPLIED); /* replied twice */
    if (was == DEFER_WAITING)
        start_reply(ev, status);
}

static int dest_run(hcrt__event_t *ev)
{
    const hcrt__event_type_ops_t *ops = &hcrt__ev.types[ev->type];
    hcrt_status_t st = ops->run(&ev->ctx);
    if (ev->exec_queued && st != HCRT_ERR_BUSY) {
        ev->exec_queued = 0;
        atomic_fetch_sub(&hcrt__ev.exec_busy, 1);
    }

    if (st == HCRT_ERR_BUSY) {
        hcrt__ev_push(ev, ops->queue);
        return 0;
    }
    if (st == HCRT_EVENT_DEFER) {
        ev->state = EV_D_DEFER;
        if (atomic_exchange(&ev->defer, DEFER_WAITING) == DEFER_REPLIED)
            start_reply(ev, ev->early_status); /* replied during run() */
        return 1;
    }
    start_reply(ev, st);
    return 1;
}

/* Receives; on the gate's first pass over a small event, polls until its
 * data is in or the short inline budget is spent. */
static int recv_step(hcrt__event_t *ev, int *progress)
{
    for (;;) {
        if (hcrt__ev_xfer_step(&ev->in, ev, progress))
            return 1;
        if (ev->spin_until <= 0 || MPI_Wtime() > ev->spin_until) {
            ev->spin_until = 0;
            return 0;
        }
    }
}

int hcrt__ev_dest_step(hcrt__event_t *ev)
{
    int progress = 0, flag = 0;

    if ((ev->state == EV_D_RECV || ev->state == EV_D_REPLY) &&
        ev->deadline >= 0 && MPI_Wtime() > ev->deadline) {
        hcrt__ev_expired(ev);
        return 1;
    }
    if ((ev->state == EV_D_RECV || ev->state == EV_D_REPLY) &&
        hcrt__wait_is_failed(ev->peer)) {
        hcrt__ev_lost(ev);
        return 1;
    }
    switch (ev->state) {
    case EV_D_PREP:
        dest_prepare(ev);
        progress = 1;
        /* fall through */
    case EV_D_RECV:
        if (!recv_step(ev, &progress))
            break;
        if (ev->status != HCRT_OK) {
            start_reply(ev, ev->status);
            return 1;
        }
        hcrt_debug(HCRT_MOD_EVENT,
                   "event type %d tag %d from rank %d: data "
                   "in after %.1f us",
                   ev->type, ev->tag, ev->peer,
                   (MPI_Wtime() - ev->start) * 1e6);
        ev->state = EV_D_RUN;
        if (hcrt__ev.types[ev->type].queue == HCRT_EVENT_QUEUE_DATA ||
            (hcrt__ev.types[ev->type].run_inline &&
             hcrt__ev.types[ev->type].run_inline(&ev->ctx)))
            return dest_run(ev) | 1; /* short: run here, no handoff */
        ev->exec_queued = 1;
        atomic_fetch_add(&hcrt__ev.exec_busy, 1);
        hcrt__ev_push(ev, HCRT_EVENT_QUEUE_EXEC);
        return 1;
    case EV_D_RUN:
        return dest_run(ev);
    case EV_D_REPLY:
        if (ev->rhdr_req != MPI_REQUEST_NULL) {
            MPI_Test(&ev->rhdr_req, &flag, MPI_STATUS_IGNORE);
            progress |= flag;
        }
        if (hcrt__ev_xfer_step(&ev->out, ev, &progress) &&
            ev->rhdr_req == MPI_REQUEST_NULL) {
            dest_finish(ev);
            return 1;
        }
        break;
    default:
        hcrt_fatal(HCRT_MOD_EVENT,
                   "event type %d from rank %d queued in "
                   "state %d",
                   ev->type, ev->peer, (int)ev->state);
    }
    hcrt__ev_push(ev, HCRT_EVENT_QUEUE_DATA);
    return progress;
}

/* Cancels every pending message of the event. A receive that cannot be
 * cancelled any more (matched, data still coming) keeps the event's memory
 * alive forever rather than let MPI write into freed memory. */
static void abort_all(hcrt__event_t *ev)
{
    hcrt__ev_req_abort(&ev->notice_req);
    hcrt__ev_req_abort(&ev->rhdr_req);
    ev->leak |= !hcrt__ev_req_abort(&ev->reply_req);
    hcrt__ev_xfer_abort(&ev->out);
    ev->leak |= !hcrt__ev_xfer_abort(&ev->in);
    if (ev->leak)
        hcrt_warn(HCRT_MOD_EVENT,
                  "a receive of event type %d from rank %d "
                  "could not be cancelled; its memory is kept",
                  ev->type, ev->peer);
}

/* A deadline passed while waiting for the peer: give up on every pending
 * message, tell the fault hook, and end the event. */
void hcrt__ev_expired(hcrt__event_t *ev)
{
    double waited = MPI_Wtime() - ev->start;

    hcrt_warn(HCRT_MOD_EVENT,
              "event type %d (%s) %s rank %d passed its "
              "deadline after %.3f s: the peer may be dead or overloaded "
              "(raise HCRT_EVENT_TIMEOUT if it is just slow)",
              ev->type,
              hcrt__ev.types[ev->type].name ? hcrt__ev.types[ev->type].name
                                            : "?",
              ev->origin_side ? "to" : "from", ev->peer, waited);
    atomic_fetch_add(&hcrt__ev.timeouts, 1);
    abort_all(ev);
    if (hcrt__ev.hook)
        hcrt__ev.hook(ev->peer, ev->type, hcrt__ev.hook_arg);
    if (ev->origin_side) {
        hcrt__ev_complete(ev, HCRT_ERR_TIMEOUT);
    } else {
        dest_finish(ev);
    }
}

/* FT mode: the peer was lost (base/wait.h's failed set). The event ends
 * with HCRT_ERR_NODE_FAILED; its tag is never reused (a rank declared lost
 * may still send, e.g. one cut off and back). */
void hcrt__ev_lost(hcrt__event_t *ev)
{
    hcrt_info(HCRT_MOD_EVENT,
              "event type %d (%s) %s rank %d: the rank was "
              "lost",
              ev->type,
              hcrt__ev.types[ev->type].name ? hcrt__ev.types[ev->type].name
                                            : "?",
              ev->origin_side ? "to" : "from", ev->peer);
    abort_all(ev);
    if (ev->origin_side)
        hcrt__ev_complete(ev, HCRT_ERR_NODE_FAILED);
    else
        dest_finish(ev);
}

/* Shutdown: ends an event that will never finish, without the hook. */
void hcrt__ev_abandon(hcrt__event_t *ev)
{
    abort_all(ev);
    if (ev->origin_side)
        hcrt__ev_complete(ev, HCRT_ERR_TIMEOUT);
    else
        dest_finish(ev);
}
