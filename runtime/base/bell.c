/*
 * bell.c - wake-ups of threads that poll MPI (bell.h): a local eventfd and
 * one UDP datagram per burst of messages to a peer. Used by the DSM
 * service thread (runtime/dsm, HCRT_DSM_BELL) and the event gate
 * (HCRT_EVENT_BELL).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/log.h"
#include "base/route.h"

#define VERIFY_MS 500 /* start-up: how long to wait for the test bells */

typedef hcrt_route_rec_t bell_rec_t;

static int drain_socket(hcrt_bell_t *b, uint64_t *from_mask)
{
    int n = 0;
    uint32_t who;
    ssize_t got;
    while ((got = recv(b->sfd, &who, sizeof who, MSG_DONTWAIT)) >= 0) {
        if (from_mask && got == sizeof who && (int)who < b->size)
            from_mask[who / 64] |= 1ULL << (who % 64);
        n++;
    }
    return n;
}

static void close_all(hcrt_bell_t *b)
{
    if (b->sfd >= 0)
        close(b->sfd);
    if (b->efd >= 0)
        close(b->efd);
    free(b->to);
    free(b->marked);
    free(b->last_ns);
    b->last_ns = NULL;
    b->sfd = b->efd = -1;
    b->to = NULL;
    b->marked = NULL;
    b->nmarked = 0;
    b->inbound_ok = 0;
}

/* Collective over comm (every rank calls it, whatever happens). */
hcrt_status_t hcrt__bell_init(hcrt_bell_t *b, MPI_Comm comm, int mode,
                              int module, const char *what, const char *setting)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    *b = (hcrt_bell_t){.efd = -1,
                       .sfd = -1,
                       .rank = me,
                       .size = n,
                       .module = module,
                       .what = what};
    bell_rec_t mine = {0};
    hcrt_status_t st = HCRT_OK; /* returned after the collectives */
    b->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (b->efd < 0) {
        hcrt_error(b->module, "eventfd for the %s bells: %s", what,
                   strerror(errno));
        st = HCRT_ERR_IO;
    }
    if (mode != HCRT_BELL_OFF && n > 1) {
        b->sfd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        socklen_t al = sizeof a;
        if (b->sfd >= 0 &&
            (bind(b->sfd, (struct sockaddr *)&a, sizeof a) != 0 ||
             getsockname(b->sfd, (struct sockaddr *)&a, &al) != 0))
            close(b->sfd), b->sfd = -1;
        if (b->sfd >= 0)
            hcrt__route_self(&mine, a.sin_port);
    }
    bell_rec_t *all = calloc((size_t)n, sizeof *all);
    int *rang = calloc((size_t)n, sizeof(int)),
        *heard = calloc((size_t)n, sizeof(int));
    b->to = calloc((size_t)n, sizeof *b->to);
    b->marked = calloc((size_t)n, 1);
    b->last_ns = calloc((size_t)n, sizeof *b->last_ns);
    uint64_t *from = calloc((size_t)(n + 63) / 64, sizeof(uint64_t));
    if (!all || !rang || !heard || !b->to || !b->marked || !b->last_ns || !from)
        hcrt_fatal(b->module, "out of memory setting up %s bells", what);
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE,
                  comm);
    uint32_t who = (uint32_t)me;
    for (int k = 0; k < n; k++) {
        uint32_t ad = k != me && mine.port && all[k].port
                          ? hcrt__route_to(&mine, &all[k])
                          : 0;
        if (!ad)
            continue;
        b->to[k] = (struct sockaddr_in){.sin_family = AF_INET,
                                        .sin_port = all[k].port,
                                        .sin_addr.s_addr = ad};
        rang[k] =
            sendto(b->sfd, &who, sizeof who, 0, (struct sockaddr *)&b->to[k],
                   sizeof b->to[k]) == (ssize_t)sizeof who;
    }
    /* who rang me: then wait (bounded) until those bells arrived */
    MPI_Alltoall(rang, 1, MPI_INT, heard, 1, MPI_INT, comm);
    int expect = 0, got = 0;
    for (int k = 0; k < n; k++)
        expect += heard[k];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (b->sfd >= 0 && expect > 0) {
        drain_socket(b, from);
        got = 0;
        for (int k = 0; k < n; k++)
            got += heard[k] && (from[k / 64] >> (k % 64) & 1);
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms =
            (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (got == expect || ms >= VERIFY_MS)
            break;
        struct pollfd p = {b->sfd, POLLIN, 0};
        poll(&p, 1, 10);
    }
    /* heard[k]: k's bell reached me; tell k (rang[k] comes back as "mine
     * reached k") */
    for (int k = 0; k < n; k++)
        heard[k] = heard[k] && (from[k / 64] >> (k % 64) & 1);
    MPI_Alltoall(heard, 1, MPI_INT, rang, 1, MPI_INT, comm);
    int routes = 0, inbound = 0;
    for (int k = 0; k < n; k++) {
        if (!rang[k])
            b->to[k].sin_port = 0;
        routes += rang[k];
        inbound += heard[k];
    }
    b->inbound_ok = n > 1 && inbound == n - 1;
    int ok = b->inbound_ok || n == 1, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    hcrt_debug(b->module,
               "%s bells: %d of %d peers rung over UDP, %d ring this rank%s",
               what, routes, n - 1, inbound,
               b->inbound_ok ? " (blocks when contended)" : "");
    free(all), free(rang), free(heard), free(from);
    if (mode == HCRT_BELL_ON && !all_ok) {
        hcrt_error(b->module,
                   "%s=1 but %s: UDP datagrams between the ranks' "
                   "interfaces did not arrive (firewall, or no shared subnet); "
                   "allow UDP between the nodes or set %s=auto",
                   setting,
                   ok ? "another rank cannot be rung"
                      : "this rank cannot be rung",
                   setting);
        st = HCRT_ERR_IO;
    }
    if (st != HCRT_OK)
        close_all(b);
    return st;
}

