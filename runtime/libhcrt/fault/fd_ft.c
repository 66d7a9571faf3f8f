/*
 * fd_ft.c - FT mode (ft.h): the acting root reports a lost worker and the
 * job goes on; every survivor learns the loss (FD_LOST), marks the rank
 * failed for its waits and runs the modules' callbacks. What cannot go on
 * ends through hcrt__ft_unrecoverable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/fault/fd_int.h"
#include "libhcrt/fault/ft.h"

#define FT_MAX_CBS 8
#define FT_LOST_SENDS 3 /* FD_LOST is a datagram: sent a few times */

static int ft_on;
static struct {
    hcrt_ft_lost_cb cb;
    void *arg;
} cbs[FT_MAX_CBS];
static atomic_int ncbs;
static atomic_int end_req;
static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
static long n_losses, n_tasks, n_bytes;
static double redo_s;

int hcrt__ft_on(void)
{
    return ft_on;
}

int hcrt__ft_lost(int rank)
{
    return hcrt__wait_is_failed(rank);
}

int hcrt__ft_nlost(void)
{
    return hcrt__wait_nfailed();
}

double hcrt__ft_await_settled(void)
{
    fd_state_t *f = &hcrt__fd;
    if (!ft_on || !atomic_load(&f->unsettled))
        return 0;
    /* a suspicion turns into a case after the correlation window, and a
     * case is decided within the probe time */
    uint64_t t0 = hcrt__fd_now();
    uint64_t end = t0 + (uint64_t)((f->window + f->probe_time + 0.25) * 1e9);
    struct timespec nap = {0, 1000000};
    while (atomic_load(&f->unsettled) && hcrt__fd_now() < end)
        nanosleep(&nap, NULL);
    return (double)(hcrt__fd_now() - t0) * 1e-9;
}

#define GATE_PROC_NS 5000000ULL /* same-host process states: every 5 ms */
#define HEAD_HB_NS 100000000ULL /* FT mode: workers' heartbeats to the head */
#define GATE_LATE_NS (3 * HEAD_HB_NS)

static uint64_t head_hb_next;

/* FT mode: every worker also tells the head every 0.1 s (or its period,
 * if shorter) that it is alive, for the fork gate: the ring's heartbeats
 * go to one watcher every HCRT_FAULT_PERIOD. */
static void head_heartbeat(fd_state_t *f)
{
    uint64_t now = hcrt__fd_now();
    if (!ft_on || f->rank == 0 || f->ending || now < head_hb_next ||
        f->peers[0].state == P_FAILED)
        return;
    fd_msg_t m = {0};
    hcrt__doing_text(m.text, sizeof m.text);
    hcrt__fd_send(0, FD_HB, &m);
    head_hb_next =
        now + (f->period_ns < HEAD_HB_NS ? f->period_ns : HEAD_HB_NS);
}

uint64_t hcrt__fd_ft_next(void)
{
    return ft_on && hcrt__fd.rank != 0 ? head_hb_next : UINT64_MAX;
}

/* Whether worker r looks stopped: its process on this host is stopped or
 * gone, or (another host) its heartbeats to the head stopped for three
 * of their periods. A late heartbeat of a running process on this host is
 * its detector thread descheduled, not a stop. */
static int looks_stopped(fd_state_t *f, int r, uint64_t now, int proc)
{
    const fd_peer_t *p = &f->peers[r];
    uint64_t hb = __atomic_load_n(&p->last_hb_ns, __ATOMIC_RELAXED);
    int late = hb && now > hb + GATE_LATE_NS;
    if (p->same_host && (late || proc))
        return (hcrt__fd_proc_probe(r) & FD_EV_PROC_RUNNING) == 0;
    return late;
}

