/*
 * fd_int.h - the fault detector's internals, shared by its files:
 *
 *   fd_main.c    settings, start-up, the detector thread
 *   fd_ring.c    heartbeats around the ring, presence connections
 *   fd_net.c     sockets, the address exchange, messages, probes of hosts
 *   fd_tree.c    symptoms: intake, the tree of detectors, correlation
 *   fd_case.c    the acting root's analysis: probes and the diagnosis
 *   fd_report.c  the one report (log, JSON), activity texts
 *   fd_end.c     ending the job, the leave protocol, SIGTERM, wait policy
 *   fd_inject.c  failure injection (HCRT_FAULT_INJECT)
 *   fd_ft.c      FT mode: the job goes on without a lost worker (ft.h)
 *   fd_rules.c   the rule table and symptom grouping (no MPI)
 *
 * Everything below belongs to the detector thread unless marked; other
 * threads reach it only through the intake (fd_tree.c) and atomics.
 */
#ifndef HCRT_FD_INT_H
#define HCRT_FD_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <mpi.h>
#include <poll.h>

#include "base/route.h"
#include "libhcrt/fault/fault.h"
#include "libhcrt/fault/fd_rules.h"

#define FD_MAGIC 0x44464348u /* "HCFD" */

enum fd_type {
    FD_HB = 1,    /* heartbeat to the watcher; text: what the rank does */
    FD_SYMPTOM,   /* to the parent: evidence about `subject` */
    FD_ACK,       /* a symptom arrived (seq echoed in `status`) */
    FD_PING,      /* response probe */
    FD_PONG,      /* ... answered; text: what the rank does */
    FD_PROBE_REQ, /* probe `subject` for the asker (indirect probe) */
    FD_PROBE_RES, /* its result: evidence bits */
    FD_END,       /* the job ends: exit with `status` */
    FD_LEAVE,     /* to the root: this rank finished normally */
    FD_LEFT,      /* from the root: every rank finished */
    FD_LEFT_ACK,  /* ... seen */
    FD_LASTWORD,  /* base/lastword.c: [header][kind][text] */
    FD_HELLO,     /* first bytes on a presence connection */
    FD_LOST       /* FT mode, from the root: `subject` is lost, go on */
};

typedef struct fd_hdr {
    uint32_t magic;
    uint16_t type, len;
    uint64_t job; /* the job's nonce: datagrams of other jobs are dropped */
    int32_t from;
    uint32_t seq;
} fd_hdr_t;

typedef struct fd_msg {
    fd_hdr_t h;
    int32_t subject;
    uint32_t ev;
    double t;   /* the sender's job time of the fact, seconds */
    double gap; /* heartbeat gap seen, seconds */
    int32_t status;
    uint32_t flags;
    char text[FD_TEXT];
} fd_msg_t;

/* A datagram as received: a message, or last words (base/lastword.c). */
typedef union fd_wire {
    fd_msg_t m;
    unsigned char raw[640];
} fd_wire_t;

#define FD_HB_SLOW 1u /* the sender's detector ran late (descheduled) */
#define FD_RES_DOING                                                           \
    2u /* a probe answer that only says what the subject                       \
        * last said it was doing (sent at once) */

/* What every rank publishes at start-up. */
typedef struct fd_rec {
    hcrt_route_rec_t route; /* route.port: the UDP port */
    uint16_t tcp_port, pad;
    int32_t pid, node_id;
    uint64_t pidns, start_ticks, nonce;
    int64_t wall0_ns; /* CLOCK_REALTIME when it published this */
    char host[64];
} fd_rec_t;

enum fd_pstate { P_ALIVE = 0, P_SUSPECT, P_FAILED, P_LEFT };

typedef struct fd_peer {
    fd_rec_t rec;
    struct sockaddr_in udp, tcp; /* sin_port 0: no route */
    int state, same_host, leaving, left_acked;
    int ft_lost;         /* FT mode: this rank knows it is lost */
    uint64_t last_hb_ns; /* when its last heartbeat arrived here */
    /* same host: the streak of probes that found it silent with its
     * detector thread runnable (fd_case.c) */
    uint64_t busy_first_ns, busy_last_ns;
    double last_hb_t; /* the same, in this rank's job time */
    char doing[FD_TEXT];
    char lastword[FD_TEXT];
} fd_peer_t;

/* A probe of `subject` by this rank, for its own case (asker -1) or for
 * another rank's analyzer (an indirect probe). */
