/*
 * event.h - the MPI event system of the cluster runtime (internal).
 *
 * An event is one logical action between an origin rank and a destination
 * rank (DESIGN.md section 5, OMPC section 4.2): the origin sends a notice
 * with a small header and optional large buffers; the destination's gate
 * thread queues it, a handler thread runs the type's callbacks, and a reply
 * (status, small header, optional buffers) completes the event on the
 * origin. Every event owns a tag and a communicator of the pool for its
 * follow-up messages, so events never cross-talk. All MPI traffic is
 * nonblocking and progressed by a few handler threads, so thousands of
 * in-flight events need no thread each. Every wait on a peer has a deadline;
 * an expired deadline completes the event with HCRT_ERR_TIMEOUT and calls
 * the peer hook (the fault module's input).
 *
 * Threading: all functions are thread-safe once hcrt__event_init returned.
 * Callbacks run on the event system's handler threads: they must not block
 * for long (except EXEC handlers, which have their own threads) and must
 * not wait for another event to complete.
 */
#ifndef HCRT_EVENT_H
#define HCRT_EVENT_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hcrt/hcrt.h"

#define HCRT_EVENT_HDR_MAX 256 /* bytes of small header per direction */
#define HCRT_EVENT_MAX_BUFS 4  /* large buffers per direction */
#define HCRT_EVENT_MAX_TYPES 64
#define HCRT_EVENT_TYPE_FORWARD 0 /* reserved: hcrt__event_forward */

/* Deadline values (seconds) for hcrt__event_send_t.timeout. */
#define HCRT_EVENT_TIMEOUT_DEFAULT 0.0 /* HCRT_EVENT_TIMEOUT */
#define HCRT_EVENT_TIMEOUT_NONE -1.0   /* no deadline (e.g. long kernels) */

/* Extra return values of a destination `run` callback (never errors). */
#define HCRT_EVENT_DEFER ((hcrt_status_t)1) /* reply later: event_reply */
/* Returning HCRT_ERR_BUSY from `run` re-queues the event: run is called
 * again later (polling without holding a thread). */

typedef enum hcrt__event_queue {
    HCRT_EVENT_QUEUE_EXEC = 0, /* long-running work (kernels) */
    HCRT_EVENT_QUEUE_DATA = 1  /* short work and all data movement */
} hcrt__event_queue_t;

typedef struct hcrt__event_buf {
    void *ptr;
    size_t len;
} hcrt__event_buf_t;

typedef struct hcrt__event hcrt__event_t; /* origin-side handle */

/* The destination's view of one event, given to the type's callbacks. */
typedef struct hcrt__event_ctx {
    int type;
    int origin;      /* rank that sent the event */
    const void *hdr; /* the origin's header (valid until the reply) */
    size_t hdr_len;
    int nin; /* incoming buffers; len set by the layer */
    hcrt__event_buf_t in[HCRT_EVENT_MAX_BUFS];
    /* Reply, filled by `run` (or `source` for a forward): */
    unsigned char reply_hdr[HCRT_EVENT_HDR_MAX];
    size_t reply_hdr_len;
    int nout; /* <= nout_max, each len <= out_cap[i] */
    hcrt__event_buf_t out[HCRT_EVENT_MAX_BUFS];
    int nout_max; /* reply buffers the origin can take */
    size_t out_cap[HCRT_EVENT_MAX_BUFS];
    /* Called once the out buffers have been sent (or abandoned). */
    void (*out_release)(struct hcrt__event_ctx *ctx);
    void *user; /* free for the handler's own state */
} hcrt__event_ctx_t;

typedef struct hcrt__event_type_ops {
    const char *name;
    hcrt__event_queue_t queue; /* where `run` executes */
    /* Destination, optional, DATA thread, before the buffers arrive: set
     * in[i].ptr to where buffer i must land. Buffers left NULL are
     * allocated by the layer and freed after the reply (set in[i].ptr to
     * NULL in `run` to keep one; free() it yourself). */
    hcrt_status_t (*prepare)(hcrt__event_ctx_t *ctx);
    /* Destination, required: do the work once every buffer arrived. Return
     * a status (sent to the origin), HCRT_EVENT_DEFER or HCRT_ERR_BUSY. */
    hcrt_status_t (*run)(hcrt__event_ctx_t *ctx);
    /* Sender of a forward (hcrt__event_forward), optional: set out[] to the
     * buffers to send, for this header, to the forward's destination. */
    hcrt_status_t (*source)(hcrt__event_ctx_t *ctx);
    /* Origin, optional: called for every completed event of this type,
     * before the event's own callback. */
    void (*origin_done)(hcrt__event_t *ev);
    /* Destination, optional, for EXEC types: return 1 when `run` for this
     * event is known to be short (e.g. a kernel whose learned time is a
     * few microseconds): it then runs inline on the thread that received
     * the event (the gate), without a handoff to the EXEC queue. */
    int (*run_inline)(const hcrt__event_ctx_t *ctx);
} hcrt__event_type_ops_t;

/* What to send; only type and dest are required. */
typedef struct hcrt__event_send {
    int type;
    int dest;
    const void *hdr;
    size_t hdr_len; /* <= HCRT_EVENT_HDR_MAX */
    int nbufs;
    const hcrt__event_buf_t *bufs; /* must stay valid until completion */
    /* Where reply buffers land (capacity in len); NULL/0: no reply data. */
    int nreply;
    const hcrt__event_buf_t *reply_bufs;
    double timeout; /* HCRT_EVENT_TIMEOUT_DEFAULT, _NONE or seconds */
    /* Completion callback on a handler thread; may be NULL. */
    void (*done)(hcrt__event_t *ev, void *arg);
    void *arg;
    /* 1: the caller waits for the event at once (needs ev_out): its own
     * thread progresses the event in hcrt__event_wait, and no handler
     * thread polls it meanwhile (no competing spinner, no handoff). If the
     * wait returns before completion, the event goes to the handlers. */
    int sync;
    /* Seconds from now before which no reply is expected (e.g. most of a
     * kernel's learned run time): while every event a handler waits for is
     * this quiet, it sleeps instead of polling, leaving the core to others
     * (a push wakes it). A hint only: 0 expects a reply at any time. */
    double quiet;
} hcrt__event_send_t;