void hcrt__bell_fini(hcrt_bell_t *b)
{
    hcrt_debug(b->module, "%s bells: rang %llu, woken by %llu", b->what,
               (unsigned long long)atomic_load(&b->rung),
               (unsigned long long)atomic_load(&b->woken));
    close_all(b);
}

int hcrt__bell_inbound_ok(const hcrt_bell_t *b)
{
    return b->inbound_ok;
}

uint64_t hcrt__bell_wakeups(hcrt_bell_t *b)
{
    return atomic_load_explicit(&b->woken, memory_order_relaxed);
}

/* One thread only: a message went to `dest`; its bell rings at the next
 * hcrt__bell_flush, once per burst (the DSM's release sending a diff per
 * page rang once per page: 6.4 -> 9.5 us per 4 KiB dirty page across
 * network namespaces). */
void hcrt__bell_mark(hcrt_bell_t *b, int dest)
{
    if (b->to && b->to[dest].sin_port && !b->marked[dest]) {
        b->marked[dest] = 1;
        b->nmarked++;
    }
}

/* One datagram carrying this rank's number to peer k (a route exists). */
static void send_bell(hcrt_bell_t *b, int k)
{
    uint32_t who = (uint32_t)b->rank;
    if (sendto(b->sfd, &who, sizeof who, MSG_DONTWAIT,
               (struct sockaddr *)&b->to[k], sizeof b->to[k]) > 0)
        atomic_fetch_add_explicit(&b->rung, 1, memory_order_relaxed);
}

void hcrt__bell_flush(hcrt_bell_t *b)
{
    for (int k = 0; b->nmarked > 0 && k < b->size; k++) {
        if (!b->marked[k])
            continue;
        b->marked[k] = 0;
        b->nmarked--;
        send_bell(b, k);
    }
}

void hcrt__bell_ring(hcrt_bell_t *b, int dest, int64_t gap_ns)
{
    if (dest == b->rank) {
        hcrt__bell_local(b);
        return;
    }
    if (!b->to || !b->to[dest].sin_port)
        return;
    if (gap_ns > 0) { /* a sendto costs ~1.5 us; a peer rung just now
                         still polls */
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        int64_t now = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
        int64_t last =
            atomic_load_explicit(&b->last_ns[dest], memory_order_relaxed);
        if (now - last < gap_ns)
            return;
        atomic_store_explicit(&b->last_ns[dest], now, memory_order_relaxed);
    }
    send_bell(b, dest);
}

/* Async-signal-safe (the DSM fault handler's submit). */
void hcrt__bell_local(hcrt_bell_t *b)
{
    uint64_t one = 1;
    ssize_t rc = write(b->efd, &one, sizeof one);
    (void)rc;
}

/* Blocks until a bell or `ns` passed; returns at once when one is
 * pending. 1 when woken by a bell. */
