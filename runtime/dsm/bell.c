/*
 * bell.c - wake-ups of the DSM service threads: a local eventfd, and
 * between ranks one UDP datagram per service-thread pass that sent protocol
 * messages.
 *
 * Why: MPI cannot block without spinning, so the service thread polls it.
 * Alone on its core that is fast; but when the rank's computation shares
 * the core (a thread per core, as HPC jobs run), each sched_yield hands
 * the core over for the rest of a time slice, and a request from another
 * node waited for it: 1.7-4 ms per request to a home busy computing
 * (node 1's first nbody iteration, 10 requests, took 13 ms; 0.9-3 ms
 * with bells). A blocked thread woken by the kernel preempts the
 * computation at once, so while its core is contended the service thread
 * blocks in poll() on these two descriptors instead: the local submitters
 * write the eventfd, and every rank that sends this rank a protocol
 * message rings its UDP port after the pass that sent it. Bells are hints,
 * carrying only the sender's rank: a lost or spurious one costs latency or a
 * wake-up, never correctness (the nap timeouts still bound every wait).
 *
 * Routes: every rank binds a UDP port on all its addresses and publishes
 * the port with its IPv4 interface addresses. A peer in the same network
 * namespace of the same boot is rung on 127.0.0.1; another on its address
 * in a subnet of one of this rank's interfaces (the cluster's network,
 * as Open MPI's TCP path also needs). Start-up rings every route once and
 * keeps only those whose bells arrived; a rank blocks only when every
 * peer's bells reach it (hcrt__dsm_bell_inbound_ok), else it polls as
 * before. HCRT_DSM_BELL=0 turns bells off, =1 makes a missing route an
 * error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dsm/dsm_int.h"
#include "libhcrt/config.h"
#include "libhcrt/log.h"

#define BELL_ADDRS 8
#define VERIFY_MS 500 /* start-up: how long to wait for the test bells */

typedef struct bell_rec {
    uint64_t host; /* boot id and network namespace, hashed */
    uint32_t addr[BELL_ADDRS], mask[BELL_ADDRS]; /* network byte order */
    uint16_t port;
    uint8_t naddr, pad[5];
} bell_rec_t;

static struct {
    int efd, sfd;
    struct sockaddr_in *to; /* per peer; sin_port 0: no route */
    uint8_t *marked;        /* per peer: ring at the next flush */
    int nmarked;
    int inbound_ok; /* every peer's bells reach this rank */
    _Atomic uint64_t rung, woken;
} bell = {.efd = -1, .sfd = -1};

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

/* Same boot id and network namespace: 127.0.0.1 reaches the peer. */
static uint64_t host_key(void)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    char id[64] = {0};
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, id, sizeof id - 1);
        close(fd);
        if (n > 0)
            h = fnv(id, (size_t)n, h);
    }
    struct stat st;
    if (stat("/proc/self/ns/net", &st) == 0) {
        h = fnv(&st.st_dev, sizeof st.st_dev, h);
        h = fnv(&st.st_ino, sizeof st.st_ino, h);
    }
    return h;
}

static void local_addrs(bell_rec_t *r)
{
    struct ifaddrs *ifa = NULL;
    r->naddr = 0;
    if (getifaddrs(&ifa) != 0)
        return;
    for (struct ifaddrs *i = ifa; i && r->naddr < BELL_ADDRS; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            !i->ifa_netmask || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        r->addr[r->naddr] =
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        r->mask[r->naddr] =
            ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;
        r->naddr++;
    }
    freeifaddrs(ifa);
}

/* The address of `peer` this rank can reach, or 0. */
static uint32_t route(const bell_rec_t *me, const bell_rec_t *peer)
{
    if (me->host == peer->host)
        return htonl(INADDR_LOOPBACK);
    for (int j = 0; j < peer->naddr; j++)
        for (int i = 0; i < me->naddr; i++)
            if ((peer->addr[j] & me->mask[i]) == (me->addr[i] & me->mask[i]))
                return peer->addr[j];
    return 0;
}