typedef struct fd_probe {
    int used, subject, asker;
    uint32_t got;
    uint64_t deadline, next_ping;
    int tcp; /* a connecting socket, -1 when its answer is in */
} fd_probe_t;

/* The acting root's analysis of one subject. */
typedef struct fd_case {
    int used, subject, decided, asked, answered;
    int ft_done; /* FT mode: reported, the job went on without it */
    int helpers[2];
    fd_probe_t *probe; /* this rank's own probe of the subject */
    uint32_t ev;
    uint64_t opened, deadline, decided_ns;
    double since, gap;
    int obs[FD_MAX_OBS], nobs;
    fd_diag_t diag;
    const char *rule;
    char doing[FD_TEXT];
} fd_case_t;

/* A symptom on its way up the tree, until its receiver acknowledges. */
typedef struct fd_out {
    int used, dest, tries;
    uint64_t next;
    fd_msg_t m;
} fd_out_t;

#define FD_MAX_PROBES 32
#define FD_MAX_CASES 16
#define FD_MAX_OUT 32
#define FD_MAX_CONNS 16
#define FD_SEND_TRIES 3

typedef struct fd_state {
    int on, rank, size, fanout, status, recovery;
    double period, timeout, probe_time, window, wait_deadline;
    uint64_t job, start_ns, period_ns, timeout_ns;
    int64_t wall0_ns, wall_off_ns; /* job time 0 (rank 0's), wall - mono */
    int udp, listener, efd;
    fd_peer_t *peers;
    /* ring: this rank watches succ, pred watches this rank */
    int succ, pred, succ_fd, succ_connecting;
    int conn_fd[FD_MAX_CONNS], conn_rank[FD_MAX_CONNS]; /* accepted */
    uint64_t next_hb, net_error_ns;
    uint64_t frozen_until; /* this rank was stopped: no accusations */
    int slow_flag;
    /* the successor's silence was reported: the next report is due then
     * (0: none; again while it stays silent, so a report that was dropped
     * or a case that found it alive never leaves a silent rank unwatched) */
    uint64_t hb_missed_next;
    _Atomic uint32_t seq;
    fd_corr_t corr;
    fd_case_t cases[FD_MAX_CASES];
    fd_probe_t probes[FD_MAX_PROBES];
    fd_out_t out[FD_MAX_OUT];
    /* shutdown and ending */
    int leaving, left, done, ending, reported;
    int ft_going_on; /* FT mode: the report being made lets the job go on */
    /* FT mode: the head's program had finished (exit status below) when a
     * loss was found: the job ends with that status */
    int ft_finished;
    atomic_int program_done; /* the head: main returned or exit() ran */
    int program_status;
    uint64_t leave_next, end_at, left_at;
    _Atomic uint32_t left_word; /* the main thread waits on it in fini */
    atomic_int sigterm, stop;
    atomic_int shutting; /* this rank's runtime began its shutdown */
    atomic_int started;  /* this rank's runtime finished its start-up */
    /* nonzero while a rank is under suspicion here: symptoms not yet
     * settled, or a case not yet decided (FT mode: forks wait for it) */
    atomic_int unsettled;
    pthread_t thread;
} fd_state_t;

extern fd_state_t hcrt__fd;

/* fd_main.c */
uint64_t hcrt__fd_now(void);
/* Job time: seconds since rank 0 published its record, on the wall
 * clock, so that ranks' times compare (docs/faults.md). */
double hcrt__fd_jobtime(uint64_t ns);
uint64_t hcrt__fd_mono_at(double jobtime);

/* fd_ring.c */
void hcrt__fd_ring_update(void);
void hcrt__fd_on_heartbeat(const fd_msg_t *m);
/* Any thread: a heartbeat now, so the watcher knows the new activity
 * (the runtime's start-up ended, its shutdown begins). */
void hcrt__fd_heartbeat_now(void);
void hcrt__fd_send_heartbeat(fd_state_t *f);
void hcrt__fd_watch(fd_state_t *f, uint64_t now);
uint64_t hcrt__fd_watch_next(const fd_state_t *f);
void hcrt__fd_on_conn(int i);
void hcrt__fd_on_succ_conn(fd_state_t *f);

/* fd_net.c */
int hcrt__fd_net_open(fd_rec_t *mine);
int hcrt__fd_exchange(MPI_Comm comm, fd_rec_t *mine);
void hcrt__fd_peers_init(const fd_rec_t *all);
void hcrt__fd_send(int to, int type, fd_msg_t *m);
int hcrt__fd_recv(fd_wire_t *w, size_t *len);
/* A nonblocking connection to rank's detector port: the socket, or
 * FD_CONN_REFUSED / FD_CONN_UNREACH when the answer came at once, or -1. */
