/*
 * event_deadline.c - a peer that does not answer in time: the event ends
 * with HCRT_ERR_TIMEOUT, the peer hook names the rank, nothing hangs, the
 * event system keeps working and a late reply is harmless. An origin that
 * never sends the data it announced is reported by the destination's
 * deadline. Then events left
 * in flight at shutdown are reported and fini returns an error, not a hang.
 */
#include <sched.h>
#include <stdatomic.h>

#include "event_test.h"
#include "libhcrt/event/event_int.h" /* to forge a notice */

enum { T_NAP = 1, T_NEVER = 2, T_PING = 3, T_STUCK = 4 };

static atomic_int hook_calls, hook_rank = -1, hook_type = -1;
static hcrt__event_ctx_t *_Atomic never_ctx;
static atomic_int stuck_seen;

static void peer_hook(int rank, int type, void *arg)
{
    CHECK(arg == &hook_calls);
    atomic_store(&hook_rank, rank);
    atomic_store(&hook_type, type);
    atomic_fetch_add(&hook_calls, 1);
}

static hcrt_status_t nap_run(hcrt__event_ctx_t *c)
{
    (void)c;
    struct timespec ts = {1, 0};
    nanosleep(&ts, NULL);
    return HCRT_OK;
}

static hcrt_status_t never_run(hcrt__event_ctx_t *c)
{
    atomic_store(&never_ctx, c); /* answered only after the deadline */
    return HCRT_EVENT_DEFER;
}

static hcrt_status_t ping_run(hcrt__event_ctx_t *c)
{
    (void)c;
    return HCRT_OK;
}

static hcrt_status_t stuck_run(hcrt__event_ctx_t *c)
{
    (void)c;
    atomic_store(&stuck_seen, 1);
    return HCRT_EVENT_DEFER; /* never answered */
}

static void expect_timeout(int type, int dest, double timeout)
{
    hcrt__event_send_t s = {.type = type, .dest = dest, .timeout = timeout};
    hcrt__event_t *ev;
    int calls = atomic_load(&hook_calls);
    double t0 = ev_now();
    CHECK_EQ(hcrt__event_send(&s, &ev), HCRT_OK);
    CHECK_EQ(hcrt__event_wait(ev, 0.05), HCRT_ERR_BUSY); /* still waiting */
    CHECK_EQ(hcrt__event_wait(ev, 10), HCRT_ERR_TIMEOUT);
    double took = ev_now() - t0;
    CHECK(took >= 0.25 && took < 3.0);
    CHECK_EQ(atomic_load(&hook_calls), calls + 1);
    CHECK_EQ(atomic_load(&hook_rank), dest);
    CHECK_EQ(atomic_load(&hook_type), type);
    printf("type %d to rank %d: timed out after %.3f s, hook called\n", type,
           dest, took);
    hcrt__event_release(ev);
}

int main(int argc, char **argv)
{
    hcrt__event_opts_t o;
    hcrt__event_opts_default(&o);
    o.timeout = 0.5;       /* default deadline */
    o.drain_timeout = 1.0; /* shutdown waits this long */
    ev_test_init(&argc, &argv, &o);
    hcrt__event_set_peer_hook(peer_hook, &hook_calls);
    hcrt__event_type_ops_t ops[] = {
        {.name = "nap", .queue = HCRT_EVENT_QUEUE_EXEC, .run = nap_run},
        {.name = "never", .queue = HCRT_EVENT_QUEUE_DATA, .run = never_run},
        {.name = "ping", .queue = HCRT_EVENT_QUEUE_DATA, .run = ping_run},
        {.name = "stuck", .queue = HCRT_EVENT_QUEUE_DATA, .run = stuck_run}};
    for (int i = 0; i < 4; i++)
        CHECK_EQ(hcrt__event_register(i + 1, &ops[i]), HCRT_OK);
    MPI_Barrier(hcrt__comm_world());

    if (me == 0) {
        expect_timeout(T_NAP, 1, 0.3); /* too slow */
        expect_timeout(T_NEVER, nranks - 1, HCRT_EVENT_TIMEOUT_DEFAULT);
        /* The system still works (rank 1's EXEC thread is still napping). */
        CHECK_EQ(hcrt__event_call(1, T_PING, NULL, 0, NULL, NULL, 5), HCRT_OK);
    }
    MPI_Barrier(hcrt__comm_world());
    if (me == nranks - 1) { /* the late reply goes to a cancelled receive */
        CHECK(atomic_load(&never_ctx) != NULL);
        hcrt__event_reply(atomic_load(&never_ctx), HCRT_OK);
    }
    CHECK_EQ(atomic_load(&hook_calls), me == 0 ? 2 : 0);

    /* An origin that dies after its notice: the data never comes, and the
     * destination's deadline reports the origin through the hook. */
    if (me == 0) {
        ev_notice_t n = {.magic = EV_MAGIC,
                         .type = T_PING,
                         .nbufs = 1,
                         .tag = EV_TAG_BASE + hcrt__ev.ntags - 1};
        n.len[0] = 1000;
        MPI_Send(&n, (int)offsetof(ev_notice_t, hdr), MPI_BYTE, 1, EV_CTRL_TAG,
                 hcrt__ev.ctrl);
    }
    if (me == 1) {
        double t0 = ev_now();
        while (atomic_load(&hook_calls) == 0 && ev_now() - t0 < 5)
            sched_yield();
        CHECK_EQ(atomic_load(&hook_calls), 1);
        CHECK_EQ(atomic_load(&hook_rank), 0);
        CHECK_EQ(atomic_load(&hook_type), T_PING);
        printf("rank 1: data from rank 0 never came; hook called after "
               "%.3f s\n",
               ev_now() - t0);
    }
    MPI_Barrier(hcrt__comm_world());

    /* Left in flight at shutdown: no deadline, and rank 1 never replies. */
    if (me == 0) {
        hcrt__event_send_t s = {
            .type = T_STUCK, .dest = 1, .timeout = HCRT_EVENT_TIMEOUT_NONE};
        CHECK_EQ(hcrt__event_send(&s, NULL), HCRT_OK);
    }
    if (me == 1)
        while (!atomic_load(&stuck_seen))
            sched_yield();
    double t0 = ev_now();
    int rc =
        ev_test_finish("event_deadline", me <= 1 ? HCRT_ERR_TIMEOUT : HCRT_OK);
    CHECK(ev_now() - t0 < 5.0);
    return rc || check_failures;
}