static int drain_socket(uint64_t *from_mask)
{
    int n = 0;
    uint32_t who;
    ssize_t got;
    while ((got = recv(bell.sfd, &who, sizeof who, MSG_DONTWAIT)) >= 0) {
        if (from_mask && got == sizeof who && (int)who < dsm.size)
            from_mask[who / 64] |= 1ULL << (who % 64);
        n++;
    }
    return n;
}

static void close_all(void)
{
    if (bell.sfd >= 0)
        close(bell.sfd);
    if (bell.efd >= 0)
        close(bell.efd);
    free(bell.to);
    free(bell.marked);
    bell.sfd = bell.efd = -1;
    bell.to = NULL;
    bell.marked = NULL;
    bell.nmarked = 0;
    bell.inbound_ok = 0;
}

/* Collective over dsm.coll_comm (every rank calls it, whatever happens). */
hcrt_status_t hcrt__dsm_bell_init(void)
{
    int mode = hcrt__config_enum("HCRT_DSM_BELL"); /* auto, 0, 1 */
    int n = dsm.size, me = dsm.rank;
    bell_rec_t mine = {0};
    hcrt_status_t st = HCRT_OK; /* returned after the collectives */
    bell.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (bell.efd < 0) {
        hcrt_error(HCRT_MOD_DSM, "eventfd for the DSM service thread: %s",
                   strerror(errno));
        st = HCRT_ERR_IO;
    }
    if (mode != SHM_OFF && n > 1) {
        bell.sfd =
            socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET};
        socklen_t al = sizeof a;
        if (bell.sfd >= 0 &&
            (bind(bell.sfd, (struct sockaddr *)&a, sizeof a) != 0 ||
             getsockname(bell.sfd, (struct sockaddr *)&a, &al) != 0))
            close(bell.sfd), bell.sfd = -1;
        if (bell.sfd >= 0) {
            mine.port = a.sin_port;
            mine.host = host_key();
            local_addrs(&mine);
        }
    }
    bell_rec_t *all = calloc((size_t)n, sizeof *all);
    int *rang = calloc((size_t)n, sizeof(int)),
        *heard = calloc((size_t)n, sizeof(int));
    bell.to = calloc((size_t)n, sizeof *bell.to);
    bell.marked = calloc((size_t)n, 1);
    uint64_t *from = calloc((size_t)(n + 63) / 64, sizeof(uint64_t));
    if (!all || !rang || !heard || !bell.to || !bell.marked || !from)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory setting up DSM bells");
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE,
                  dsm.coll_comm);
    uint32_t who = (uint32_t)me;
    for (int k = 0; k < n; k++) {
        uint32_t ad =
            k != me && mine.port && all[k].port ? route(&mine, &all[k]) : 0;
        if (!ad)
            continue;
        bell.to[k] = (struct sockaddr_in){.sin_family = AF_INET,
                                          .sin_port = all[k].port,
                                          .sin_addr.s_addr = ad};
        rang[k] = sendto(bell.sfd, &who, sizeof who, 0,
                         (struct sockaddr *)&bell.to[k],
                         sizeof bell.to[k]) == (ssize_t)sizeof who;
    }
    /* who rang me: then wait (bounded) until those bells arrived */
    MPI_Alltoall(rang, 1, MPI_INT, heard, 1, MPI_INT, dsm.coll_comm);
    int expect = 0, got = 0;
    for (int k = 0; k < n; k++)
        expect += heard[k];
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (bell.sfd >= 0 && expect > 0) {
        drain_socket(from);
        got = 0;
        for (int k = 0; k < n; k++)
            got += heard[k] && (from[k / 64] >> (k % 64) & 1);
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms =
            (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (got == expect || ms >= VERIFY_MS)
            break;
        struct pollfd p = {bell.sfd, POLLIN, 0};
        poll(&p, 1, 10);
    }
    /* heard[k]: k's bell reached me; tell k (rang[k] comes back as "mine
     * reached k") */
    for (int k = 0; k < n; k++)
        heard[k] = heard[k] && (from[k / 64] >> (k % 64) & 1);
    MPI_Alltoall(heard, 1, MPI_INT, rang, 1, MPI_INT, dsm.coll_comm);
    int routes = 0, inbound = 0;
    for (int k = 0; k < n; k++) {
        if (!rang[k])
            bell.to[k].sin_port = 0;
        routes += rang[k];
        inbound += heard[k];
    }
    bell.inbound_ok = n > 1 && inbound == n - 1;
    int ok = bell.inbound_ok || n == 1, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, dsm.coll_comm);
    hcrt_debug(HCRT_MOD_DSM,
               "bells: %d of %d peers rung over UDP, %d ring this rank%s",
               routes, n - 1, inbound,
               bell.inbound_ok ? " (blocks when contended)" : "");
    free(all), free(rang), free(heard), free(from);
    if (mode == SHM_ON && !all_ok) {
        hcrt_error(HCRT_MOD_DSM,
                   "HCRT_DSM_BELL=1 but %s: UDP datagrams between the ranks' "
                   "interfaces did not arrive (firewall, or no shared subnet); "
                   "allow UDP between the nodes or set HCRT_DSM_BELL=auto",
                   ok ? "another rank cannot be rung"
                      : "this rank cannot be rung");
        st = HCRT_ERR_IO;
    }
    if (st != HCRT_OK)
        close_all();
    return st;
}

