/*
 * forward.c - the data exchange pattern: the caller (usually the head)
 * asks rank A to send buffers to rank B.
 *
 * Built from two ordinary events: FORWARD from the caller to A, whose
 * handler asks the user type's `source` callback for the buffers and sends
 * an event of the user type from A to B; when that one completes, A replies
 * to the caller with B's status and reply header. The caller's event layer
 * only ever moves the two small headers.
 */
#include <stdlib.h>
#include <string.h>

#include "libhcrt/event/event_int.h"

typedef struct fwd_hdr {
    int32_t dst, type;
    uint32_t hdr_len, pad;
    double timeout;
    unsigned char hdr[HCRT_EVENT_HDR_MAX - 24];
} fwd_hdr_t;

typedef struct fwd_state {
    hcrt__event_ctx_t *parent; /* the FORWARD event on A */
    hcrt__event_ctx_t src;     /* what `source` filled in */
} fwd_state_t;

_Static_assert(sizeof(fwd_hdr_t) == HCRT_EVENT_HDR_MAX, "fwd header size");

static void nested_done(hcrt__event_t *ev, void *arg)
{
    fwd_state_t *fs = arg;
    hcrt_status_t st = hcrt__event_status(ev);
    size_t len;
    const void *rh = hcrt__event_reply_hdr(ev, &len);

    if (fs->src.out_release)
        fs->src.out_release(&fs->src);
    memcpy(fs->parent->reply_hdr, rh, len);
    fs->parent->reply_hdr_len = len;
    hcrt__event_reply(fs->parent, st);
    free(fs);
}

/* Runs on A (DATA queue). */
static hcrt_status_t fwd_run(hcrt__event_ctx_t *ctx)
{
    fwd_hdr_t h;

    if (ctx->hdr_len != sizeof(h))
        return HCRT_ERR_INVALID;
    memcpy(&h, ctx->hdr, sizeof(h));
    if (h.type <= 0 || h.type >= HCRT_EVENT_MAX_TYPES ||
        !hcrt__ev.registered[h.type] || !hcrt__ev.types[h.type].source) {
        hcrt_error(HCRT_MOD_EVENT,
                   "rank %d asked this rank to forward event "
                   "type %d, which has no `source` callback here",
                   ctx->origin, h.type);
        return HCRT_ERR_NOT_FOUND;
    }
    fwd_state_t *fs = calloc(1, sizeof(*fs));
    if (!fs)
        return HCRT_ERR_NOMEM;
    fs->parent = ctx;
    fs->src.type = h.type;
    fs->src.origin = ctx->origin;
    fs->src.hdr = ((const fwd_hdr_t *)ctx->hdr)->hdr; /* lives until reply */
    fs->src.hdr_len = h.hdr_len;
    fs->src.nout_max = HCRT_EVENT_MAX_BUFS;
    for (int i = 0; i < HCRT_EVENT_MAX_BUFS; i++)
        fs->src.out_cap[i] = SIZE_MAX;
    hcrt_status_t st = hcrt__ev.types[h.type].source(&fs->src);
    if (st == HCRT_OK &&
        (fs->src.nout < 0 || fs->src.nout > HCRT_EVENT_MAX_BUFS))
        st = HCRT_ERR_INVALID;
    if (st != HCRT_OK) {
        if (fs->src.out_release)
            fs->src.out_release(&fs->src);
        free(fs);
        return st;
    }
    hcrt__event_send_t s = {.type = h.type,
                            .dest = h.dst,
                            .hdr = fs->src.hdr,
                            .hdr_len = h.hdr_len,
                            .nbufs = fs->src.nout,
                            .bufs = fs->src.out,
                            .timeout = h.timeout,
                            .done = nested_done,
                            .arg = fs};
    st = hcrt__event_send(&s, NULL);
    if (st != HCRT_OK) {
        if (fs->src.out_release)
            fs->src.out_release(&fs->src);
        free(fs);
        return st;
    }
    return HCRT_EVENT_DEFER;
}

void hcrt__ev_forward_register(void)
{
    static const hcrt__event_type_ops_t ops = {
        .name = "forward", .queue = HCRT_EVENT_QUEUE_DATA, .run = fwd_run};
    hcrt__ev.types[HCRT_EVENT_TYPE_FORWARD] = ops;
    hcrt__ev.registered[HCRT_EVENT_TYPE_FORWARD] = 1;
}

hcrt_status_t hcrt__event_forward(int src, int dst, int type, const void *hdr,
                                  size_t hdr_len, double timeout,
                                  void (*done)(hcrt__event_t *, void *),
                                  void *arg, hcrt__event_t **ev_out)
{
    fwd_hdr_t h;

    if (hdr_len > sizeof(h.hdr) || (hdr_len && !hdr) || type <= 0 ||
        type >= HCRT_EVENT_MAX_TYPES || dst < 0 || dst >= hcrt__ev.size) {
        hcrt_error(HCRT_MOD_EVENT,
                   "cannot forward event type %d from rank %d "
                   "to rank %d: bad type or rank, or header over %zu bytes",
                   type, src, dst, sizeof(h.hdr));
        return HCRT_ERR_INVALID;
    }
    memset(&h, 0, sizeof(h));
    h.dst = dst;
    h.type = type;
    h.hdr_len = (uint32_t)hdr_len;
    h.timeout = timeout;
    if (hdr_len)
        memcpy(h.hdr, hdr, hdr_len);
    hcrt__event_send_t s = {.type = HCRT_EVENT_TYPE_FORWARD,
                            .dest = src,
                            .hdr = &h,
                            .hdr_len = sizeof(h),
                            .timeout = timeout,
                            .done = done,
                            .arg = arg};
    return hcrt__event_send(&s, ev_out);
}