/* Settings of the event system (see settings.def and docs/events.md). */
typedef struct hcrt__event_opts {
    int exec_threads;     /* handler threads of the EXEC queue */
    int data_threads;     /* handler threads of the DATA queue */
    int comms;            /* communicators in the pool */
    size_t frag_size;     /* largest message; big buffers go in chunks */
    int window;           /* chunks in flight per buffer stream */
    double timeout;       /* default deadline of an event, seconds */
    double drain_timeout; /* how long fini waits for in-flight events */
    int idle_max_us;      /* longest sleep of the idle gate thread */
    int poll_max_us;      /* longest sleep of a handler with events waiting */
    int spin_us;          /* threads poll without sleeping this long after
                             their last progress */
    int bell; /* HCRT_BELL_AUTO/OFF/ON: the idle gate blocks on bells */
} hcrt__event_opts_t;

typedef struct hcrt__event_stats {
    uint64_t sent, served, timeouts;
    uint64_t bytes_sent, bytes_recv; /* every byte this rank's layer moved */
    uint64_t inflight;               /* origin events not completed yet */
    uint64_t bell_wakeups;           /* the idle gate woken by a peer's bell */
} hcrt__event_stats_t;

/* Called (on a handler thread) when an event to or from `rank` passes its
 * deadline: the peer may be dead. */
typedef void (*hcrt__event_peer_cb)(int rank, int type, void *arg);

/* Compiled-in defaults (the same as settings.def's). */
void hcrt__event_opts_default(hcrt__event_opts_t *opts);
/* The values of the HCRT_EVENT_* settings (needs hcrt__config_init). */
void hcrt__event_opts_from_settings(hcrt__event_opts_t *opts);

/* Collective over `comm` (needs MPI_THREAD_MULTIPLE): duplicates the
 * communicators and starts the gate and handler threads. opts NULL: from
 * the settings. */
hcrt_status_t hcrt__event_init(MPI_Comm comm, const hcrt__event_opts_t *opts);
/* Collective: waits (at most drain_timeout) until no rank has an event in
 * flight, then stops the threads and frees the communicators. Events still
 * in flight are reported (type, peer, age) and make it return
 * HCRT_ERR_TIMEOUT; it never hangs on a dead peer. */
hcrt_status_t hcrt__event_fini(void);

/* 1 between a successful hcrt__event_init and hcrt__event_fini. */
int hcrt__event_is_up(void);

/* Registers type `id` (1..HCRT_EVENT_MAX_TYPES-1) on this rank; every rank
 * that serves it must register it. ops is copied. */
hcrt_status_t hcrt__event_register(int id, const hcrt__event_type_ops_t *ops);

/* Starts an event. With ev_out, the caller owns a handle (release it);
 * without, the layer frees the event after `done`. */
hcrt_status_t hcrt__event_send(const hcrt__event_send_t *send,
                               hcrt__event_t **ev_out);
/* 1 when the event completed. */
int hcrt__event_test(hcrt__event_t *ev);
/* Waits for completion at most `timeout` seconds (< 0: no limit) and
 * returns the event's status; HCRT_ERR_BUSY if still in flight. */
hcrt_status_t hcrt__event_wait(hcrt__event_t *ev, double timeout);
/* After completion: the status, the reply header and reply buffer sizes. */
hcrt_status_t hcrt__event_status(const hcrt__event_t *ev);
const void *hcrt__event_reply_hdr(const hcrt__event_t *ev, size_t *len);
size_t hcrt__event_reply_len(const hcrt__event_t *ev, int i);
int hcrt__event_peer(const hcrt__event_t *ev);
void hcrt__event_release(hcrt__event_t *ev);

/* Request/response in one call: sends and waits (the event's deadline
 * applies), copies the reply header to reply_hdr (up to *reply_len, which
 * receives the length) and returns the status. */
hcrt_status_t hcrt__event_call(int dest, int type, const void *hdr,
                               size_t hdr_len, void *reply_hdr,
                               size_t *reply_len, double timeout);

/* Data exchange: asks rank `src` to send, to rank `dst`, the buffers its
 * type's `source` callback gives for `hdr`; `dst` serves the event of type
 * `type` (prepare/run) as if `src` had sent it. The data never passes
 * through the caller. The event completes with dst's status. */
hcrt_status_t hcrt__event_forward(int src, int dst, int type, const void *hdr,
                                  size_t hdr_len, double timeout,
                                  void (*done)(hcrt__event_t *, void *),
                                  void *arg, hcrt__event_t **ev_out);

/* Destination: completes an event whose `run` returned HCRT_EVENT_DEFER;
 * any thread. */
void hcrt__event_reply(hcrt__event_ctx_t *ctx, hcrt_status_t status);

void hcrt__event_set_peer_hook(hcrt__event_peer_cb cb, void *arg);
/* This rank's threads compute (+1) or stop (-1) outside event kernels (a
 * spread TASKS region): as while a kernel runs here, the gate polls between
 * short naps instead of spinning its window on a core they need. */
void hcrt__event_compute_busy(int delta);
void hcrt__event_get_stats(hcrt__event_stats_t *out);

#endif /* HCRT_EVENT_H */
