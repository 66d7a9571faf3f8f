/*
 * event_queues.c - a long handler on the EXEC queue does not hold up data
 * events; a handler that returns HCRT_ERR_BUSY is polled without a thread;
 * an idle event system costs (almost) no CPU.
 */
#include <sys/resource.h>

#include "event_test.h"

enum { T_SLOW = 1, T_MOVE = 2, T_POLL = 3 };
#define SLOW_S 1.5
#define MOVE_LEN ((size_t)1 << 20)

static hcrt_status_t slow_run(hcrt__event_ctx_t *c)
{
    (void)c;
    struct timespec ts = {1, 500 * 1000000L};
    nanosleep(&ts, NULL);
    return HCRT_OK;
}

static hcrt_status_t move_run(hcrt__event_ctx_t *c)
{
    return ev_check(c->in[0].ptr, MOVE_LEN, 5) == MOVE_LEN ? HCRT_OK
                                                           : HCRT_ERR_INVALID;
}

/* Not ready the first 5 times it runs. */
static hcrt_status_t poll_run(hcrt__event_ctx_t *c)
{
    intptr_t n = (intptr_t)c->user + 1;
    c->user = (void *)n;
    if (n < 5)
        return HCRT_ERR_BUSY;
    memcpy(c->reply_hdr, &n, sizeof(n));
    c->reply_hdr_len = sizeof(n);
    return HCRT_OK;
}

static void test_exec_vs_data(void)
{
    hcrt__event_t *slow;
    hcrt__event_send_t s = {.type = T_SLOW, .dest = 1};
    double t0 = ev_now();
    CHECK_EQ(hcrt__event_send(&s, &slow), HCRT_OK);
    void *buf = malloc(MOVE_LEN);
    ev_fill(buf, MOVE_LEN, 5);
    hcrt__event_buf_t b = {buf, MOVE_LEN};
    for (int i = 0; i < 20; i++) {
        hcrt__event_send_t m = {
            .type = T_MOVE, .dest = 1, .nbufs = 1, .bufs = &b};
        hcrt__event_t *ev;
        CHECK_EQ(hcrt__event_send(&m, &ev), HCRT_OK);
        CHECK_EQ(hcrt__event_wait(ev, 5), HCRT_OK);
        hcrt__event_release(ev);
    }
    double data_done = ev_now() - t0;
    CHECK(!hcrt__event_test(slow)); /* the kernel is still running */
    CHECK(data_done < SLOW_S);
    CHECK_EQ(hcrt__event_wait(slow, 10), HCRT_OK);
    double slow_done = ev_now() - t0;
    CHECK(slow_done >= SLOW_S);
    printf("20 MiB of data events done in %.3f s while a %.1f s EXEC handler "
           "ran (done at %.3f s)\n",
           data_done, SLOW_S, slow_done);
    hcrt__event_release(slow);
    free(buf);

    intptr_t n = 0;
    size_t len = sizeof(n);
    CHECK_EQ(hcrt__event_call(nranks - 1, T_POLL, NULL, 0, &n, &len, 10),
             HCRT_OK);
    CHECK_EQ(n, 5);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* Every rank sleeps 1 s with the gate and handlers idle. The machine's
 * other load can preempt a service thread in the middle of its spin before
 * a nap (the suite runs two tests at once on 2 cores): a window over the
 * bound is measured again, up to 3 windows, all ranks deciding together. An
 * event system that spins while idle exceeds it in every window. */
static void test_idle_cpu(void)
{
    double worst = 1;
    int w;
    for (w = 0; w < 3 && worst >= 0.05; w++) {
        double c0 = cpu_seconds(), t0 = ev_now();
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        double share = (cpu_seconds() - c0) / (ev_now() - t0);
        MPI_Allreduce(&share, &worst, 1, MPI_DOUBLE, MPI_MAX,
                      hcrt__comm_world());
    }
    if (me == 0)
        printf("idle event system: at most %.2f%% of a core per rank "
               "(window %d)\n",
               worst * 100, w);
    CHECK(worst < 0.05);
}

int main(int argc, char **argv)
{
    hcrt__event_opts_t o;
    hcrt__event_opts_default(&o);
    ev_test_init(&argc, &argv, &o);
    hcrt__event_type_ops_t slow = {
        .name = "slow", .queue = HCRT_EVENT_QUEUE_EXEC, .run = slow_run};
    hcrt__event_type_ops_t move = {
        .name = "move", .queue = HCRT_EVENT_QUEUE_DATA, .run = move_run};
    hcrt__event_type_ops_t poll = {
        .name = "poll", .queue = HCRT_EVENT_QUEUE_DATA, .run = poll_run};
    CHECK_EQ(hcrt__event_register(T_SLOW, &slow), HCRT_OK);
    CHECK_EQ(hcrt__event_register(T_MOVE, &move), HCRT_OK);
    CHECK_EQ(hcrt__event_register(T_POLL, &poll), HCRT_OK);
    MPI_Barrier(hcrt__comm_world());
    if (me == 0)
        test_exec_vs_data();
    MPI_Barrier(hcrt__comm_world());
    test_idle_cpu();
    return ev_test_finish("event_queues", HCRT_OK);
}