void hcrt__dsm_bell_fini(void)
{
    hcrt_debug(HCRT_MOD_DSM, "bells: rang %llu, woken by %llu",
               (unsigned long long)atomic_load(&bell.rung),
               (unsigned long long)atomic_load(&bell.woken));
    close_all();
}

int hcrt__dsm_bell_inbound_ok(void)
{
    return bell.inbound_ok;
}

uint64_t hcrt__dsm_bell_wakeups(void)
{
    return atomic_load_explicit(&bell.woken, memory_order_relaxed);
}

/* Service thread only: a protocol message went to `dest`; its bell rings
 * at the next hcrt__dsm_bell_flush, once per burst (a release sending a
 * diff per page rang once per page: 6.4 -> 9.5 us per 4 KiB dirty page
 * across network namespaces). */
void hcrt__dsm_bell_mark(int dest)
{
    if (bell.to && bell.to[dest].sin_port && !bell.marked[dest]) {
        bell.marked[dest] = 1;
        bell.nmarked++;
    }
}

void hcrt__dsm_bell_flush(void)
{
    uint32_t who = (uint32_t)dsm.rank;
    for (int k = 0; bell.nmarked > 0 && k < dsm.size; k++) {
        if (!bell.marked[k])
            continue;
        bell.marked[k] = 0;
        bell.nmarked--;
        if (sendto(bell.sfd, &who, sizeof who, MSG_DONTWAIT,
                   (struct sockaddr *)&bell.to[k], sizeof bell.to[k]) > 0)
            atomic_fetch_add_explicit(&bell.rung, 1, memory_order_relaxed);
    }
}

/* Async-signal-safe (the fault handler's submit). */
void hcrt__dsm_bell_local(void)
{
    uint64_t one = 1;
    ssize_t rc = write(bell.efd, &one, sizeof one);
    (void)rc;
}

/* Blocks until a bell or `ns` passed; returns at once when one is
 * pending. 1 when woken by a bell. */
int hcrt__dsm_bell_wait(long ns)
{
    uint64_t v;
    int rung = (bell.sfd >= 0 && drain_socket(NULL) > 0) |
               (read(bell.efd, &v, sizeof v) == (ssize_t)sizeof v);
    if (!rung) {
        struct pollfd p[2] = {{bell.efd, POLLIN, 0}, {bell.sfd, POLLIN, 0}};
        struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
        if (ppoll(p, bell.sfd >= 0 ? 2 : 1, &ts, NULL) > 0) {
            rung = 1;
            if (p[0].revents && read(bell.efd, &v, sizeof v) < 0)
                v = 0; /* taken by nobody else: cannot fail */
            if (bell.sfd >= 0 && p[1].revents)
                drain_socket(NULL);
        }
    }
    if (rung)
        atomic_fetch_add_explicit(&bell.woken, 1, memory_order_relaxed);
    return rung;
}
