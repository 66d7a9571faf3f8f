/*
 * event_large.c - buffers of awkward sizes cut into many small fragments
 * (a forced 4 KiB fragment size), echoed back through reply buffers, plus
 * one 128 MiB transfer each way, all checked byte for byte.
 */
#include "event_test.h"

enum { T_ECHO = 1, T_BIG = 2 };
#define FRAG 4096
#define BIG ((size_t)128 << 20)

/* Receives the buffers where the test says, checks them, echoes them. */
static hcrt_status_t echo_run(hcrt__event_ctx_t *c)
{
    uint64_t seed;
    memcpy(&seed, c->hdr, sizeof(seed));
    size_t bad = 0;
    for (int i = 0; i < c->nin; i++)
        bad += ev_check(c->in[i].ptr, c->in[i].len, seed + (uint64_t)i) !=
               c->in[i].len;
    c->nout = c->nin;
    for (int i = 0; i < c->nin; i++)
        c->out[i] = c->in[i];
    return bad ? HCRT_ERR_INVALID : HCRT_OK;
}

static void *big_in;

static hcrt_status_t big_prepare(hcrt__event_ctx_t *c)
{
    if (c->nin != 1 || c->in[0].len != BIG)
        return HCRT_ERR_INVALID;
    c->in[0].ptr = big_in; /* land straight in the caller's memory */
    return HCRT_OK;
}

static hcrt_status_t big_run(hcrt__event_ctx_t *c)
{
    size_t at = ev_check(c->in[0].ptr, BIG, 77);
    if (at != BIG)
        fprintf(stderr, "rank %d: 128 MiB buffer wrong at byte %zu\n", me, at);
    c->nout = 1;
    c->out[0] = c->in[0]; /* the same bytes go back */
    return at == BIG ? HCRT_OK : HCRT_ERR_INVALID;
}

static void test_sizes(int peer)
{
    static const size_t sizes[] = {0,    1,        FRAG - 1,
                                   FRAG, FRAG + 1, (1 << 20) + 13};
    hcrt__event_buf_t out[4], back[4];
    for (int round = 0; round < 3; round++) {
        uint64_t seed = (uint64_t)(me * 100 + round);
        for (int i = 0; i < 4; i++) {
            size_t n = sizes[(round * 4 + i) % 6];
            out[i].len = back[i].len = n;
            out[i].ptr = malloc(n + 1);
            back[i].ptr = calloc(1, n + 1);
            ev_fill(out[i].ptr, n, seed + (uint64_t)i);
        }
        hcrt__event_send_t s = {.type = T_ECHO,
                                .dest = peer,
                                .hdr = &seed,
                                .hdr_len = sizeof(seed),
                                .nbufs = 4,
                                .bufs = out,
                                .nreply = 4,
                                .reply_bufs = back};
        hcrt__event_t *ev;
        CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
        CHECK_EQ(hcrt__event_wait(ev, 30), HCRT_OK);
        for (int i = 0; i < 4; i++) {
            CHECK_EQ(hcrt__event_reply_len(ev, i), out[i].len);
            CHECK_EQ(ev_check(back[i].ptr, back[i].len, seed + (uint64_t)i),
                     back[i].len);
            free(out[i].ptr);
            free(back[i].ptr);
        }
        hcrt__event_release(ev);
    }
}

static void test_big(void)
{
    void *src = malloc(BIG), *back = malloc(BIG);
    ev_fill(src, BIG, 77);
    memset(back, 0, BIG);
    hcrt__event_buf_t out = {src, BIG}, in = {back, BIG};
    hcrt__event_send_t s = {.type = T_BIG,
                            .dest = 1,
                            .nbufs = 1,
                            .bufs = &out,
                            .nreply = 1,
                            .reply_bufs = &in};
    double t0 = ev_now();
    CHECK_EQ(hcrt__event_call(1, T_BIG, NULL, 0, NULL, NULL, 1),
             HCRT_ERR_INVALID); /* prepare refuses a missing buffer */
    hcrt__event_t *ev;
    CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
    CHECK_EQ(hcrt__event_wait(ev, 50), HCRT_OK);
    CHECK_EQ(ev_check(back, BIG, 77), BIG);
    printf("128 MiB there and back in %.3f s (%zu-byte fragments)\n",
           ev_now() - t0, (size_t)FRAG * 16);
    hcrt__event_release(ev);
    free(src);
    free(back);
}

int main(int argc, char **argv)
{
    hcrt__event_opts_t o;
    /* "settings": the fragment size comes from HCRT_EVENT_FRAG_SIZE=4k
     * through the settings table (init with NULL options). */
    int from_settings = argc > 1 && !strcmp(argv[1], "settings");
    hcrt__event_opts_default(&o);
    o.frag_size = FRAG;
    o.window = 8;
    ev_test_init(&argc, &argv, from_settings ? NULL : &o);
    if (from_settings) {
        hcrt__event_opts_t got;
        hcrt__event_opts_from_settings(&got);
        CHECK_EQ(got.frag_size, FRAG);
        CHECK_EQ(got.window, 8);
        o = got;
    }
    hcrt__event_type_ops_t echo = {
        .name = "echo", .queue = HCRT_EVENT_QUEUE_DATA, .run = echo_run};
    hcrt__event_type_ops_t big = {.name = "big",
                                  .queue = HCRT_EVENT_QUEUE_EXEC,
                                  .prepare = big_prepare,
                                  .run = big_run};
    CHECK_EQ(hcrt__event_register(T_ECHO, &echo), HCRT_OK);
    CHECK_EQ(hcrt__event_register(T_BIG, &big), HCRT_OK);
    MPI_Barrier(hcrt__comm_world());

    test_sizes((me + 1) % nranks);
    test_sizes(me);
    int rc = ev_test_finish("event_large (4 KiB fragments)", HCRT_OK);

    /* The 128 MiB round trip with 64 KiB fragments (2048 chunks each way). */
    o.frag_size = (size_t)FRAG * 16;
    CHECK_EQ(hcrt__event_init(hcrt__comm_world(), &o), HCRT_OK);
    if (me == 1)
        big_in = malloc(BIG);
    MPI_Barrier(hcrt__comm_world());
    if (me == 0)
        test_big();
    MPI_Barrier(hcrt__comm_world());
    rc |= ev_test_finish("event_large (128 MiB)", HCRT_OK);
    free(big_in);
    return rc;
}
