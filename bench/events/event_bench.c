/*
 * event_bench.c - the event system against raw MPI on the same ranks, in
 * one run: round-trip latency (8 B, 4 KiB) and one-way bandwidth
 * (1..64 MiB). Rank 0 prints a markdown table with the ratios.
 *
 *   mpirun -np 2 hcrt-event-bench [--frag BYTES] [--window N] [--idle US]
 *                                 [--spin US] [--reps N]
 *
 * Each number is the median of 7 alternating raw/event trials.
 * Raw MPI: ping-pong with MPI_Send/MPI_Recv on a duplicate of the world
 * communicator. Events: hcrt__event_send + wait; for 4 KiB the buffer
 * travels as an event buffer each way, for bandwidth the destination
 * receives into a preallocated buffer (prepare) and replies empty.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libhcrt/event/event.h"
#include "libhcrt/runtime.h"

enum { T_ECHO = 1, T_SINK = 2 };
#define MAXLEN ((size_t)64 << 20)

static void *sink;
static int me;

static hcrt_status_t echo_run(hcrt__event_ctx_t *c)
{
    c->nout = c->nin;
    for (int i = 0; i < c->nin; i++)
        c->out[i] = c->in[i];
    return HCRT_OK;
}

static hcrt_status_t sink_prepare(hcrt__event_ctx_t *c)
{
    c->in[0].ptr = sink;
    return c->in[0].len <= MAXLEN ? HCRT_OK : HCRT_ERR_INVALID;
}

static hcrt_status_t sink_run(hcrt__event_ctx_t *c)
{
    (void)c;
    return HCRT_OK;
}

/* Raw round trip of len bytes; microseconds per round trip. */
static double raw_rtt(MPI_Comm comm, void *buf, size_t len, int reps)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        if (me == 0) {
            MPI_Send(buf, (int)len, MPI_BYTE, 1, 7, comm);
            MPI_Recv(buf, (int)len, MPI_BYTE, 1, 7, comm, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(buf, (int)len, MPI_BYTE, 0, 7, comm, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)len, MPI_BYTE, 0, 7, comm);
        }
    }
    return (MPI_Wtime() - t0) / reps * 1e6;
}

/* Raw one-way transfer of len bytes plus a 1-byte ack; MB/s. */
static double raw_bw(MPI_Comm comm, void *buf, size_t len, int reps)
{
    char ack = 0;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        if (me == 0) {
            MPI_Send(buf, (int)len, MPI_BYTE, 1, 8, comm);
            MPI_Recv(&ack, 1, MPI_BYTE, 1, 8, comm, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(buf, (int)len, MPI_BYTE, 0, 8, comm, MPI_STATUS_IGNORE);
            MPI_Send(&ack, 1, MPI_BYTE, 0, 8, comm);
        }
    }
    return (double)len * reps / (MPI_Wtime() - t0) / 1e6;
}

