/*
 * event_basic.c - ping-pong and request/response events between every pair
 * of ranks, 1000 in-flight events per worker completing out of order
 * without a thread per event, unknown types and bad arguments, and an
 * orderly shutdown; sync events (progressed by their waiter, handed to the
 * handlers when the wait gives up); the quiet hint (a handler napping on a
 * quiet event still serves a new one at once, and the quiet event
 * completes).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "event_test.h"

enum {
    T_PING = 1,
    T_SUM = 2,
    T_HOLD = 3,
    T_EARLY = 4,
    T_SLOW = 5,
    T_RELEASE = 7,
    T_UNKNOWN = 9
};
#define NHOLD 1000
#define NSUM 1000

static hcrt_status_t ping_run(hcrt__event_ctx_t *c)
{
    uint64_t v;
    if (c->hdr_len != sizeof(v))
        return HCRT_ERR_INVALID;
    memcpy(&v, c->hdr, sizeof(v));
    v += 1000 + (uint64_t)me;
    memcpy(c->reply_hdr, &v, sizeof(v));
    c->reply_hdr_len = sizeof(v);
    return HCRT_OK;
}

/* Replies before run() returns HCRT_EVENT_DEFER (as another thread could). */
static hcrt_status_t early_run(hcrt__event_ctx_t *c)
{
    c->reply_hdr[0] = 42;
    c->reply_hdr_len = 1;
    hcrt__event_reply(c, HCRT_ERR_IO);
    return HCRT_EVENT_DEFER;
}

/* EXEC: takes 100 ms (a sync event whose waiter gives up first). */
static hcrt_status_t slow_run(hcrt__event_ctx_t *c)
{
    (void)c;
    usleep(100 * 1000);
    return HCRT_OK;
}

/* Sums the incoming array and sends it back doubled. */
static hcrt_status_t sum_run(hcrt__event_ctx_t *c)
{
    uint64_t *a = c->in[0].ptr, s = 0;
    size_t n = c->in[0].len / sizeof(uint64_t);
    for (size_t i = 0; i < n; i++) {
        s += a[i];
        a[i] *= 2;
    }
    memcpy(c->reply_hdr, &s, sizeof(s));
    c->reply_hdr_len = sizeof(s);
    c->nout = 1;
    c->out[0] = c->in[0]; /* freed by the layer after the reply is sent */
    return HCRT_OK;
}

/* Holds every event of an origin until all NHOLD arrived, then replies to
 * the second half (last first) and keeps the first half until the origin
 * sends T_RELEASE, which it does only once it saw the second half
 * complete: events complete independently of the order they were sent in,
 * whatever the load. Runs on the EXEC queue. */
static pthread_mutex_t hold_lock = PTHREAD_MUTEX_INITIALIZER;
static hcrt__event_ctx_t **held; /* [origin][seq] */
static int *nheld;

static void hold_reply(int origin, int s)
{
    hcrt__event_ctx_t *h = held[origin * NHOLD + s];
    uint64_t v = (uint64_t)s * 3 + (uint64_t)me;
    memcpy(h->reply_hdr, &v, sizeof(v));
    h->reply_hdr_len = sizeof(v);
    hcrt__event_reply(h, HCRT_OK);
}

static hcrt_status_t hold_run(hcrt__event_ctx_t *c)
{
    uint32_t seq;
    memcpy(&seq, c->hdr, sizeof(seq));
    pthread_mutex_lock(&hold_lock);
    held[c->origin * NHOLD + seq] = c;
    int all = ++nheld[c->origin] == NHOLD;
    if (all)
        nheld[c->origin] = 0; /* the origin may run the test again */
    pthread_mutex_unlock(&hold_lock);
    if (!all || seq < NHOLD / 2)
        return HCRT_EVENT_DEFER;
    for (int s = NHOLD - 1; s >= NHOLD / 2; s--)
        if (s != (int)seq)
            hold_reply(c->origin, s);
    uint64_t v = (uint64_t)seq * 3 + (uint64_t)me;
    memcpy(c->reply_hdr, &v, sizeof(v));
    c->reply_hdr_len = sizeof(v);
    return HCRT_OK; /* c replies through the return */
}

