/*
 * fd_main.c - the fault detector's start-up and its thread
 * (docs/faults.md).
 *
 * One thread per rank owns the detector: it blocks in poll() on its UDP
 * socket, its TCP listener and presence connections, its probes and an
 * eventfd, and wakes for the next timer (a heartbeat to send, a watch to
 * check, a probe, a retransmission). It never calls MPI, so a peer that
 * MPI waits for forever cannot stall it, and it keeps working through
 * MPI_Init's aftermath and MPI_Finalize.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/lastword.h"
#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/event/event.h"
#include "libhcrt/fault/fd_int.h"

fd_state_t hcrt__fd = {.udp = -1, .listener = -1, .efd = -1, .succ_fd = -1};

#define HCRT_SETTING HCRT_SETTING_ROW
static const hcrt_setting_t rows[] = {
#include "libhcrt/fault/settings.def"
};
#undef HCRT_SETTING

void hcrt__fault_settings_register(void)
{
    hcrt__config_register(rows, sizeof rows / sizeof rows[0]);
}

int hcrt__fault_on(void)
{
    return hcrt__fd.on;
}

uint64_t hcrt__fd_now(void)
{
    return hcrt__now_ns();
}

double hcrt__fd_jobtime(uint64_t ns)
{
    fd_state_t *f = &hcrt__fd;
    return (double)((int64_t)ns + f->wall_off_ns - f->wall0_ns) * 1e-9;
}

uint64_t hcrt__fd_mono_at(double jobtime)
{
    fd_state_t *f = &hcrt__fd;
    int64_t t = f->wall0_ns + (int64_t)(jobtime * 1e9) - f->wall_off_ns;
    return t > 0 ? (uint64_t)t : 0;
}

static int64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void read_settings(fd_state_t *f)
{
    f->period = hcrt__config_double("HCRT_FAULT_PERIOD");
    f->timeout = hcrt__config_double("HCRT_FAULT_TIMEOUT");
    f->probe_time = hcrt__config_double("HCRT_FAULT_PROBE_TIME");
    f->window = hcrt__config_double("HCRT_FAULT_WINDOW");
    f->fanout = (int)hcrt__config_int("HCRT_FAULT_FANOUT");
    f->wait_deadline = hcrt__config_double("HCRT_FAULT_WAIT_DEADLINE");
    f->status = (int)hcrt__config_int("HCRT_FAULT_STATUS");
    f->period_ns = (uint64_t)(f->period * 1e9);
    f->timeout_ns = (uint64_t)(f->timeout * 1e9);
    const char *rec = getenv("OMPI_MCA_orte_enable_recovery");
    f->recovery = rec && (!strcmp(rec, "1") || !strcmp(rec, "true"));
}

static void timers(fd_state_t *f, uint64_t now)
{
    if (now >= f->next_hb) {
        hcrt__fd_send_heartbeat(f);
        f->next_hb += f->period_ns;
        if (f->next_hb < now) /* descheduled: do not send a burst */
            f->next_hb = now + f->period_ns;
    }
    hcrt__fd_watch(f, now);
    hcrt__fd_tree_timers(now);
    hcrt__fd_case_timers(now);
    hcrt__fd_leave_timers(now);
    hcrt__fd_inject_timers(now);
    hcrt__fd_ft_timers();
    if (atomic_exchange(&f->sigterm, 0))
        hcrt__fd_sigterm_check();
}

static uint64_t next_timer(fd_state_t *f)
{
    uint64_t t = f->next_hb, x;
    if ((x = hcrt__fd_watch_next(f)) < t)
        t = x;
    if ((x = hcrt__fd_tree_next()) < t)
        t = x;
    if ((x = hcrt__fd_case_next()) < t)
        t = x;
    if ((x = hcrt__fd_inject_next()) < t)
        t = x;
    if ((x = hcrt__fd_ft_next()) < t)
        t = x;
    if ((f->leaving || f->ending) && f->leave_next < t)
        t = f->leave_next;
    return t;
}

