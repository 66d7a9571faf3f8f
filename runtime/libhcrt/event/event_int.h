/*
 * event_int.h - internals shared by the event system's files.
 */
#ifndef HCRT_EVENT_INT_H
#define HCRT_EVENT_INT_H

#include "base/bell.h"
#include <pthread.h>
#include <stdatomic.h>

#include "base/log.h"
#include "libhcrt/event/event.h"

#define EV_CTRL_TAG 1  /* notices, on the control communicator */
#define EV_TAG_BASE 16 /* first event tag */
#define EV_MAX_TAGS (1 << 20)
#define EV_WINDOW_MAX 64
#define EV_MAGIC 0x68457674u
/* Events with at most this much data are received on the gate thread if
 * the data follows the notice within EV_INLINE_RECV_US. */
#define EV_INLINE_RECV_MAX (256 * 1024)
#define EV_INLINE_RECV_US 50

/* The notice an origin sends on the control tag (only the used part of
 * hdr goes on the wire). */
typedef struct ev_notice {
    uint32_t magic;
    int32_t type;
    int32_t tag;
    int32_t nbufs, nreply;
    uint32_t hdr_len;
    uint64_t len[HCRT_EVENT_MAX_BUFS];
    uint64_t cap[HCRT_EVENT_MAX_BUFS];
    unsigned char hdr[HCRT_EVENT_HDR_MAX];
} ev_notice_t;

/* The reply a destination sends on the event's tag. */
typedef struct ev_reply {
    int32_t status;
    int32_t nbufs;
    uint32_t hdr_len;
    uint32_t pad;
    uint64_t len[HCRT_EVENT_MAX_BUFS];
    unsigned char hdr[HCRT_EVENT_HDR_MAX];
} ev_reply_t;

/* A stream of buffers moved in chunks of at most frag_size bytes, with at
 * most `window` chunks posted at a time. A NULL buffer on a receive drains
 * into a scratch chunk (window 1). */
typedef struct ev_xfer {
    int send; /* 1 send, 0 receive */
    int tag;
    int n;
    hcrt__event_buf_t b[HCRT_EVENT_MAX_BUFS];
    int bi;     /* next chunk: buffer index */
    size_t off; /* and offset */
    int nreq;
    MPI_Request req[EV_WINDOW_MAX];
    void *scratch;
} ev_xfer_t;

enum { DEFER_RUNNING = 0, DEFER_WAITING = 1, DEFER_REPLIED = 2 };

enum ev_state {
    EV_O_ACTIVE, /* origin: notice, data out, waiting for the reply */
    EV_O_REPLY,  /* origin: receiving reply buffers */
    EV_D_PREP,   /* destination: prepare, post receives */
    EV_D_RECV,   /* destination: receiving buffers */
    EV_D_RUN,    /* destination: run (EXEC or DATA queue) */
    EV_D_DEFER,  /* destination: handler replies later */
    EV_D_REPLY,  /* destination: sending the reply */
    EV_DONE
};

struct hcrt__event {
    struct hcrt__event *next;                  /* queue link */
    struct hcrt__event *live_prev, *live_next; /* registry of live events */
    int origin_side;
    int type, peer, tag;
    MPI_Comm comm;
    enum ev_state state;
    hcrt_status_t status;
    double start, deadline; /* MPI_Wtime; deadline < 0: none */
    double quiet_until;     /* origin: no reply expected before (hint) */
    atomic_int done;
    atomic_int refs;     /* layer, user handle, and one per queue entry */
    atomic_int stepping; /* origin: a thread is advancing it (exclusive) */
    atomic_int queued;   /* origin: handed to the DATA queue (sync sends
                            only get there if their waiter gives up) */
    /* origin */
    ev_notice_t notice;
    MPI_Request notice_req;
    MPI_Request reply_req;
    ev_reply_t reply;
    ev_xfer_t out, in;
    hcrt__event_buf_t reply_bufs[HCRT_EVENT_MAX_BUFS];
    int nreply;
    void (*done_cb)(hcrt__event_t *, void *);
    void *arg;
    /* destination */
    hcrt__event_ctx_t ctx;
    int owned[HCRT_EVENT_MAX_BUFS]; /* in[i] allocated by the layer */
    MPI_Request rhdr_req;
    atomic_int defer; /* DEFER_* below: run() vs hcrt__event_reply() race */
    hcrt_status_t early_status;
    int leak; /* a receive could not be cancelled: never free this memory */
    hcrt__event_t *parent; /* forward: the event that asked for it */
    double spin_until;     /* destination: inline receive budget (gate) */
    int exec_queued;       /* destination: counted in exec_busy */
};