int hcrt__bell_wait(hcrt_bell_t *b, long ns)
{
    uint64_t v;
    int rung = (b->sfd >= 0 && drain_socket(b, NULL) > 0) |
               (read(b->efd, &v, sizeof v) == (ssize_t)sizeof v);
    if (!rung) {
        struct pollfd p[2] = {{b->efd, POLLIN, 0}, {b->sfd, POLLIN, 0}};
        struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
        if (ppoll(p, b->sfd >= 0 ? 2 : 1, &ts, NULL) > 0) {
            rung = 1;
            if (p[0].revents && read(b->efd, &v, sizeof v) < 0)
                v = 0; /* taken by nobody else: cannot fail */
            if (b->sfd >= 0 && p[1].revents)
                drain_socket(b, NULL);
        }
    }
    if (rung)
        atomic_fetch_add_explicit(&b->woken, 1, memory_order_relaxed);
    return rung;
}

/* ---- helper threads: a short time slice ---------------------------------
 *
 * A bell wakes a blocked helper thread at once, but on a core where a
 * computation (a kernel, a CPU hog, the head's loop) runs, the woken
 * thread still waited for the running task's slice: EEVDF (Linux 6.6+)
 * preempts for a waking task only when its virtual deadline comes first,
 * and a task's deadline is one slice (3 ms by default) after its start.
 * Since Linux 6.12 a thread may ask for a shorter slice (sched_attr's
 * sched_runtime for SCHED_OTHER): its deadlines come early, so it runs as
 * soon as it wakes, and it is preempted after that slice if it keeps the
 * core. Its share of the core does not change. Task-Bench's fft graph with
 * 3 devices, two sharing a core with a CPU hog: 0.60 s -> 0.21 s (HEFT),
 * 0.73-0.76 s -> 0.22-0.24 s (round robin), with bench/taskbench/run.sh.
 * Older kernels ignore the request. Used by the event gate and data
 * handler; not by the DSM service thread (see service.c). */
struct hcrt_sched_attr { /* <linux/sched/types.h>, SCHED_ATTR_SIZE_VER0 */
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
};

/* ---- pauses of a thread waiting for MPI --------------------------------- */

#define PAUSE_LOST_NS 1000000L        /* a yield this long lost the core */
#define PAUSE_STRIKE_NS 200000000ULL  /* two lost within this: contended */
#define PAUSE_CONTENDED_NS 100000000U /* then nap, not yield, this long */
#define PAUSE_NAP_MIN_NS 10000L
#define PAUSE_NAP_MAX_NS 500000L

static _Thread_local uint64_t pause_contended_until, pause_lost_at;

void hcrt__pause_begin(hcrt_pause_t *p)
{
    p->start = hcrt__now_ns();
    p->nap_ns = PAUSE_NAP_MIN_NS;
}

void hcrt__pause(hcrt_pause_t *p, uint64_t spin_ns)
{
    uint64_t t = hcrt__now_ns();
    if (t - p->start < spin_ns && t >= pause_contended_until) {
        sched_yield();
        uint64_t t1 = hcrt__now_ns();
        if (t1 - t > PAUSE_LOST_NS) {
            /* one lost yield can be a start-up blip (other ranks' threads
             * starting): a short run of empty regions then napped
             * throughout, 12 us a region instead of 4 */
            if (pause_lost_at && t1 - pause_lost_at < PAUSE_STRIKE_NS)
                pause_contended_until = t1 + PAUSE_CONTENDED_NS;
            pause_lost_at = t1;
        }
        return;
    }
    struct timespec ts = {0, p->nap_ns};
    nanosleep(&ts, NULL);
    if (p->nap_ns < PAUSE_NAP_MAX_NS)
        p->nap_ns *= 2;
}

void hcrt__pause_bell(hcrt_pause_t *p, uint64_t spin_ns, hcrt_bell_t *b)
{
    if (!b || !b->inbound_ok || hcrt__now_ns() - p->start < spin_ns) {
        hcrt__pause(p, spin_ns);
        return;
    }
    if (hcrt__bell_wait(b, p->nap_ns)) {
        /* the message may trail its bell: poll (yield) again for spin_ns */
        hcrt__pause_begin(p);
        return;
    }
    if (p->nap_ns < HCRT_BELL_NAP_MAX_NS)
        p->nap_ns *= 2;
}

void hcrt__helper_thread_start(const char *name, int responsive)
{
    prctl(PR_SET_NAME, name);
    prctl(PR_SET_TIMERSLACK, 1000UL); /* short sleeps must stay short */
    int64_t us = hcrt__config_int("HCRT_HELPER_SLICE_US");
    if (!responsive || us <= 0)
        return;
#ifdef SYS_sched_setattr
    struct hcrt_sched_attr a = {.size = sizeof a,
                                .runtime = (uint64_t)us * 1000};
    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
        hcrt_debug(HCRT_MOD_CORE, "thread %s: no short time slice (%s)", name,
                   strerror(errno));
#endif
}
