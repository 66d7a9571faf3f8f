/*
 * event_bell.c - the idle gate thread blocks on its bell and an origin's
 * ring wakes it (HCRT_EVENT_BELL). Rank 0 calls every peer 20 times, each
 * after 30 ms of quiet, so the peers' gates are in their idle naps (20 ms
 * here) when the call arrives; every reply must be right, and with bells
 * on (=1: start-up fails without routes) every peer's gate must have been
 * woken by bells. With "off" the same calls work by the naps alone and no
 * bell wakes anyone. No timing is asserted.
 */
#include <unistd.h>

#include "base/bell.h"
#include "event_test.h"

enum { T_PING = 1 };

static hcrt_status_t ping_run(hcrt__event_ctx_t *c)
{
    uint64_t v;
    if (c->hdr_len != sizeof(v))
        return HCRT_ERR_INVALID;
    memcpy(&v, c->hdr, sizeof(v));
    v = v * 3 + (uint64_t)me;
    memcpy(c->reply_hdr, &v, sizeof(v));
    c->reply_hdr_len = sizeof(v);
    return HCRT_OK;
}

int main(int argc, char **argv)
{
    int off = argc > 1 && strcmp(argv[1], "off") == 0;
    hcrt__event_opts_t o;
    hcrt__event_opts_default(&o);
    o.bell = off ? HCRT_BELL_OFF : HCRT_BELL_ON;
    o.idle_max_us = 20000; /* long idle naps: what bells cut short */
    o.spin_us = 100;
    ev_test_init(&argc, &argv, &o);
    hcrt__event_type_ops_t ping = {
        .name = "ping", .queue = HCRT_EVENT_QUEUE_DATA, .run = ping_run};
    CHECK_EQ(hcrt__event_register(T_PING, &ping), HCRT_OK);
    MPI_Barrier(hcrt__comm_world());
    if (me == 0)
        for (int i = 0; i < 20; i++) {
            usleep(30 * 1000);
            for (int peer = 1; peer < nranks; peer++) {
                uint64_t v = (uint64_t)(i * 100 + peer), r = 0;
                size_t rl = sizeof(r);
                CHECK_EQ(hcrt__event_call(peer, T_PING, &v, sizeof(v), &r, &rl,
                                          10.0),
                         HCRT_OK);
                CHECK_EQ(r, v * 3 + (uint64_t)peer);
            }
        }
    MPI_Barrier(hcrt__comm_world());
    hcrt__event_stats_t s;
    hcrt__event_get_stats(&s);
    if (me != 0) {
        if (off)
            CHECK_EQ(s.bell_wakeups, 0);
        else
            CHECK(s.bell_wakeups > 0);
        printf("rank %d: gate woken by bells %llu times\n", me,
               (unsigned long long)s.bell_wakeups);
    }
    return ev_test_finish(off ? "event_bell off" : "event_bell", HCRT_OK);
}
