/*
 * fd_net.c - the fault detector's sockets: a UDP socket for its messages
 * and a TCP listener whose answers tell about a host (the state probe: a
 * host completes a connection for a stopped process, refuses one when the
 * process is gone, and answers nothing when it is cut off), the start-up
 * exchange of every rank's addresses, and the probes of a process on the
 * same host (/proc).
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "base/node.h"
#include "base/wait.h"
#include "libhcrt/fault/fd_int.h"

static int bound_socket(int type, uint16_t *port)
{
    int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t al = sizeof a;
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        (type == SOCK_STREAM && listen(fd, 64) != 0) ||
        getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
        close(fd);
        return -1;
    }
    *port = a.sin_port;
    return fd;
}

/* Field 22 of /proc/<pid>/stat (start time in ticks) and the state
 * letter after the command name; 0 when the process is not there. */
static int proc_stat(int pid, char *state, uint64_t *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *fp = fopen(path, "re");
    if (!fp)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ')
        return 0;
    *state = p[2];
    unsigned long long st = 0;
    /* after ") S": fields 4..21, then 22 is the start time */
    if (sscanf(p + 4,
               "%*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
               "%*d %*d %*d %*d %llu",
               &st) != 1)
        return 0;
    *start = st;
    return 1;
}

static uint64_t pid_namespace(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

int hcrt__fd_net_open(fd_rec_t *mine)
{
    fd_state_t *f = &hcrt__fd;
    uint16_t uport = 0, tport = 0;
    memset(mine, 0, sizeof *mine);
    f->udp = bound_socket(SOCK_DGRAM, &uport);
    f->listener = bound_socket(SOCK_STREAM, &tport);
    f->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (f->udp < 0 || f->listener < 0 || f->efd < 0) {
        hcrt_warn(HCRT_MOD_FAULT,
                  "the fault detector cannot open its sockets (%s): ranks "
                  "that die or stop may hang the job",
                  strerror(errno));
        return -1;
    }
    hcrt__route_self(&mine->route, uport);
    mine->tcp_port = tport;
    mine->pid = (int32_t)getpid();
    mine->node_id = hcrt__node_info()->node_id;
    mine->pidns = pid_namespace();
    char st;
    uint64_t start = 0;
    proc_stat((int)getpid(), &st, &start);
    mine->start_ticks = start;
    if (getrandom(&mine->nonce, sizeof mine->nonce, 0) != sizeof mine->nonce)
        mine->nonce = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    snprintf(mine->host, sizeof mine->host, "%s", hcrt__hostname());
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    mine->wall0_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return 0;
}

/* Collective. Returns 1 when every rank runs a detector (then peers and
 * the job nonce are set), 0 when one does not (then no rank does). */
int hcrt__fd_exchange(MPI_Comm comm, fd_rec_t *mine)
{
    fd_state_t *f = &hcrt__fd;
    fd_rec_t *all = calloc((size_t)f->size, sizeof *all);
    MPI_Request req;
    if (!all)
        hcrt_fatal(HCRT_MOD_FAULT, "out of memory starting the detector");
    MPI_Iallgather(mine, sizeof *mine, MPI_BYTE, all, sizeof *mine, MPI_BYTE,
                   comm, &req);
    double limit = hcrt__config_double("HCRT_FAULT_STARTUP_TIMEOUT");
    hcrt_wait_t w = {.what = "the fault detectors' start-up exchange",
                     .peer = HCRT_WAIT_ANY,
                     .deadline = limit,
                     .give_up = 1};
    if (hcrt__wait_request(&req, &w) != HCRT_OK) {
        hcrt_error(HCRT_MOD_FAULT,
                   "start-up: the fault detectors' exchange did not complete "
                   "within %.0f s (HCRT_FAULT_STARTUP_TIMEOUT): another rank "
                   "stopped or could not start; this rank ends",
                   limit);
        fflush(NULL);
        _exit((int)hcrt__config_int("HCRT_FAULT_STATUS"));
    }
    int ok = 1;
    for (int r = 0; r < f->size; r++)
        ok &= all[r].route.port != 0 && all[r].tcp_port != 0;
    if (!ok && mine->route.port && f->rank == 0)
        hcrt_warn(HCRT_MOD_FAULT,
                  "the fault detector is off on some rank (HCRT_FAULT=0 "
                  "there, or its sockets failed): it is off on every rank");
    f->wall0_ns = all[0].wall0_ns;
    if (ok) {
        f->job = all[0].nonce;
        hcrt__fd_peers_init(all);
    }
    free(all);
    return ok;
}

void hcrt__fd_send(int to, int type, fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    const struct sockaddr_in *a = &f->peers[to].udp;
    if (!a->sin_port)
        return;
    uint32_t seq = m->h.seq ? m->h.seq : atomic_fetch_add(&f->seq, 1) + 1;
    m->h =
        (fd_hdr_t){FD_MAGIC, (uint16_t)type, sizeof *m, f->job, f->rank, seq};
    /* "network unreachable" is about this rank's own network; "host
     * unreachable" (no ARP answer) is about the peer */
    if (sendto(f->udp, m, sizeof *m, MSG_DONTWAIT, (const struct sockaddr *)a,
               sizeof *a) < 0 &&
        (errno == ENETUNREACH || errno == ENETDOWN))
        f->net_error_ns = hcrt__fd_now();
}

int hcrt__fd_recv(fd_wire_t *w, size_t *len)
{
    fd_state_t *f = &hcrt__fd;
    for (;;) {
        ssize_t n = recv(f->udp, w, sizeof *w, MSG_DONTWAIT);
        if (n < 0)
            return 0;
        const fd_hdr_t *h = &w->m.h;
        if ((size_t)n < sizeof *h || h->magic != FD_MAGIC || h->job != f->job ||
            h->from < 0 || h->from >= f->size)
            continue; /* another job's datagram, or junk */
        if (h->type != FD_LASTWORD && (size_t)n < sizeof(fd_msg_t))
            continue;
        if (h->type != FD_LASTWORD)
            w->m.text[FD_TEXT - 1] = 0;
        *len = (size_t)n;
        return 1;
    }
}

static int conn_error(int e)
{
    return e == ECONNREFUSED ? FD_CONN_REFUSED : FD_CONN_UNREACH;
}

int hcrt__fd_connect_start(int rank)
{
    const struct sockaddr_in *a = &hcrt__fd.peers[rank].tcp;
    if (!a->sin_port)
        return -1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) == 0 ||
        errno == EINPROGRESS)
        return fd;
    int e = errno;
    close(fd);
    if (e == ENETUNREACH || e == ENETDOWN)
        hcrt__fd.net_error_ns = hcrt__fd_now();
    return conn_error(e);
}