#define FD_CONN_REFUSED (-2)
#define FD_CONN_UNREACH (-3)
int hcrt__fd_connect_start(int rank);
/* Once writable: 0 connected, FD_CONN_REFUSED or FD_CONN_UNREACH. */
int hcrt__fd_connect_result(int fd);
void hcrt__fd_accept(void);
uint32_t hcrt__fd_proc_probe(int rank);
/* Same host: whether rank's detector thread is runnable (waiting for a
 * CPU or on one) rather than asleep. */
int hcrt__fd_detector_runnable(int rank);
int hcrt__fd_own_link_down(void);
void hcrt__fd_send_hello(int fd);

/* fd_tree.c */
void hcrt__fd_intake_drain(void);
/* Returns 0 when the symptom was dropped (this rank is frozen, done, or
 * the subject already lost): a watcher tries again later. */
int hcrt__fd_symptom(int subject, uint32_t ev, double since, double gap,
                     const char *doing);
void hcrt__fd_on_symptom(const fd_msg_t *m);
void hcrt__fd_on_ack(const fd_msg_t *m);
void hcrt__fd_tree_timers(uint64_t now);
int hcrt__fd_acting_root(int exclude);
int hcrt__fd_is_root(void);
uint64_t hcrt__fd_tree_next(void);
void hcrt__fd_hook_wait(int peer, const char *what, double waited);
void hcrt__fd_hook_event(int rank, int type, void *arg);

/* fd_case.c */
void hcrt__fd_case_open(const fd_group_t *g);
void hcrt__fd_case_timers(uint64_t now);
uint64_t hcrt__fd_case_next(void);
void hcrt__fd_on_pong(const fd_msg_t *m);
void hcrt__fd_on_probe_req(const fd_msg_t *m);
void hcrt__fd_on_probe_res(const fd_msg_t *m);
void hcrt__fd_on_lastword(const unsigned char *buf, size_t len);
int hcrt__fd_probe_fds(struct pollfd *p, int max);
void hcrt__fd_probe_ready(int fd);
int hcrt__fd_cases_open(void);
/* An undecided case opened before monotonic time t. */
int hcrt__fd_case_before(uint64_t t);

/* fd_report.c */
void hcrt__fd_report(void);
void hcrt__fd_report_slow(const fd_case_t *c);
/* (Re)writes the JSON report (HCRT_FAULT_REPORT), if asked for. */
void hcrt__fd_report_json(void);

/* fd_end.c */
void hcrt__fd_end_init(void);
void hcrt__fd_end_job(int report);
void hcrt__fd_on_end(const fd_msg_t *m);
_Noreturn void hcrt__fd_exit(int status);
void hcrt__fd_leave_timers(uint64_t now);
void hcrt__fd_on_leave(const fd_msg_t *m);
void hcrt__fd_on_left(const fd_msg_t *m);
void hcrt__fd_on_left_ack(const fd_msg_t *m);
void hcrt__fd_sigterm_check(void);
void hcrt__fd_kill_failed(void);
/* "<what> <status> <rank>" to hcrun (HCRT_FAULT_LAUNCHER), if any. */
void hcrt__fd_notify_launcher(const char *what, int status);

/* fd_inject.c */
void hcrt__fd_inject_init(void);
void hcrt__fd_inject_timers(uint64_t now);
uint64_t hcrt__fd_inject_next(void);
void hcrt__fd_inject_phase(const char *phase);
/* The detector is off: injections still happen (from a thread of their
 * own), which shows what a failure does to a job without it. */
void hcrt__fd_inject_alone(void);

/* fd_ft.c */
void hcrt__fd_ft_init(int detector_on);
void hcrt__fd_ft_lost(int rank);
void hcrt__fd_on_lost(const fd_msg_t *m);
int hcrt__fd_ft_survivable(void);
/* The acting root: the head's program had finished, and every open case
 * is a worker: the job can end with the program's own status. */
int hcrt__fd_ft_finished(void);
/* When this rank's next FT-mode heartbeat to the head is due. */
uint64_t hcrt__fd_ft_next(void);
void hcrt__fd_ft_go_on(void);
void hcrt__fd_ft_timers(void);
/* Why FT mode could not recover (hcrt__ft_unrecoverable), or NULL. */
const char *hcrt__fd_ft_why(void);

#endif /* HCRT_FD_INT_H */