int hcrt__ft_fork_gate(void)
{
    fd_state_t *f = &hcrt__fd;
    static uint64_t next_proc;
    if (!ft_on || f->rank != 0)
        return 0;
    uint64_t now = hcrt__fd_now(), t0 = now;
    int proc = now >= next_proc, held = 0, lost0 = hcrt__wait_nfailed();
    if (proc)
        next_proc = now + GATE_PROC_NS;
    for (int r = 1; r < f->size; r++)
        held += !hcrt__wait_is_failed(r) && looks_stopped(f, r, now, proc);
    if (!held)
        return 0;
    /* a stop that lasts two heartbeat periods is not a debugger's or a
     * job control's moment: the detector probes the rank then, not after
     * its timeout (and its rules decide) */
    uint64_t ask = now + 2 * f->period_ns;
    uint64_t end = ask + f->timeout_ns +
                   (uint64_t)((f->probe_time * 2 + f->window + 1) * 1e9);
    struct timespec nap = {0, 1000000};
    while (held && (now = hcrt__fd_now()) < end) {
        nanosleep(&nap, NULL);
        held = 0;
        for (int r = 1; r < f->size; r++) {
            if (hcrt__wait_is_failed(r) || !looks_stopped(f, r, now, 1))
                continue;
            held++;
            if (ask && now >= ask)
                hcrt__fd_hook_wait(r, "a fork to every node",
                                   (double)(now - t0) * 1e-9);
        }
        if (ask && now >= ask)
            ask = 0;
    }
    int lost = hcrt__wait_nfailed() > lost0;
    hcrt_info(HCRT_MOD_FAULT,
              "a fork to every node waited %.2f s for a worker that looked "
              "stopped: %s",
              (double)(hcrt__fd_now() - t0) * 1e-9,
              lost   ? "it was lost, the call runs on the head alone"
              : held ? "still no decision, the fork goes on"
                     : "it answers again");
    return lost;
}

int hcrt__ft_live(int *ranks, int max)
{
    int n = 0;
    for (int r = 0; r < hcrt__fd.size && n < max; r++)
        if (!hcrt__wait_is_failed(r))
            ranks[n++] = r;
    return n;
}

void hcrt__ft_on_lost(hcrt_ft_lost_cb cb, void *arg)
{
    int i = atomic_load(&ncbs);
    if (i >= FT_MAX_CBS)
        hcrt_fatal(HCRT_MOD_FAULT, "more than %d FT callbacks", FT_MAX_CBS);
    cbs[i].cb = cb, cbs[i].arg = arg;
    atomic_store(&ncbs, i + 1);
}

/* Decided at start-up, the same on every rank (the settings and the
 * launcher's environment are). */
void hcrt__fd_ft_init(int detector_on)
{
    fd_state_t *f = &hcrt__fd;
    if (!hcrt__config_bool("HCRT_FT") || f->size < 2)
        return;
    const char *why = !detector_on ? "the fault detector (HCRT_FAULT=1)"
                      : !f->recovery
                          ? "Open MPI's --enable-recovery (without it mpirun "
                            "ends the job when a rank dies): run with `hcrun "
                            "--ft`, or `mpirun --enable-recovery`"
                          : NULL;
    if (why) {
        if (f->rank == 0)
            hcrt_warn(HCRT_MOD_FAULT,
                      "HCRT_FT=1 needs %s; FT mode is off, a lost rank ends "
                      "the job",
                      why);
        return;
    }
    ft_on = 1;
    hcrt__wait_set_ft(1);
    if (f->rank == 0)
        hcrt_info(HCRT_MOD_FAULT, "FT mode: the job goes on without a lost "
                                  "worker rank");
}

static char why_text[512];
static atomic_int why_set;

/* A loss before this rank's runtime finished its start-up: the start-up's
 * collectives (communicators, the DSM, the offload engine) need every
 * rank, and this rank may wait in one for the lost rank for ever. The
 * detector's thread ends the job (hcrt__fd_ft_timers), with this line. */
