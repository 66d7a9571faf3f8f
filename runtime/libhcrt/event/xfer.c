/*
 * xfer.c - chunked nonblocking buffer streams and the event tag allocator.
 *
 * A buffer of any size goes as consecutive messages of at most frag_size
 * bytes (always below INT_MAX) on the event's tag and communicator. MPI
 * keeps messages with the same (source, tag, communicator) in order, so the
 * receiver posts the same chunk sequence and never needs a size exchange.
 * Chunks also keep one huge transfer from holding a link for its whole
 * duration: other events' chunks interleave.
 */
#include <stdlib.h>
#include <string.h>

#include "libhcrt/event/event_int.h"

void hcrt__ev_xfer_setup(ev_xfer_t *x, int send, int tag, int n,
                         const hcrt__event_buf_t *b)
{
    memset(x, 0, sizeof(*x));
    x->tag = tag;
    x->send = send;
    x->n = n;
    for (int i = 0; i < n; i++)
        x->b[i] = b[i];
}

size_t hcrt__ev_xfer_total(const ev_xfer_t *x)
{
    size_t t = 0;
    for (int i = 0; i < x->n; i++)
        t += x->b[i].len;
    return t;
}

/* Posts the next chunk; 0 when every chunk is posted. */
static int post_chunk(ev_xfer_t *x, hcrt__event_t *ev)
{
    size_t frag = hcrt__ev.opts.frag_size;

    while (x->bi < x->n && x->off >= x->b[x->bi].len) {
        x->bi++;
        x->off = 0;
    }
    if (x->bi >= x->n)
        return 0;
    hcrt__event_buf_t *b = &x->b[x->bi];
    size_t len = b->len - x->off < frag ? b->len - x->off : frag;
    MPI_Request *r = &x->req[x->nreq];
    int rc;
    if (x->send) {
        rc = MPI_Isend((char *)b->ptr + x->off, (int)len, MPI_BYTE, ev->peer,
                       x->tag, ev->comm, r);
        atomic_fetch_add(&hcrt__ev.bytes_sent, len);
    } else {
        char *dst = b->ptr ? (char *)b->ptr + x->off : x->scratch;
        rc = MPI_Irecv(dst, (int)len, MPI_BYTE, ev->peer, x->tag, ev->comm, r);
        atomic_fetch_add(&hcrt__ev.bytes_recv, len);
    }
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_EVENT,
                   "MPI %s of %zu bytes (event tag %d, peer "
                   "%d) failed with MPI error %d",
                   x->send ? "Isend" : "Irecv", len, ev->tag, ev->peer, rc);
    x->nreq++;
    x->off += len;
    return 1;
}

/* Tests the posted chunks and posts more while the window allows; chunks
 * just posted are tested once more, so a small eager message finishes in
 * the same call instead of costing another pass (a handoff to the DATA
 * thread, for a reply sent by the gate). Returns 1 when the whole stream
 * is done. */
int hcrt__ev_xfer_step(ev_xfer_t *x, hcrt__event_t *ev, int *progress)
{
    for (int pass = 0; pass < 2; pass++) {
        if (x->nreq > 0) {
            int idx[EV_WINDOW_MAX], outcount = 0;
            MPI_Testsome(x->nreq, x->req, &outcount, idx, MPI_STATUSES_IGNORE);
            if (outcount > 0 && outcount != MPI_UNDEFINED) {
                int k = 0; /* compact: drop completed (now NULL) requests */
                for (int i = 0; i < x->nreq; i++)
                    if (x->req[i] != MPI_REQUEST_NULL)
                        x->req[k++] = x->req[i];
                x->nreq = k;
                *progress = 1;
            }
        }
        int window = hcrt__ev.opts.window, posted = 0;
        for (int i = 0; i < x->n && !x->send; i++)
            if (!x->b[i].ptr && x->b[i].len) { /* draining: one scratch chunk */
                window = 1;
                if (!x->scratch &&
                    !(x->scratch = malloc(hcrt__ev.opts.frag_size)))
                    hcrt_fatal(HCRT_MOD_EVENT,
                               "out of memory for a %zu-byte "
                               "scratch chunk",
                               hcrt__ev.opts.frag_size);
            }
        while (x->nreq < window && post_chunk(x, ev))
            posted = *progress = 1;
        if (x->nreq == 0 && x->bi >= x->n) {
            free(x->scratch);
            x->scratch = NULL;
            return 1;
        }
        if (!posted)
            break;
    }
    return 0;
}

/* Gives up on a request: a receive is cancelled and completed locally; a
 * send that cannot be cancelled (the peer may be dead) is freed, so MPI
 * finishes or drops it in the background. */
int hcrt__ev_req_abort(MPI_Request *req)
{
    int flag = 0;

    if (*req == MPI_REQUEST_NULL)
        return 1;
    MPI_Cancel(req);
    double until = MPI_Wtime() + 0.1;
    while (!flag && MPI_Wtime() < until)
        MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (!flag)
        MPI_Request_free(req);
    *req = MPI_REQUEST_NULL;
    return flag;
}

/* Returns 0 if a receive may still write into its buffer. */
int hcrt__ev_xfer_abort(ev_xfer_t *x)
{
    int clean = 1;
    for (int i = 0; i < x->nreq; i++)
        clean &= hcrt__ev_req_abort(&x->req[i]) || x->send;
    x->nreq = 0;
    x->bi = x->n;
    if (clean)
        free(x->scratch); /* no receive writes to it any more */
    x->scratch = NULL;
    return clean;
}

/* Tags are handed out round-robin, so a freed tag is reused as late as
 * possible; the tag of an expired event is never freed (a late message
 * from a slow peer must not match a newer event). */
int hcrt__ev_tag_get(void)
{
    int tag = -1;

    pthread_mutex_lock(&hcrt__ev.lock);
    for (int i = 0; i < hcrt__ev.ntags; i++) {
        int t = hcrt__ev.tag_next;
        hcrt__ev.tag_next = (t + 1) % hcrt__ev.ntags;
        if (!hcrt__ev.tag_used[t]) {
            hcrt__ev.tag_used[t] = 1;
            tag = EV_TAG_BASE + t;
            break;
        }
    }
    pthread_mutex_unlock(&hcrt__ev.lock);
    return tag;
}

void hcrt__ev_tag_put(int tag)
{
    pthread_mutex_lock(&hcrt__ev.lock);
    hcrt__ev.tag_used[tag - EV_TAG_BASE] = 0;
    pthread_mutex_unlock(&hcrt__ev.lock);
}