int hcrt__fd_connect_result(int fd)
{
    int e = 0;
    socklen_t el = sizeof e;
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
        e = errno;
    return e == 0 ? 0 : conn_error(e);
}

void hcrt__fd_send_hello(int fd)
{
    fd_state_t *f = &hcrt__fd;
    fd_hdr_t h = {FD_MAGIC, FD_HELLO, sizeof h, f->job, f->rank, 0};
    if (send(fd, &h, sizeof h, MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof h)
        hcrt_debug(HCRT_MOD_FAULT, "hello to rank %d: %s", f->succ,
                   strerror(errno));
}

void hcrt__fd_accept(void)
{
    fd_state_t *f = &hcrt__fd;
    int fd;
    while ((fd = accept4(f->listener, NULL, NULL,
                         SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        int i = 0;
        while (i < FD_MAX_CONNS && f->conn_fd[i] >= 0)
            i++;
        if (i == FD_MAX_CONNS) {
            close(fd); /* a probe's connection: its answer was the accept */
            continue;
        }
        f->conn_fd[i] = fd;
        f->conn_rank[i] = -1;
    }
}

int hcrt__fd_detector_runnable(int rank)
{
    const fd_peer_t *p = &hcrt__fd.peers[rank];
    char path[320], buf[512];
    int found = 0;
    if (!p->same_host)
        return 0;
    snprintf(path, sizeof path, "/proc/%d/task", p->rec.pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%d/task/%s/stat", p->rec.pid,
                 e->d_name);
        FILE *fp = fopen(path, "re");
        if (!fp)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, fp);
        fclose(fp);
        buf[n] = 0;
        char *name = strchr(buf, '('), *close_paren = strrchr(buf, ')');
        if (!name || !close_paren || close_paren[1] != ' ' ||
            strncmp(name + 1, "hcrt-fault)", 11))
            continue;
        found = close_paren[2] == 'R' ? 1 : -1;
    }
    closedir(d);
    return found == 1;
}

uint32_t hcrt__fd_proc_probe(int rank)
{
    const fd_peer_t *p = &hcrt__fd.peers[rank];
    char st = 0;
    uint64_t start = 0;
    if (!p->same_host)
        return 0;
    if (!proc_stat(p->rec.pid, &st, &start) || start != p->rec.start_ticks ||
        st == 'Z' || st == 'X' || st == 'x')
        return FD_EV_PROC_GONE;
    return st == 'T' || st == 't' ? FD_EV_PROC_STOPPED : FD_EV_PROC_RUNNING;
}

/* Whether every interface this rank published is down or without
 * carrier, or a send just failed with "network unreachable". */
int hcrt__fd_own_link_down(void)
{
    fd_state_t *f = &hcrt__fd;
    const hcrt_route_rec_t *me = &f->peers[f->rank].rec.route;
    struct ifaddrs *ifa = NULL;
    int seen = 0, up = 0;
    if (f->net_error_ns && hcrt__fd_now() - f->net_error_ns < 2000000000ULL)
        return 1;
    if (me->naddr == 0 || getifaddrs(&ifa) != 0)
        return 0;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
            continue;
        uint32_t a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        for (int k = 0; k < me->naddr; k++)
            if (me->addr[k] == a) {
                seen++;
                up += (i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING);
            }
    }
    freeifaddrs(ifa);
    return seen > 0 && up == 0;
}