static hcrt_status_t release_run(hcrt__event_ctx_t *c)
{
    if (nheld[c->origin] != 0)
        return HCRT_ERR_INVALID; /* released before all arrived */
    for (int s = NHOLD / 2 - 1; s >= 0; s--)
        hold_reply(c->origin, s);
    return HCRT_OK;
}

static void test_pingpong(void)
{
    for (int peer = 0; peer < nranks; peer++)
        for (uint64_t i = 0; i < 50; i++) {
            uint64_t v = i * 7 + (uint64_t)me, r = 0;
            size_t rl = sizeof(r);
            hcrt_status_t st =
                hcrt__event_call(peer, T_PING, &v, sizeof(v), &r, &rl, 10.0);
            CHECK_EQ(st, HCRT_OK);
            CHECK_EQ(rl, sizeof(r));
            CHECK_EQ(r, v + 1000 + (uint64_t)peer);
        }
}

static void test_sum(void)
{
    uint64_t *a = malloc(NSUM * sizeof(*a)), *back = calloc(NSUM, sizeof(*a));
    uint64_t want = 0;
    for (int i = 0; i < NSUM; i++)
        want += a[i] = (uint64_t)(i + me);
    hcrt__event_buf_t out = {a, NSUM * sizeof(*a)};
    hcrt__event_buf_t in = {back, NSUM * sizeof(*a)};
    hcrt__event_send_t s = {.type = T_SUM,
                            .dest = (me + 1) % nranks,
                            .nbufs = 1,
                            .bufs = &out,
                            .nreply = 1,
                            .reply_bufs = &in};
    hcrt__event_t *ev;
    CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
    CHECK_EQ(hcrt__event_wait(ev, 20.0), HCRT_OK);
    size_t len;
    const uint64_t *sum = hcrt__event_reply_hdr(ev, &len);
    CHECK_EQ(len, sizeof(uint64_t));
    CHECK_EQ(*sum, want);
    CHECK_EQ(hcrt__event_reply_len(ev, 0), NSUM * sizeof(uint64_t));
    int bad = 0;
    for (int i = 0; i < NSUM; i++)
        bad += back[i] != 2 * a[i];
    CHECK_EQ(bad, 0);
    hcrt__event_release(ev);
    free(a);
    free(back);
}

static atomic_int done_seq;
static int order[64 * NHOLD];

static void hold_done(hcrt__event_t *ev, void *arg)
{
    (void)ev;
    order[(intptr_t)arg] = atomic_fetch_add(&done_seq, 1);
}

/* The head keeps NHOLD events in flight to every worker from one thread;
 * each worker answers the second half and holds the first half until
 * released: the second half must complete alone, the first after. */
