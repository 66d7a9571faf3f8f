/*
 * fd_end.c - how a job ends: after a failure (no recovery yet: every
 * surviving rank exits with HCRT_FAULT_STATUS, within bounded time,
 * whatever it was doing), and normally (the leave protocol, so that a
 * rank that stops during shutdown is still found).
 *
 * After the report the acting root tells every live rank to end (END,
 * repeated), tells the launcher (hcrun, HCRT_FAULT_LAUNCHER), kills a
 * failed process still there on its own host (a stopped one), and under
 * Open MPI's --enable-recovery also asks its launcher daemon to end the
 * job (otherwise mpirun waits for a stopped rank forever and exits 0;
 * docs/faults.md). Without recovery mpirun ends the job as soon as one
 * rank exits non-zero. A watchdog thread makes the exit itself bounded.
 *
 * Runtime waits on a failed peer park (wait.h's policy): the detector
 * ends the process.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/lastword.h"
#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/fault/fd_int.h"
#include "libhcrt/fault/ft.h"

#define END_RESEND_NS 20000000ULL /* END again every 20 ms ... */
#define END_LINGER_NS 60000000ULL /* ... for 60 ms, then exit */
#define WATCHDOG_S 5              /* an exit that hangs ends anyway */
#define LEAVE_RESEND_NS 200000000ULL
#define LEFT_ACK_NS                                                            \
    1000000000ULL /* then a missing acknowledgement is a                       \
                     symptom: stopped after it left? */

static struct {
    _Atomic uint32_t armed;
    int status;
    pthread_t thread;
} dog;
static atomic_int fini_wanted;

static void futex_wait(_Atomic uint32_t *w, uint32_t val, long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, val,
            ns > 0 ? &ts : NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL,
            NULL, 0);
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&dog.armed))
        futex_wait(&dog.armed, 0, 0);
    struct timespec ts = {WATCHDOG_S, 0};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    _exit(dog.status);
}

_Noreturn void hcrt__fd_exit(int status)
{
    dog.status = status;
    atomic_store(&dog.armed, 1);
    futex_wake(&dog.armed);
    hcrt__lastword_off();
    fflush(NULL);
    _exit(status);
}

/* Without recovery a wait on a failed peer never returns: the detector
 * ends this process; a minute later, if it has not, the wait does. */
static hcrt_status_t wait_policy(int peer, const char *what)
{
    if (hcrt__ft_on())
        hcrt__ft_unrecoverable(peer,
                               "%s waited for it, and that wait cannot "
                               "go on without it",
                               what ? what : "a wait");
    for (int i = 0; i < 600; i++) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
    }
    _exit(hcrt__fd.status);
}

static _Atomic uint64_t sigterm_ns; /* when SIGTERM arrived */