/* Event round trip: the header alone (len <= 8) or len bytes each way. */
static double ev_rtt(void *buf, void *back, size_t len, int reps, int sync)
{
    hcrt__event_buf_t out = {buf, len}, in = {back, len};
    hcrt__event_send_t s = {.type = T_ECHO, .dest = 1, .sync = sync};
    if (len <= 8) {
        s.hdr = buf;
        s.hdr_len = len;
    } else {
        s.nbufs = s.nreply = 1;
        s.bufs = &out;
        s.reply_bufs = &in;
    }
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        hcrt__event_t *ev;
        if (hcrt__event_send(&s, &ev) != HCRT_OK ||
            hcrt__event_wait(ev, -1) != HCRT_OK) {
            fprintf(stderr, "event round trip failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        hcrt__event_release(ev);
    }
    return (MPI_Wtime() - t0) / reps * 1e6;
}

static double ev_bw(void *buf, size_t len, int reps)
{
    hcrt__event_buf_t out = {buf, len};
    hcrt__event_send_t s = {
        .type = T_SINK, .dest = 1, .nbufs = 1, .bufs = &out, .sync = 1};
    double t0 = MPI_Wtime();
    for (int i = 0; i < reps; i++) {
        hcrt__event_t *ev;
        if (hcrt__event_send(&s, &ev) != HCRT_OK ||
            hcrt__event_wait(ev, -1) != HCRT_OK) {
            fprintf(stderr, "event transfer failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        hcrt__event_release(ev);
    }
    return (double)len * reps / (MPI_Wtime() - t0) / 1e6;
}

#define ROUNDS 7

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of ROUNDS alternating raw/event trials, so load changes on a
 * shared machine hit both sides alike. kind 0: latency (the waiting thread
 * progresses its event: sync send), 1: bandwidth, 2: latency with the
 * handler threads progressing the event (a send without `sync`). */
static void measure(MPI_Comm comm, int kind, void *buf, void *back, size_t len,
                    int reps, double *raw, double *evt)
{
    double r[ROUNDS], e[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        r[k] = kind == 1 ? raw_bw(comm, buf, len, reps)
                         : raw_rtt(comm, buf, len, reps);
        e[k] = 0;
        if (me == 0)
            e[k] = kind == 1 ? ev_bw(buf, len, reps)
                             : ev_rtt(buf, back, len, reps, kind == 0);
        MPI_Barrier(comm);
    }
    qsort(r, ROUNDS, sizeof(double), cmp_double);
    qsort(e, ROUNDS, sizeof(double), cmp_double);
    *raw = r[ROUNDS / 2];
    *evt = e[ROUNDS / 2];
}

static void parse(int argc, char **argv, hcrt__event_opts_t *o, int *reps)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frag"))
            o->frag_size = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--idle"))
            o->idle_max_us = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--window"))
            o->window = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--spin"))
            o->spin_us = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            *reps = atoi(argv[i + 1]);
        else {
            fprintf(stderr,
                    "unknown option %s (use --frag BYTES, --window N, "
                    "--idle US, --spin US, --reps N)\n",
                    argv[i]);
            exit(2);
        }
    }
}

int main(int argc, char **argv)
{
    hcrt__event_opts_t o;
    int reps = 2000;
    MPI_Comm comm;

    hcrt__event_opts_default(&o);
    parse(argc, argv, &o, &reps);
    hcrt__runtime_init(&argc, &argv);
    me = hcrt__rank();
    if (hcrt__size() != 2) {
        if (me == 0)
            fprintf(stderr, "run with exactly 2 ranks\n");
        return 2;
    }
    MPI_Comm_dup(hcrt__comm_world(), &comm);
    if (hcrt__event_is_up()) /* started by the runtime: use our options */
        hcrt__event_fini();
    if (hcrt__event_init(hcrt__comm_world(), &o) != HCRT_OK)
        return 2;
    hcrt__event_type_ops_t echo = {
        .name = "echo", .queue = HCRT_EVENT_QUEUE_DATA, .run = echo_run};
    hcrt__event_type_ops_t sk = {.name = "sink",
                                 .queue = HCRT_EVENT_QUEUE_DATA,
                                 .prepare = sink_prepare,
                                 .run = sink_run};
    hcrt__event_register(T_ECHO, &echo);
    hcrt__event_register(T_SINK, &sk);
    void *buf = calloc(1, MAXLEN), *back = calloc(1, MAXLEN);
    sink = calloc(1, MAXLEN);
    MPI_Barrier(comm);

    if (me == 0)
        printf("| measure | size | raw MPI | events | events / raw |\n"
               "|---|---:|---:|---:|---:|\n");
    static const size_t lat[] = {8, 4096};
    for (int kind = 0; kind <= 2; kind += 2)
        for (int i = 0; i < 2; i++) {
            double r, e;
            measure(comm, kind, buf, back, lat[i], reps / ROUNDS, &r, &e);
            if (me == 0)
                printf("| round trip (us)%s | %zu B | %.2f | %.2f | %.2fx |\n",
                       kind ? ", async" : "", lat[i], r, e, e / r);
        }
    for (size_t len = (size_t)1 << 20; len <= MAXLEN; len *= 4) {
        int n = (int)(((size_t)64 << 20) / len);
        double r, e;
        measure(comm, 1, buf, back, len, n < 2 ? 2 : n, &r, &e);
        if (me == 0)
            printf("| bandwidth (MB/s) | %zu MiB | %.0f | %.0f | %.2fx |\n",
                   len >> 20, r, e, e / r);
    }
    MPI_Barrier(comm);
    hcrt__event_fini();
    MPI_Comm_free(&comm);
    free(buf);
    free(back);
    free(sink);
    return 0;
}