static void on_message(const fd_msg_t *m, size_t len)
{
    switch (m->h.type) {
    case FD_HB:
        hcrt__fd_on_heartbeat(m);
        break;
    case FD_SYMPTOM:
        hcrt__fd_on_symptom(m);
        break;
    case FD_ACK:
        hcrt__fd_on_ack(m);
        break;
    case FD_PING: {
        fd_msg_t r = {.subject = hcrt__fd.rank, .status = (int32_t)m->h.seq};
        hcrt__doing_text(r.text, sizeof r.text);
        hcrt__fd_send(m->h.from, FD_PONG, &r);
        break;
    }
    case FD_PONG:
        hcrt__fd_on_pong(m);
        break;
    case FD_PROBE_REQ:
        hcrt__fd_on_probe_req(m);
        break;
    case FD_PROBE_RES:
        hcrt__fd_on_probe_res(m);
        break;
    case FD_END:
        hcrt__fd_on_end(m);
        break;
    case FD_LEAVE:
        hcrt__fd_on_leave(m);
        break;
    case FD_LEFT:
        hcrt__fd_on_left(m);
        break;
    case FD_LEFT_ACK:
        hcrt__fd_on_left_ack(m);
        break;
    case FD_LOST:
        hcrt__fd_on_lost(m);
        break;
    case FD_LASTWORD:
        hcrt__fd_on_lastword((const unsigned char *)m, len);
        break;
    default:
        break;
    }
}

enum { FIX_UDP, FIX_LISTEN, FIX_EFD, FIX_SUCC, NFIX };

/* The descriptors to watch: fixed ones, presence connections (*nconn
 * ends them), then probes' connecting sockets. */
static int fill_poll(fd_state_t *f, struct pollfd *p, int *conn_of, int *nconn)
{
    p[FIX_UDP] = (struct pollfd){f->udp, POLLIN, 0};
    p[FIX_LISTEN] = (struct pollfd){f->listener, POLLIN, 0};
    p[FIX_EFD] = (struct pollfd){f->efd, POLLIN, 0};
    p[FIX_SUCC] =
        (struct pollfd){f->succ_fd, f->succ_connecting ? POLLOUT : POLLIN, 0};
    int n = NFIX;
    for (int i = 0; i < FD_MAX_CONNS; i++)
        if (f->conn_fd[i] >= 0) {
            conn_of[n] = i;
            p[n++] = (struct pollfd){f->conn_fd[i], POLLIN, 0};
        }
    *nconn = n;
    return n + hcrt__fd_probe_fds(p + n, FD_MAX_PROBES);
}

static void handle_poll(fd_state_t *f, struct pollfd *p, int n, int nconn,
                        const int *conn_of)
{
    if (p[FIX_EFD].revents) {
        uint64_t v;
        if (read(f->efd, &v, sizeof v) < 0)
            v = 0;
    }
    hcrt__fd_intake_drain();
    fd_wire_t w;
    size_t len;
    while (hcrt__fd_recv(&w, &len))
        on_message(&w.m, len);
    if (p[FIX_LISTEN].revents)
        hcrt__fd_accept();
    if (f->succ_fd >= 0 && p[FIX_SUCC].revents)
        hcrt__fd_on_succ_conn(f);
    for (int i = NFIX; i < nconn; i++)
        if (p[i].revents)
            hcrt__fd_on_conn(conn_of[i]);
    for (int i = nconn; i < n; i++)
        if (p[i].revents)
            hcrt__fd_probe_ready(p[i].fd);
}

/* What the detector cost this rank: its thread's CPU time against the
 * run's wall time (bench/faults/run.sh overhead reads this line). */
static void report_cost(fd_state_t *f)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return;
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    double wall = (double)(hcrt__fd_now() - f->start_ns) * 1e-9;
    hcrt_info(HCRT_MOD_FAULT,
              "fault detector: cpu %.1f ms over %.1f s (%.3f %% of a core), "
              "%u messages sent",
              cpu * 1e3, wall, wall > 0 ? 100 * cpu / wall : 0.0,
              (unsigned)atomic_load(&f->seq));
}

/* Nonzero while a rank is under suspicion: a symptom group about a rank
 * not declared lost (a group decided alive is dropped), or an open case. */
static int unsettled(fd_state_t *f)
{
    int n = 0;
    for (int i = 0; i < FD_MAX_GROUPS; i++) {
        const fd_group_t *g = &f->corr.g[i];
        n += g->used && g->subject >= 0 && g->subject < f->size &&
             !f->peers[g->subject].ft_lost;
    }
    return n + hcrt__fd_cases_open();
}