static void on_sigterm(int sig)
{
    (void)sig;
    uint64_t one = 1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    atomic_store(&sigterm_ns,
                 (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    /* the others then know this rank did not fail: it was ended */
    hcrt__lastword(HCRT_LASTWORD_END, "terminated by SIGTERM");
    atomic_store(&hcrt__fd.sigterm, 1);
    if (write(hcrt__fd.efd, &one, sizeof one) < 0)
        return;
}

void hcrt__fd_end_init(void)
{
    hcrt__wait_set_hooks(hcrt__fd_hook_wait, wait_policy);
    if (pthread_create(&dog.thread, NULL, watchdog_main, NULL) == 0)
        pthread_detach(dog.thread);
    struct sigaction old;
    if (sigaction(SIGTERM, NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigterm;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
    }
}

/* "HCRT-FAULT-END <status> <rank>" to hcrun, which stops a launcher that
 * cannot end the job itself (a cut-off node's daemon). */
void hcrt__fd_notify_launcher(const char *what, int status)
{
    fd_state_t *f = &hcrt__fd;
    const char *spec = hcrt__config_string("HCRT_FAULT_LAUNCHER");
    const char *colon = spec ? strrchr(spec, ':') : NULL;
    char msg[64], addr[64];
    if (!colon || f->udp < 0)
        return;
    int port = atoi(colon + 1),
        n = snprintf(msg, sizeof msg, "%s %d %d\n", what, status, f->rank);
    for (const char *a = spec; a < colon;) {
        size_t len = strcspn(a, ",:");
        snprintf(addr, sizeof addr, "%.*s", (int)len, a);
        struct sockaddr_in to = {.sin_family = AF_INET,
                                 .sin_port = htons((uint16_t)port)};
        if (inet_pton(AF_INET, addr, &to.sin_addr) == 1)
            for (int k = 0; k < 3; k++)
                sendto(f->udp, msg, (size_t)n, MSG_DONTWAIT,
                       (struct sockaddr *)&to, sizeof to);
        a += len + (a[len] == ',');
    }
}

void hcrt__fd_kill_failed(void)
{
    fd_state_t *f = &hcrt__fd;
    for (int r = 0; r < f->size; r++) {
        if (f->peers[r].state != P_FAILED || !f->peers[r].same_host)
            continue;
        uint32_t st = hcrt__fd_proc_probe(r);
        if (st & (FD_EV_PROC_STOPPED | FD_EV_PROC_RUNNING))
            kill(f->peers[r].rec.pid, SIGKILL);
    }
}

static void notify_launcher(void)
{
    hcrt__fd_notify_launcher("HCRT-FAULT-END", hcrt__fd.status);
}

/* FT mode: the head finished. hcrun stops an mpirun that waits for a
 * lost node's daemon (a cut link), and knows that the head did not die:
 * under --enable-recovery mpirun may exit 0 when the head was killed. */
void hcrt__fault_ft_done(int status)
{
    fd_state_t *f = &hcrt__fd;
    if (f->rank != 0 || !hcrt__ft_on())
        return;
    if (hcrt__ft_nlost() && f->peers) { /* what the recovery re-did */
        char lost[256] = "";
        size_t k = 0;
        for (int r = 1; r < f->size && k < sizeof lost - 80; r++)
            if (hcrt__ft_lost(r))
                k += (size_t)snprintf(lost + k, sizeof lost - k, "%s%d (%s)",
                                      k ? ", " : "", r, f->peers[r].rec.host);
        long n, tasks, bytes;
        double s;
        hcrt__ft_counts(&n, &tasks, &bytes, &s);
        hcrt__log_plain(HCRT_MOD_FAULT,
                        "FT mode: the job finished without rank(s) %s: %ld "
                        "target task(s) re-run on the survivors, %ld bytes "
                        "sent again, %.2f s from the tasks' first failures "
                        "to their completion, %ld parallel region call(s) "
                        "run on the head alone after the loss",
                        lost, tasks, bytes, s, hcrt__ft_head_alone());
    }
    hcrt__fd_notify_launcher("HCRT-FT-DONE", status & 0xff);
}

/* The launcher daemon that started this rank (under --enable-recovery
 * it does not end the job when ranks exit; a SIGTERM makes it). */
static void signal_launcher_daemon(void)
{
    char path[64], comm[32] = "";
    pid_t pp = getppid();
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pp);
    FILE *fp = fopen(path, "re");
    if (fp) {
        if (!fgets(comm, sizeof comm, fp))
            comm[0] = 0;
        fclose(fp);
    }
    comm[strcspn(comm, "\n")] = 0;
    static const char *const daemons[] = {"mpirun", "mpiexec", "orterun",
                                          "orted",  "prterun", "prted"};
    for (size_t i = 0; i < sizeof daemons / sizeof daemons[0]; i++)
        if (!strcmp(comm, daemons[i])) {
            kill(pp, SIGTERM);
            return;
        }
}

static void send_end(void)
{
    fd_state_t *f = &hcrt__fd;
    for (int r = 0; r < f->size; r++) {
        if (r == f->rank || f->peers[r].state == P_FAILED)
            continue;
        fd_msg_t m = {.status = f->status};
        hcrt__fd_send(r, FD_END, &m);
    }
}

void hcrt__fd_end_job(int report)
{
    fd_state_t *f = &hcrt__fd;
    if (f->ending)
        return;
    f->ending = 1;
    if (report)
        notify_launcher();
    send_end();
    hcrt__fd_kill_failed();
    if (f->recovery)
        signal_launcher_daemon();
    f->end_at = hcrt__fd_now() + END_LINGER_NS;
    f->leave_next = hcrt__fd_now() + END_RESEND_NS;
}

void hcrt__fd_on_end(const fd_msg_t *m)
{
    hcrt_debug(HCRT_MOD_FAULT, "rank %d ends the job (status %d)", m->h.from,
               m->status);
    /* the sender's status: HCRT_FAULT_STATUS, or the program's (FT mode,
     * a loss after its end: 0 too) */
    hcrt__fd_exit(m->status >= 0 && m->status < 256 ? m->status
                                                    : hcrt__fd.status);
}

/* ---- the leave protocol ------------------------------------------------ */

void hcrt__fault_fini(void)
{
    fd_state_t *f = &hcrt__fd;
    if (!f->on || getpid() != f->peers[f->rank].rec.pid)
        return; /* off, or a forked child without the detector thread */
    hcrt__doing_set(HCRT_DOING_SHUTDOWN, NULL);
    atomic_store(&fini_wanted, 1);
    uint64_t one = 1;
    if (write(f->efd, &one, sizeof one) < 0)
        hcrt_debug(HCRT_MOD_FAULT, "eventfd: %s", strerror(errno));
    while (!atomic_load(&f->left_word))
        futex_wait(&f->left_word, 0, 100000000L);
    atomic_store(&f->stop, 1);
    if (write(f->efd, &one, sizeof one) < 0)
        hcrt_debug(HCRT_MOD_FAULT, "eventfd: %s", strerror(errno));
    pthread_join(f->thread, NULL);
    hcrt__lastword_off();
    f->on = 0;
}

static void left_done(void)
{
    fd_state_t *f = &hcrt__fd;
    f->done = 1;
    atomic_store(&f->left_word, 1);
    futex_wake(&f->left_word);
}

/* The acting root: has every rank that did not fail said it leaves? */
static void check_all_left(void)
{
    fd_state_t *f = &hcrt__fd;
    if (f->left || !f->leaving || !hcrt__fd_is_root())
        return;
    for (int r = 0; r < f->size; r++)
        if (r != f->rank && f->peers[r].state != P_FAILED &&
            !f->peers[r].leaving)
            return;
    f->left = 1;
    f->left_at = hcrt__fd_now();
    f->leave_next = 0; /* LEFT now, then until every rank acknowledged */
}

void hcrt__fd_on_leave(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    f->peers[m->h.from].leaving = 1;
    if (f->left) {
        fd_msg_t r = {0};
        hcrt__fd_send(m->h.from, FD_LEFT, &r);
    }
    check_all_left();
}

void hcrt__fd_on_left(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    fd_msg_t r = {0};
    hcrt__fd_send(m->h.from, FD_LEFT_ACK, &r);
    if (!f->done)
        left_done();
}

/* Has every live rank acknowledged LEFT? (The root's timer resends it to
 * those that have not.) */
static int all_left_acked(const fd_state_t *f)
{
    for (int r = 0; r < f->size; r++)
        if (r != f->rank && f->peers[r].state != P_FAILED &&
            !f->peers[r].left_acked)
            return 0;
    return 1;
}

/* The last acknowledgement ends the root's leave at once, not at its next
 * resend timer (50 ms later: every job's exit waited for it). */
void hcrt__fd_on_left_ack(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    f->peers[m->h.from].left_acked = 1;
    if (f->left && !f->done && all_left_acked(f))
        left_done();
}

/* The root after LEFT: resend it to the ranks that did not acknowledge;
 * done when all did (a rank that exited meanwhile counts as done). */
static void root_left_timers(fd_state_t *f, uint64_t now)
{
    int missing = 0;
    for (int r = 0; r < f->size; r++) {
        fd_peer_t *p = &f->peers[r];
        if (r == f->rank || p->state == P_FAILED || p->left_acked)
            continue;
        if (hcrt__fd_proc_probe(r) == FD_EV_PROC_GONE) {
            p->left_acked = 1;
            continue;
        }
        missing++;
        fd_msg_t m = {0};
        hcrt__fd_send(r, FD_LEFT, &m);
    }
    if (!missing)
        left_done();
    else if (now - f->left_at > LEFT_ACK_NS)
        for (int r = 0; r < f->size; r++)
            if (r != f->rank && f->peers[r].state == P_ALIVE &&
                !f->peers[r].left_acked) {
                f->peers[r].state = P_SUSPECT;
                hcrt__fd_symptom(r, FD_EV_NO_ACK, hcrt__fd_jobtime(now), 0,
                                 f->peers[r].doing);
            }
    f->leave_next = now + LEAVE_RESEND_NS / 4;
}

void hcrt__fd_leave_timers(uint64_t now)
{
    fd_state_t *f = &hcrt__fd;
    if (f->ending) {
        if (now >= f->end_at)
            hcrt__fd_exit(f->status);
        if (now >= f->leave_next) {
            send_end();
            f->leave_next = now + END_RESEND_NS;
        }
        return;
    }
    if (!f->leaving && atomic_load(&fini_wanted)) {
        f->leaving = 1;
        f->peers[f->rank].leaving = 1;
        f->leave_next = now;
    }
    if (!f->leaving || f->done || now < f->leave_next)
        return;
    if (f->left) {
        root_left_timers(f, now);
        return;
    }
    int root = hcrt__fd_acting_root(-1);
    if (root != f->rank) {
        fd_msg_t m = {0};
        hcrt__fd_send(root, FD_LEAVE, &m);
    }
    check_all_left();
    f->leave_next = f->left ? now : now + LEAVE_RESEND_NS;
}

/* ---- SIGTERM: the launcher ends the job ------------------------------- */

/* mpirun ends a job with SIGTERM about a second after a rank died
 * (without --enable-recovery). By then the dead rank's watcher saw its
 * connection close and the root is analyzing, or has reported: a case
 * opened well before the signal holds it until it is decided (seconds at
 * most). Otherwise - the user or the batch system ends the job, and the
 * ranks die of the same SIGTERM within milliseconds - the signal does
 * what it always does, and nothing is reported. */
#define SIGTERM_EARLIER_NS 500000000ULL

void hcrt__fd_sigterm_check(void)
{
    fd_state_t *f = &hcrt__fd;
    if (f->ending || f->reported)
        return;
    if (hcrt__fd_case_before(atomic_load(&sigterm_ns) - SIGTERM_EARLIER_NS)) {
        atomic_store(&f->sigterm, 1); /* again once it is decided */
        return;
    }
    signal(SIGTERM, SIG_DFL);
    raise(SIGTERM);
}