static void test_inflight(void)
{
    int nw = nranks - 1, threads0 = ev_thread_count();
    hcrt__event_t **evs = calloc((size_t)nw * NHOLD, sizeof(*evs));
    double t0 = ev_now();
    int seq0 = atomic_load(&done_seq);

    for (int k = 0; k < nw * NHOLD; k++)
        order[k] = -1;
    for (int s = 0; s < NHOLD; s++)
        for (int w = 1; w <= nw; w++) {
            uint32_t seq = (uint32_t)s;
            intptr_t k = (intptr_t)(w - 1) * NHOLD + s;
            hcrt__event_send_t snd = {.type = T_HOLD,
                                      .dest = w,
                                      .hdr = &seq,
                                      .hdr_len = sizeof(seq),
                                      .timeout = 30,
                                      .done = hold_done,
                                      .arg = (void *)k};
            CHECK_EQ(hcrt__event_send(&snd, &evs[k]), HCRT_OK);
        }
    hcrt__event_stats_t st;
    hcrt__event_get_stats(&st);
    CHECK(st.inflight > (uint64_t)(nw * NHOLD) / 2); /* really in flight */
    CHECK_EQ(ev_thread_count(), threads0);           /* no thread each */
    /* The handler threads complete the second halves while the first
     * halves are held (no waiter: a waiter progresses its own event). */
    for (double t = ev_now(); atomic_load(&done_seq) < seq0 + nw * NHOLD / 2 &&
                              ev_now() - t < 30.0;) {
        struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    for (int w = 0; w < nw; w++) {
        int second = 0, first = 0;
        for (int s = 0; s < NHOLD; s++) {
            int done = order[w * NHOLD + s] >= 0;
            second += done && s >= NHOLD / 2;
            first += done && s < NHOLD / 2;
        }
        CHECK_EQ(second, NHOLD / 2);
        CHECK_EQ(first, 0);
        CHECK_EQ(hcrt__event_call(w + 1, T_RELEASE, NULL, 0, NULL, NULL, 30.0),
                 HCRT_OK);
    }
    for (int k = 0; k < nw * NHOLD; k++) {
        CHECK_EQ(hcrt__event_wait(evs[k], 30.0), HCRT_OK);
        size_t len;
        const uint64_t *v = hcrt__event_reply_hdr(evs[k], &len);
        CHECK_EQ(*v, (uint64_t)(k % NHOLD) * 3 + (uint64_t)(k / NHOLD + 1));
        hcrt__event_release(evs[k]);
    }
    printf("in-flight: %d events to %d workers in %.3f s, threads %d\n",
           nw * NHOLD, nw, ev_now() - t0, threads0);
    free(evs);
}

/* A sync event is progressed by its waiter only; when the wait gives up,
 * the handler threads take it over and it still completes. A sync send
 * needs a handle. */
static void test_sync(void)
{
    int peer = (me + 1) % nranks;
    uint64_t v = 5;
    hcrt__event_t *ev;
    hcrt__event_send_t s = {.type = T_PING,
                            .dest = peer,
                            .hdr = &v,
                            .hdr_len = sizeof(v),
                            .sync = 1};
    for (int i = 0; i < 100; i++) { /* the fast path */
        CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
        CHECK_EQ(hcrt__event_wait(ev, -1), HCRT_OK);
        size_t len;
        const uint64_t *r = hcrt__event_reply_hdr(ev, &len);
        CHECK(len == sizeof(v) && *r == 5 + 1000 + (uint64_t)peer);
        hcrt__event_release(ev);
    }
    CHECK_EQ(hcrt__event_send(&s, NULL), HCRT_ERR_INVALID);
    s.type = T_SLOW;
    s.hdr_len = 0;
    CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
    CHECK_EQ(hcrt__event_wait(ev, 0.01), HCRT_ERR_BUSY);
    double t0 = MPI_Wtime();
    while (!hcrt__event_test(ev) && MPI_Wtime() - t0 < 20)
        usleep(1000);
    CHECK(hcrt__event_test(ev));
    CHECK_EQ(hcrt__event_status(ev), HCRT_OK);
    hcrt__event_release(ev);
}

/* A handler napping until a quiet event may have news must still serve an
 * event sent meanwhile at once (the push wakes it), and the quiet event
 * still completes (after its hint at the latest). Completion is watched
 * with hcrt__event_test, so the handler threads, not a waiter, progress
 * both. */
static void test_quiet(void)
{
    int peer = (me + 1) % nranks;
    hcrt__event_t *slow, *ping;
    hcrt__event_send_t a = {.type = T_SLOW, .dest = peer, .quiet = 2.0};
    CHECK_EQ(hcrt__event_send(&a, &slow), HCRT_OK);
    usleep(20 * 1000); /* the DATA handler is napping on it by now */
    uint64_t v = 9;
    hcrt__event_send_t b = {
        .type = T_PING, .dest = peer, .hdr = &v, .hdr_len = sizeof(v)};
    double t0 = MPI_Wtime();
    CHECK_EQ(hcrt__event_send(&b, &ping), HCRT_OK);
    while (!hcrt__event_test(ping) && MPI_Wtime() - t0 < 20)
        usleep(100);
    double took = MPI_Wtime() - t0;
    CHECK(hcrt__event_test(ping));
    if (took >= 0.5)
        fprintf(stderr,
                "rank %d: a ping sent during a 2 s quiet nap took %.3f s\n", me,
                took);
    CHECK(took < 0.5); /* not held back by the other event's nap (1 s) */
    hcrt__event_release(ping);
    while (!hcrt__event_test(slow) && MPI_Wtime() - t0 < 20)
        usleep(1000);
    CHECK(hcrt__event_test(slow));
    CHECK_EQ(hcrt__event_status(slow), HCRT_OK);
    hcrt__event_release(slow);
}

static void test_errors(void)
{
    char big[300] = {0}, r = 0;
    size_t rl = 1;
    CHECK_EQ(hcrt__event_call(0, T_EARLY, NULL, 0, &r, &rl, 10), HCRT_ERR_IO);
    CHECK_EQ(rl, 1);
    CHECK_EQ(r, 42);
    rl = 0;
    CHECK_EQ(hcrt__event_call(nranks - 1, T_UNKNOWN, NULL, 0, NULL, &rl, 10),
             HCRT_ERR_NOT_FOUND);
    /* An unknown type with data: the data is drained, then the error. */
    void *p = malloc(100000);
    hcrt__event_buf_t b = {p, 100000};
    hcrt__event_send_t s = {
        .type = T_UNKNOWN, .dest = nranks - 1, .nbufs = 1, .bufs = &b};
    hcrt__event_t *ev;
    CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
    CHECK_EQ(hcrt__event_wait(ev, 10), HCRT_ERR_NOT_FOUND);
    hcrt__event_release(ev);
    free(p);
    CHECK_EQ(hcrt__event_call(nranks, T_PING, NULL, 0, NULL, NULL, 1),
             HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__event_call(0, T_PING, big, sizeof(big), NULL, NULL, 1),
             HCRT_ERR_INVALID);
    hcrt__event_type_ops_t bad = {.name = "bad"};
    CHECK_EQ(hcrt__event_register(6, &bad), HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__event_register(0, &bad), HCRT_ERR_INVALID);
}

int main(int argc, char **argv)
{
    hcrt__event_opts_t o;
    hcrt__event_opts_default(&o);
    ev_test_init(&argc, &argv, &o);
    held = calloc((size_t)nranks * NHOLD, sizeof(*held));
    nheld = calloc((size_t)nranks, sizeof(*nheld));
    hcrt__event_type_ops_t ping = {
        .name = "ping", .queue = HCRT_EVENT_QUEUE_DATA, .run = ping_run};
    hcrt__event_type_ops_t sum = {
        .name = "sum", .queue = HCRT_EVENT_QUEUE_EXEC, .run = sum_run};
    hcrt__event_type_ops_t hold = {
        .name = "hold", .queue = HCRT_EVENT_QUEUE_EXEC, .run = hold_run};
    CHECK_EQ(hcrt__event_register(T_PING, &ping), HCRT_OK);
    CHECK_EQ(hcrt__event_register(T_SUM, &sum), HCRT_OK);
    CHECK_EQ(hcrt__event_register(T_HOLD, &hold), HCRT_OK);
    hcrt__event_type_ops_t release = {
        .name = "release", .queue = HCRT_EVENT_QUEUE_EXEC, .run = release_run};
    CHECK_EQ(hcrt__event_register(T_RELEASE, &release), HCRT_OK);
    hcrt__event_type_ops_t early = {
        .name = "early", .queue = HCRT_EVENT_QUEUE_DATA, .run = early_run};
    CHECK_EQ(hcrt__event_register(T_EARLY, &early), HCRT_OK);
    hcrt__event_type_ops_t slow = {
        .name = "slow", .queue = HCRT_EVENT_QUEUE_EXEC, .run = slow_run};
    CHECK_EQ(hcrt__event_register(T_SLOW, &slow), HCRT_OK);
    MPI_Barrier(hcrt__comm_world()); /* types registered everywhere */

    test_pingpong();
    test_sum();
    if (me == 0 && nranks > 1)
        test_inflight();
    test_sync();
    test_quiet();
    test_errors();
    MPI_Barrier(hcrt__comm_world());
    int rc = ev_test_finish("event_basic", HCRT_OK);
    /* After shutdown, sending is refused clearly instead of hanging. */
    CHECK_EQ(hcrt__event_call(0, T_PING, NULL, 0, NULL, NULL, 1),
             HCRT_ERR_INVALID);
    return rc || check_failures;
}