static void *detector_main(void *arg)
{
    fd_state_t *f = arg;
    struct pollfd p[NFIX + FD_MAX_CONNS + FD_MAX_PROBES];
    int conn_of[NFIX + FD_MAX_CONNS];
    hcrt__helper_thread_start("hcrt-fault",
                              0); /* default slice: it has seconds */
    while (!atomic_load(&f->stop)) {
        uint64_t now = hcrt__fd_now(), next = next_timer(f);
        int ms = next > now ? (int)((next - now) / 1000000 + 1) : 0;
        if (ms > 1000)
            ms = 1000;
        int nconn, n = fill_poll(f, p, conn_of, &nconn);
        if (poll(p, (nfds_t)n, ms) < 0 && errno != EINTR)
            hcrt_warn(HCRT_MOD_FAULT, "fault detector: poll: %s",
                      strerror(errno));
        now = hcrt__fd_now();
        /* woken far later than asked: this rank was descheduled; its
         * next heartbeat says so (a slow node, not a dead one) */
        if (now > next + f->period_ns)
            f->slow_flag = 1;
        /* frozen (stopped, then continued): the others may have declared
         * this rank failed and gone; what it sees now is their going,
         * not their failure, so it accuses nobody for a while */
        if (now > next + f->timeout_ns / 2) {
            f->frozen_until =
                now + f->timeout_ns + (uint64_t)(f->probe_time * 2e9);
            hcrt_debug(HCRT_MOD_FAULT, "frozen for %.1f s",
                       (double)(now - next) * 1e-9);
        }
        handle_poll(f, p, n, nconn, conn_of);
        timers(f, now);
        atomic_store(&f->unsettled, unsettled(f));
    }
    report_cost(f);
    return NULL;
}

void hcrt__fd_peers_init(const fd_rec_t *all)
{
    fd_state_t *f = &hcrt__fd;
    const fd_rec_t *me = &all[f->rank];
    for (int r = 0; r < f->size; r++) {
        fd_peer_t *p = &f->peers[r];
        p->rec = all[r];
        uint32_t ad = r == f->rank ? htonl(INADDR_LOOPBACK)
                                   : hcrt__route_to(&me->route, &all[r].route);
        p->same_host = hcrt__route_same_host(&me->route, &all[r].route) &&
                       me->pidns == all[r].pidns;
        if (!ad || !all[r].route.port)
            continue;
        p->udp = (struct sockaddr_in){.sin_family = AF_INET,
                                      .sin_port = all[r].route.port,
                                      .sin_addr.s_addr = ad};
        p->tcp = p->udp;
        p->tcp.sin_port = all[r].tcp_port;
    }
}

/* Last words of a crashing rank go to the root and its deputy. */
static void lastword_init(fd_state_t *f)
{
    struct sockaddr_in to[2];
    int n = 0;
    for (int r = 0; r < f->size && n < 2; r++)
        if (r != f->rank && f->peers[r].udp.sin_port)
            to[n++] = f->peers[r].udp;
    fd_hdr_t h = {FD_MAGIC, FD_LASTWORD, 0, f->job, f->rank, 0};
    hcrt__lastword_setup(f->udp, to, n, &h, sizeof h);
}

void hcrt__fault_init(MPI_Comm comm)
{
    fd_state_t *f = &hcrt__fd;
    fd_rec_t mine;
    MPI_Comm_rank(comm, &f->rank);
    MPI_Comm_size(comm, &f->size);
    read_settings(f);
    int want = hcrt__config_bool("HCRT_FAULT") && f->size > 1;
    if (want && hcrt__fd_net_open(&mine) != 0)
        want = 0;
    if (!want) {
        memset(&mine, 0, sizeof mine);
        mine.wall0_ns = wall_ns();
    }
    f->peers = calloc((size_t)f->size, sizeof *f->peers);
    if (!f->peers)
        hcrt_fatal(HCRT_MOD_FAULT, "out of memory starting the detector");
    int ok = hcrt__fd_exchange(comm, &mine);
    f->start_ns = hcrt__fd_now();
    f->wall_off_ns = wall_ns() - (int64_t)f->start_ns;
    hcrt__fd_ft_init(ok && want);
    if (!ok || !want) {
        hcrt__fd_inject_alone(); /* failures still happen, undetected */
        return;
    }
    for (int i = 0; i < FD_MAX_CONNS; i++)
        f->conn_fd[i] = -1, f->conn_rank[i] = -1;
    hcrt__fd_corr_init(&f->corr, (uint64_t)(f->window * 1e9));
    lastword_init(f);
    hcrt__event_set_peer_hook(hcrt__fd_hook_event, NULL);
    hcrt__wait_set_reply_deadline(f->wait_deadline);
    hcrt__fd_end_init();
    f->succ = f->rank;
    hcrt__fd_ring_update();
    f->next_hb = f->start_ns;
    f->on = 1;
    int rc = pthread_create(&f->thread, NULL, detector_main, f);
    if (rc != 0)
        hcrt_fatal(HCRT_MOD_FAULT, "cannot start the fault detector: %s",
                   strerror(rc));
    hcrt__fd_inject_init();
    hcrt__fd_inject_phase("startup");
}
