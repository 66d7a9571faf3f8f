/*
 * fd_ring.c - the ring of watchers: each rank watches its successor (the
 * next rank still alive) by its heartbeats, and by a TCP connection whose
 * end of file says at once that the process at the other end is gone (a
 * stopped process keeps its connections: then only the heartbeats tell).
 * After a rank failed or left, the ring closes over it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "libhcrt/fault/fd_int.h"

/* The next rank after (dir +1) or before (dir -1) this one that has
 * neither failed nor left; this rank itself when there is none. */
static int ring_next(int dir)
{
    fd_state_t *f = &hcrt__fd;
    for (int k = 1; k < f->size; k++) {
        int r = ((f->rank + dir * k) % f->size + f->size) % f->size;
        if (f->peers[r].state != P_FAILED && f->peers[r].state != P_LEFT)
            return r;
    }
    return f->rank;
}

/* After a rank failed or left: watch the next live successor, with a
 * fresh presence connection and a full timeout of grace. */
void hcrt__fd_ring_update(void)
{
    fd_state_t *f = &hcrt__fd;
    int succ = ring_next(+1);
    f->pred = ring_next(-1);
    if (succ == f->succ)
        return;
    if (f->succ_fd >= 0)
        close(f->succ_fd);
    f->succ_fd = -1;
    f->succ = succ;
    f->hb_missed_next = 0;
    if (succ == f->rank)
        return;
    f->peers[succ].last_hb_ns = hcrt__fd_now();
    f->peers[succ].last_hb_t = hcrt__fd_jobtime(f->peers[succ].last_hb_ns);
    f->succ_fd = hcrt__fd_connect_start(succ);
    f->succ_connecting = f->succ_fd >= 0;
}

void hcrt__fd_on_heartbeat(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    fd_peer_t *p = &f->peers[m->h.from];
    __atomic_store_n(&p->last_hb_ns, hcrt__fd_now(), __ATOMIC_RELAXED);
    p->last_hb_t = hcrt__fd_jobtime(p->last_hb_ns);
    snprintf(p->doing, sizeof p->doing, "%s", m->text);
    if (p->state == P_SUSPECT)
        p->state = P_ALIVE; /* it was only late */
    if (m->h.from == f->succ)
        f->hb_missed_next = 0;
}

void hcrt__fd_heartbeat_now(void)
{
    fd_state_t *f = &hcrt__fd;
    fd_msg_t m = {0};
    if (!f->on || f->pred == f->rank)
        return;
    hcrt__doing_text(m.text, sizeof m.text);
    hcrt__fd_send(f->pred, FD_HB, &m);
}

void hcrt__fd_send_heartbeat(fd_state_t *f)
{
    fd_msg_t m = {0};
    hcrt__doing_text(m.text, sizeof m.text);
    m.flags = f->slow_flag ? FD_HB_SLOW : 0;
    f->slow_flag = 0;
    if (f->pred != f->rank && !f->ending)
        hcrt__fd_send(f->pred, FD_HB, &m);
}

/* When the watch of the successor is due next (UINT64_MAX: never). */
uint64_t hcrt__fd_watch_next(const fd_state_t *f)
{
    if (f->succ == f->rank || f->done || f->peers[f->succ].state == P_FAILED)
        return UINT64_MAX;
    uint64_t t = f->peers[f->succ].last_hb_ns + f->timeout_ns;
    return f->hb_missed_next > t ? f->hb_missed_next : t;
}

/* The successor's heartbeats stopped for the timeout: a symptom, and
 * another each timeout and probe time while they stay away. A symptom
 * this rank drops (it was frozen: fd_main.c) is tried again once the
 * freeze is over: else a rank stopped while its watcher was descheduled
 * under load would never be reported, and every wait on it would last. */
void hcrt__fd_watch(fd_state_t *f, uint64_t now)
{
    if (now < hcrt__fd_watch_next(f))
        return;
    fd_peer_t *p = &f->peers[f->succ];
    if (!hcrt__fd_symptom(f->succ, FD_EV_HB_MISSED, p->last_hb_t,
                          (double)(now - p->last_hb_ns) * 1e-9, p->doing)) {
        f->hb_missed_next =
            f->frozen_until > now ? f->frozen_until : now + f->period_ns;
        return;
    }
    p->state = P_SUSPECT;
    f->hb_missed_next = now + f->timeout_ns + (uint64_t)(f->probe_time * 2e9);
}

/* A presence connection became readable: a hello names the rank at its
 * other end; end of file (or a reset) means that rank's process is gone,
 * unless it left normally. */
void hcrt__fd_on_conn(int i)
{
    fd_state_t *f = &hcrt__fd;
    fd_hdr_t h;
    ssize_t n = recv(f->conn_fd[i], &h, sizeof h, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n == (ssize_t)sizeof h && h.magic == FD_MAGIC && h.job == f->job &&
        h.type == FD_HELLO && h.from >= 0 && h.from < f->size) {
        f->conn_rank[i] = h.from;
        return;
    }
    int r = f->conn_rank[i];
    close(f->conn_fd[i]);
    f->conn_fd[i] = -1;
    if (n > 0 || r < 0 || f->done || f->ending)
        return; /* a state probe's connection, or junk */
    fd_peer_t *p = &f->peers[r];
    if (p->state == P_FAILED || p->state == P_LEFT || p->leaving)
        return;
    p->state = P_SUSPECT;
    hcrt__fd_symptom(r, FD_EV_CONN_CLOSED, hcrt__fd_jobtime(hcrt__fd_now()), 0,
                     p->doing);
}

/* Our connection to the successor: once connected it says hello; a
 * refusal or its end of file later is the same news as above. */
void hcrt__fd_on_succ_conn(fd_state_t *f)
{
    char b[64];
    ssize_t n = 1;
    if (f->succ_connecting) {
        f->succ_connecting = 0;
        if (hcrt__fd_connect_result(f->succ_fd) == 0) {
            hcrt__fd_send_hello(f->succ_fd);
            return;
        }
        n = 0;
    } else {
        n = recv(f->succ_fd, b, sizeof b, MSG_DONTWAIT);
    }
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
        return;
    close(f->succ_fd);
    f->succ_fd = -1;
    fd_peer_t *p = &f->peers[f->succ];
    if (f->done || f->ending || p->state == P_FAILED || p->leaving)
        return;
    p->state = P_SUSPECT;
    hcrt__fd_symptom(f->succ, FD_EV_CONN_CLOSED,
                     hcrt__fd_jobtime(hcrt__fd_now()), 0, p->doing);
}
