/*
 * event_forward.c - the data-exchange pattern: the head asks worker A to
 * send a 16 MiB buffer to worker B. B checks every byte; the head's own
 * event layer must have moved only headers (its byte counters prove the
 * data never passed through it).
 */
#include "event_test.h"

enum { T_XFER = 1, T_NOSRC = 2 };
#define LEN ((size_t)16 << 20)

/* On A: the buffer this header names (made up from the seed). */
static hcrt_status_t xfer_source(hcrt__event_ctx_t *c)
{
    uint64_t seed;
    memcpy(&seed, c->hdr, sizeof(seed));
    void *p = malloc(LEN);
    if (!p)
        return HCRT_ERR_NOMEM;
    ev_fill(p, LEN, seed + (uint64_t)me); /* A's own rank is in the bytes */
    c->nout = 1;
    c->out[0].ptr = p;
    c->out[0].len = LEN;
    return HCRT_OK;
}

static void xfer_release(hcrt__event_ctx_t *c)
{
    free(c->out[0].ptr);
}

static hcrt_status_t xfer_source_rel(hcrt__event_ctx_t *c)
{
    c->out_release = xfer_release;
    return xfer_source(c);
}

/* On B: check the bytes came from A (the event's origin). */
static hcrt_status_t xfer_run(hcrt__event_ctx_t *c)
{
    uint64_t seed;
    memcpy(&seed, c->hdr, sizeof(seed));
    if (c->nin != 1 || c->in[0].len != LEN)
        return HCRT_ERR_INVALID;
    size_t at = ev_check(c->in[0].ptr, LEN, seed + (uint64_t)c->origin);
    uint32_t who[2] = {(uint32_t)c->origin, (uint32_t)me};
    memcpy(c->reply_hdr, who, sizeof(who));
    c->reply_hdr_len = sizeof(who);
    return at == LEN ? HCRT_OK : HCRT_ERR_INVALID;
}

static hcrt_status_t nosrc_run(hcrt__event_ctx_t *c)
{
    (void)c;
    return HCRT_OK;
}

static void test_head(void)
{
    int pairs[8][2], np = 0;
    pairs[np][0] = 1, pairs[np++][1] = nranks - 1; /* 1->1 with 2 ranks */
    if (nranks >= 4) {
        pairs[np][0] = 2, pairs[np++][1] = 1;
        pairs[np][0] = 3, pairs[np++][1] = 2;
        pairs[np][0] = 1, pairs[np++][1] = 1;
    }
    hcrt__event_stats_t s0, s1;
    hcrt__event_get_stats(&s0);
    hcrt__event_t *ev[8];
    for (int i = 0; i < np; i++) {
        uint64_t seed = 1000 + (uint64_t)i;
        CHECK_EQ(hcrt__event_forward(pairs[i][0], pairs[i][1], T_XFER, &seed,
                                     sizeof(seed), 30, NULL, NULL, &ev[i]),
                 HCRT_OK);
    }
    for (int i = 0; i < np; i++) {
        CHECK_EQ(hcrt__event_wait(ev[i], 30), HCRT_OK);
        size_t len;
        const uint32_t *who = hcrt__event_reply_hdr(ev[i], &len);
        CHECK_EQ(len, 2 * sizeof(uint32_t));
        CHECK_EQ(who[0], pairs[i][0]); /* B saw A as the origin */
        CHECK_EQ(who[1], pairs[i][1]);
        hcrt__event_release(ev[i]);
    }
    hcrt__event_get_stats(&s1);
    uint64_t moved =
        (s1.bytes_sent - s0.bytes_sent) + (s1.bytes_recv - s0.bytes_recv);
    printf("head moved %llu bytes for %d forwards of %zu bytes\n",
           (unsigned long long)moved, np, LEN);
    CHECK(moved > 0);
    CHECK(moved < (uint64_t)np * 2048); /* headers only */
    /* A type without a source callback, and bad ranks, fail clearly. */
    uint64_t seed = 1;
    hcrt__event_t *e;
    CHECK_EQ(hcrt__event_forward(1, 0, T_NOSRC, &seed, sizeof(seed), 10, NULL,
                                 NULL, &e),
             HCRT_OK);
    CHECK_EQ(hcrt__event_wait(e, 10), HCRT_ERR_NOT_FOUND);
    hcrt__event_release(e);
    CHECK_EQ(hcrt__event_forward(1, nranks, T_XFER, &seed, sizeof(seed), 10,
                                 NULL, NULL, &e),
             HCRT_ERR_INVALID);
}

int main(int argc, char **argv)
{
    hcrt__event_opts_t o;
    hcrt__event_opts_default(&o);
    ev_test_init(&argc, &argv, &o);
    hcrt__event_type_ops_t xfer = {.name = "xfer",
                                   .queue = HCRT_EVENT_QUEUE_DATA,
                                   .run = xfer_run,
                                   .source = xfer_source_rel};
    hcrt__event_type_ops_t nosrc = {
        .name = "nosrc", .queue = HCRT_EVENT_QUEUE_DATA, .run = nosrc_run};
    CHECK_EQ(hcrt__event_register(T_XFER, &xfer), HCRT_OK);
    CHECK_EQ(hcrt__event_register(T_NOSRC, &nosrc), HCRT_OK);
    MPI_Barrier(hcrt__comm_world());
    if (me == 0)
        test_head();
    MPI_Barrier(hcrt__comm_world());
    /* The workers did move the data: sum what they sent. */
    hcrt__event_stats_t st;
    hcrt__event_get_stats(&st);
    unsigned long long mine = me ? st.bytes_sent : 0, total = 0;
    MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0,
               hcrt__comm_world());
    if (me == 0)
        CHECK(total >= (nranks >= 4 ? 4 : 1) * LEN);
    return ev_test_finish("event_forward", HCRT_OK);
}