typedef struct ev_queue {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    hcrt__event_t *head, *tail;
    int len;
    int stop;
    const char *name;
    /* Sleeping handlers: `waiters` until a push, `nappers` in a timed nap
     * ending at nap_until (MPI_Wtime), which a push of an event that
     * expects no reply before then need not cut short. */
    int waiters, nappers;
    double nap_until;
} ev_queue_t;

typedef struct ev_global {
    int ready, stopping;
    int rank, size;
    MPI_Comm ctrl;
    MPI_Comm *pool;
    hcrt__event_opts_t opts;
    hcrt__event_type_ops_t types[HCRT_EVENT_MAX_TYPES];
    int registered[HCRT_EVENT_MAX_TYPES];
    ev_queue_t q[2]; /* by hcrt__event_queue_t */
    pthread_t gate;
    pthread_t *handlers;
    int nhandlers;
    /* live events, completion waits, tags */
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    hcrt__event_t live; /* list head */
    int nlive_origin, nlive_dest;
    uint8_t *tag_used;
    int ntags, tag_next;
    hcrt__event_peer_cb hook;
    void *hook_arg;
    atomic_uint_fast64_t sent, served, timeouts, bytes_sent, bytes_recv;
    atomic_int exec_busy;    /* EXEC events queued or running right now */
    atomic_int compute_busy; /* threads compute outside events (tasks) */
    hcrt_bell_t bell;        /* rung by origins after a notice to this rank */
} ev_global_t;

extern ev_global_t hcrt__ev;

/* queue.c */
void hcrt__ev_queue_init(ev_queue_t *q, const char *name);
void hcrt__ev_queue_destroy(ev_queue_t *q);
void hcrt__ev_push(hcrt__event_t *ev, int queue);
void *hcrt__ev_handler_main(void *queue);
/* Idle polling: short sleeps while traffic is recent, then doubling. */
typedef struct ev_backoff {
    int sleep_us;
    int empty;   /* polls without progress since the last progress */
    double last; /* time of the last progress (MPI_Wtime) */
} ev_backoff_t;
void hcrt__ev_backoff(ev_backoff_t *b, int progress, int cap);
#define EV_BUSY_POLLS 256 /* empty polls that yield before the naps */

/* xfer.c */
void hcrt__ev_xfer_setup(ev_xfer_t *x, int send, int tag, int n,
                         const hcrt__event_buf_t *b);
int hcrt__ev_xfer_step(ev_xfer_t *x, hcrt__event_t *ev, int *progress);
int hcrt__ev_xfer_abort(ev_xfer_t *x);
int hcrt__ev_req_abort(MPI_Request *req);
int hcrt__ev_tag_get(void);
void hcrt__ev_tag_put(int tag);
size_t hcrt__ev_xfer_total(const ev_xfer_t *x);

/* origin.c / dest.c: one progress step; returns 1 if it made progress. */
int hcrt__ev_origin_step(hcrt__event_t *ev);
int hcrt__ev_dest_step(hcrt__event_t *ev);
void hcrt__ev_dest_start(const ev_notice_t *n, int origin);
void hcrt__ev_complete(hcrt__event_t *ev, hcrt_status_t st);
void hcrt__ev_unref(hcrt__event_t *ev);
void hcrt__ev_to_handlers(hcrt__event_t *ev);
void hcrt__ev_live_add(hcrt__event_t *ev);
void hcrt__ev_expired(hcrt__event_t *ev);
void hcrt__ev_abandon(hcrt__event_t *ev);
void hcrt__ev_lost(hcrt__event_t *ev);

/* forward.c */
void hcrt__ev_forward_register(void);

/* Replies travel on a tag of their own: with origin == destination (an
 * event to oneself) data and reply would otherwise match each other. */
static inline int ev_reply_tag(int tag)
{
    return tag + hcrt__ev.ntags;
}

static inline double ev_deadline(double timeout)
{
    if (timeout == HCRT_EVENT_TIMEOUT_DEFAULT)
        timeout = hcrt__ev.opts.timeout;
    return timeout < 0 ? -1.0 : MPI_Wtime() + timeout;
}

#endif /* HCRT_EVENT_INT_H */