static void lost_in_startup(fd_state_t *f, int rank)
{
    snprintf(why_text, sizeof why_text,
             "it was lost while rank %d was still in the runtime's start-up, "
             "whose collectives need every rank",
             f->rank);
    atomic_store(&why_set, 1);
    hcrt__log_plain(HCRT_MOD_FAULT,
                    "rank %d (host %s) was lost and hcc cannot recover from "
                    "it: %s; the job ends (FT mode recovers from losses after "
                    "the start-up: run the job again)",
                    rank, f->peers[rank].rec.host, why_text);
    atomic_store(&end_req, 1);
}

/* This rank learns that `rank` is lost (the detector's thread). */
void hcrt__fd_ft_lost(int rank)
{
    fd_state_t *f = &hcrt__fd;
    if (rank < 0 || rank >= f->size || rank == f->rank ||
        f->peers[rank].ft_lost)
        return;
    f->peers[rank].ft_lost = 1;
    f->peers[rank].state = P_FAILED;
    hcrt__fd_ring_update();
    hcrt__fd_corr_drop(&f->corr, rank);
    pthread_mutex_lock(&count_lock);
    n_losses++;
    pthread_mutex_unlock(&count_lock);
    if (!atomic_load(&f->started)) {
        lost_in_startup(f, rank);
        return;
    }
    hcrt_info(HCRT_MOD_FAULT, "rank %d is lost; this rank goes on (FT mode)",
              rank);
    /* the modules first (they know what the loss means), then the waits
     * involving the rank return or end the job */
    int n = atomic_load(&ncbs);
    for (int i = 0; i < n; i++)
        cbs[i].cb(rank, cbs[i].arg);
    hcrt__wait_peer_failed(rank);
}

void hcrt__fd_on_lost(const fd_msg_t *m)
{
    hcrt__fd_ft_lost(m->subject);
}

/* Every decided failure not yet dealt with is a worker's, not this rank
 * cut off. */
static int workers_only(const fd_state_t *f)
{
    for (int i = 0; i < FD_MAX_CASES; i++) {
        const fd_case_t *c = &f->cases[i];
        if (c->used && c->decided && !c->ft_done &&
            hcrt__fd_is_failure(c->diag) &&
            (c->subject == 0 || c->diag == FD_DIAG_SELF_CUT))
            return 0;
    }
    return 1;
}

/* The acting root: can the job go on without the ranks its open report
 * names? Only in FT mode, from the head after its start-up (see
 * lost_in_startup), outside the shutdown, and when no case is the head or
 * this rank cut off. */
int hcrt__fd_ft_survivable(void)
{
    fd_state_t *f = &hcrt__fd;
    if (!ft_on || f->rank != 0 || !atomic_load(&f->started) ||
        atomic_load(&f->shutting) || f->ending)
        return 0;
    return workers_only(f);
}

/* The shutdown's collectives need every rank, but once the head's program
 * finished there is nothing left to recover: its output is complete. */
int hcrt__fd_ft_finished(void)
{
    fd_state_t *f = &hcrt__fd;
    if (!ft_on || f->rank != 0 || !atomic_load(&f->program_done) || f->ending)
        return 0;
    return workers_only(f);
}

/* The acting root after the report: every survivor learns the losses;
 * a lost process still on this host (stopped) is killed, and one that
 * comes back elsewhere is told to end. */
void hcrt__fd_ft_go_on(void)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_CASES; i++) {
        fd_case_t *c = &f->cases[i];
        if (!c->used || !c->decided || c->ft_done ||
            !hcrt__fd_is_failure(c->diag))
            continue;
        c->ft_done = 1;
        for (int k = 0; k < FT_LOST_SENDS; k++)
            for (int r = 0; r < f->size; r++) {
                fd_msg_t m = {.subject = c->subject, .status = f->status};
                if (r == c->subject)
                    hcrt__fd_send(r, FD_END, &m);
                else if (r != f->rank && f->peers[r].state != P_FAILED)
                    hcrt__fd_send(r, FD_LOST, &m);
            }
        hcrt__fd_ft_lost(c->subject);
        hcrt__fd_notify_launcher("HCRT-FT-LOST", c->subject);
    }
    hcrt__fd_kill_failed();
    f->reported = 0; /* a later loss gets its own report */
}

const char *hcrt__fd_ft_why(void)
{
    return atomic_load(&why_set) ? why_text : NULL;
}

/* After a loss the head tells hcrun every second that it is alive: when
 * a cut node's Open MPI daemon makes mpirun end the job (ORTE 4.1), mpirun
 * may kill the ranks and then wait for that daemon for ever; hcrun stops
 * it once the head fell silent (hcrun_super.c). */
#define ALIVE_NS 1000000000ULL

static void tell_alive(fd_state_t *f)
{
    static uint64_t next;
    uint64_t now = hcrt__fd_now();
    if (f->rank != 0 || !ft_on || !hcrt__wait_nfailed() || now < next)
        return;
    next = now + ALIVE_NS;
    hcrt__fd_notify_launcher("HCRT-FT-ALIVE", 0);
}

/* The detector's thread: the end that hcrt__ft_unrecoverable asked for. */
void hcrt__fd_ft_timers(void)
{
    tell_alive(&hcrt__fd);
    head_heartbeat(&hcrt__fd);
    if (!atomic_exchange(&end_req, 0))
        return;
    if (hcrt__fd.rank == 0 || hcrt__fd_is_root())
        hcrt__fd_report_json();
    hcrt__fd_end_job(1);
}

_Noreturn void hcrt__ft_unrecoverable(int rank, const char *fmt, ...)
{
    fd_state_t *f = &hcrt__fd;
    char *why = why_text;
    va_list ap;
    static atomic_int said;
    if (atomic_exchange(&said, 1))
        goto park; /* another thread said why */
    va_start(ap, fmt);
    vsnprintf(why, sizeof why_text, fmt, ap);
    va_end(ap);
    atomic_store(&why_set, 1);
    hcrt__log_plain(
        HCRT_MOD_FAULT,
        "rank %d (host %s) was lost and hcc cannot recover "
        "from it: %s; the job ends",
        rank, rank >= 0 && rank < f->size ? f->peers[rank].rec.host : "?", why);
    fflush(stderr);
    if (!f->on)
        _exit(f->status);
    atomic_store(&end_req, 1);
    uint64_t one = 1;
    if (pthread_equal(pthread_self(), f->thread))
        hcrt__fd_ft_timers();
    else if (write(f->efd, &one, sizeof one) < 0)
        _exit(f->status);
park: /* the detector ends this process; a minute later, this thread does */
    for (int i = 0; i < 600; i++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    _exit(f->status);
}

MPI_Comm hcrt__ft_comm(MPI_Comm comm)
{
    MPI_Comm out = hcrt__wait_live_comm(comm);
    if (out == MPI_COMM_NULL && comm != MPI_COMM_NULL)
        hcrt_fatal(HCRT_MOD_FAULT, "cannot build a communicator over the "
                                   "surviving ranks");
    return out;
}

static atomic_long n_head_alone;

void hcrt__ft_count_head_alone(void)
{
    atomic_fetch_add(&n_head_alone, 1);
}

long hcrt__ft_head_alone(void)
{
    return atomic_load(&n_head_alone);
}

void hcrt__ft_count_redo(long tasks, long bytes, double seconds)
{
    pthread_mutex_lock(&count_lock);
    n_tasks += tasks, n_bytes += bytes, redo_s += seconds;
    pthread_mutex_unlock(&count_lock);
}

void hcrt__ft_counts(long *losses, long *tasks, long *bytes, double *seconds)
{
    pthread_mutex_lock(&count_lock);
    *losses = n_losses, *tasks = n_tasks, *bytes = n_bytes;
    *seconds = redo_s;
    pthread_mutex_unlock(&count_lock);
}
