/*
 * fd_case.c - the acting root's analysis of a suspect (MPFL's analyzer):
 * it confirms symptoms with probes, then applies the rule table.
 *
 * Probes of a subject, all at once, for HCRT_FAULT_PROBE_TIME:
 *  - response: PING datagrams to its detector thread (a live rank
 *    answers with what it is doing);
 *  - state: a TCP connection to its detector's port (its host completes
 *    it, refuses it, or stays silent), and on the same host the state of
 *    its process in /proc;
 *  - indirect: up to two other ranks run the same probes and say what
 *    they found (one rank's broken link is not the subject's);
 *  - log: its last words, if it sent any before it died (fd_tree.c).
 * Conclusive evidence (an answer, a closed port, no such process, a
 * stopped process, last words) decides at once; else the case waits for
 * the probe time. When every open case is decided and some are
 * failures, the one report goes out and the job ends.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/lastword.h"
#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/fault/fd_int.h"
#include "libhcrt/fault/ft.h"

static fd_probe_t *probe_start(int subject, int asker, double secs)
{
    fd_state_t *f = &hcrt__fd;
    fd_probe_t *p = NULL;
    for (int i = 0; i < FD_MAX_PROBES && !p; i++)
        if (!f->probes[i].used)
            p = &f->probes[i];
    if (!p)
        return NULL;
    uint64_t now = hcrt__fd_now();
    *p = (fd_probe_t){.used = 1, .subject = subject, .asker = asker};
    p->got = hcrt__fd_proc_probe(subject);
    p->deadline = now + (uint64_t)(secs * 1e9);
    p->tcp = hcrt__fd_connect_start(subject);
    if (p->tcp == FD_CONN_REFUSED)
        p->got |= FD_EV_TCP_REFUSED;
    else if (p->tcp == FD_CONN_UNREACH)
        p->got |= FD_EV_TCP_TIMEOUT;
    if (p->tcp < 0)
        p->tcp = -1;
    fd_msg_t m = {.subject = subject};
    hcrt__fd_send(subject, FD_PING, &m);
    p->next_ping = now + (uint64_t)(secs * 0.25e9);
    return p;
}

static int probe_done(const fd_probe_t *p, uint64_t now)
{
    if (p->got &
        (FD_EV_PONG | FD_EV_TCP_REFUSED | FD_EV_PROC_GONE | FD_EV_PROC_STOPPED))
        return 1;
    return now >= p->deadline;
}

static fd_case_t *case_of(int subject)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_CASES; i++)
        if (f->cases[i].used && f->cases[i].subject == subject)
            return &f->cases[i];
    return NULL;
}

/* Up to two live ranks other than this one and the subject, next to
 * the subject in the ring, probe it too. */
static void ask_helpers(fd_case_t *c)
{
    fd_state_t *f = &hcrt__fd;
    fd_msg_t m = {.subject = c->subject};
    for (int k = 1; k < f->size && c->asked < 2; k++) {
        for (int dir = 1; dir >= -1 && c->asked < 2; dir -= 2) {
            int r = ((c->subject + dir * k) % f->size + f->size) % f->size;
            if (r == f->rank || r == c->subject ||
                f->peers[r].state != P_ALIVE || !f->peers[r].udp.sin_port)
                continue;
            int dup = 0;
            for (int j = 0; j < c->asked; j++)
                dup |= c->helpers[j] == r;
            if (dup)
                continue;
            c->helpers[c->asked++] = r;
            hcrt__fd_send(r, FD_PROBE_REQ, &m);
        }
    }
}

static void merge_group(fd_case_t *c, const fd_group_t *g)
{
    c->ev |= g->ev;
    if (g->since >= 0 && (c->since < 0 || g->since < c->since))
        c->since = g->since;
    if (g->gap > c->gap)
        c->gap = g->gap;
    if (!c->doing[0])
        memcpy(c->doing, g->doing, sizeof c->doing);
    for (int i = 0; i < g->nobs; i++) {
        int dup = 0;
        for (int j = 0; j < c->nobs; j++)
            dup |= c->obs[j] == g->obs[i];
        if (!dup && c->nobs < FD_MAX_OBS)
            c->obs[c->nobs++] = g->obs[i];
    }
}

void hcrt__fd_case_open(const fd_group_t *g)
{
    fd_state_t *f = &hcrt__fd;
    fd_case_t *c = case_of(g->subject);
    if (c && !c->decided)
        merge_group(c, g);
    if (c || f->ending || f->reported || f->peers[g->subject].state == P_FAILED)
        return; /* a decided case stays as decided (a failure) */
    for (int i = 0; i < FD_MAX_CASES && !c; i++)
        if (!f->cases[i].used)
            c = &f->cases[i];
    if (!c)
        return;
    uint64_t now = hcrt__fd_now();
    *c = (fd_case_t){.used = 1, .subject = g->subject, .since = -1};
    c->opened = now;
    c->deadline = now + (uint64_t)((f->probe_time + 0.3) * 1e9);
    merge_group(c, g);
    c->probe = probe_start(g->subject, -1, f->probe_time);
    ask_helpers(c);
    char ev[256];
    hcrt__fd_evidence_text(c->ev, c->gap, ev, sizeof ev);
    hcrt_info(HCRT_MOD_FAULT, "analyzing rank %d (host %s): %s", c->subject,
              f->peers[c->subject].rec.host, ev);
}

void hcrt__fd_on_pong(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    int from = m->h.from;
    for (int i = 0; i < FD_MAX_PROBES; i++)
        if (f->probes[i].used && f->probes[i].subject == from)
            f->probes[i].got |= FD_EV_PONG;
    snprintf(f->peers[from].doing, sizeof f->peers[from].doing, "%s", m->text);
}

void hcrt__fd_on_probe_req(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    if (m->subject < 0 || m->subject >= f->size || m->subject == f->rank)
        return;
    probe_start(m->subject, m->h.from, f->probe_time * 0.7);
    /* what the subject last said it was doing, heard here if this rank
     * watches it: at once, for the asker's report */
    if (f->peers[m->subject].doing[0]) {
        fd_msg_t r = {.subject = m->subject, .flags = FD_RES_DOING};
        snprintf(r.text, sizeof r.text, "%s", f->peers[m->subject].doing);
        hcrt__fd_send(m->h.from, FD_PROBE_RES, &r);
    }
}

void hcrt__fd_on_probe_res(const fd_msg_t *m)
{
    fd_case_t *c = case_of(m->subject);
    if (c && (m->flags & FD_RES_DOING)) {
        if (!c->doing[0])
            snprintf(c->doing, sizeof c->doing, "%s", m->text);
        return;
    }
    if (!c || c->decided)
        return;
    c->answered++;
    if (m->ev & (FD_EV_PONG | FD_EV_TCP_ACCEPTED | FD_EV_PROC_RUNNING))
        c->ev |= FD_EV_OTHERS_REACH;
    else if (m->ev & FD_EV_TCP_TIMEOUT)
        c->ev |= FD_EV_OTHERS_NOT;
    c->ev |= m->ev & (FD_EV_TCP_REFUSED | FD_EV_PROC_GONE | FD_EV_PROC_STOPPED);
}

/* Base's last words: [fd_hdr_t][kind][text]. They are a symptom too. */
void hcrt__fd_on_lastword(const unsigned char *buf, size_t len)
{
    fd_state_t *f = &hcrt__fd;
    const fd_hdr_t *h = (const fd_hdr_t *)buf;
    if (len < sizeof *h + 2 || h->from == f->rank)
        return;
    int kind = buf[sizeof *h];
    fd_peer_t *p = &f->peers[h->from];
    snprintf(p->lastword, sizeof p->lastword, "%.*s",
             (int)(len - sizeof *h - 1), (const char *)buf + sizeof *h + 1);
    char *nl = strchr(p->lastword, '\n');
    if (nl)
        *nl = 0;
    hcrt__fd_symptom(
        h->from, kind == HCRT_LASTWORD_END ? FD_EV_LAST_END : FD_EV_LAST_CRASH,
        hcrt__fd_jobtime(hcrt__fd_now()), 0, p->doing);
}

int hcrt__fd_probe_fds(struct pollfd *pf, int max)
{
    fd_state_t *f = &hcrt__fd;
    int n = 0;
    for (int i = 0; i < FD_MAX_PROBES && n < max; i++)
        if (f->probes[i].used && f->probes[i].tcp >= 0)
            pf[n++] = (struct pollfd){f->probes[i].tcp, POLLOUT, 0};
    return n;
}

void hcrt__fd_probe_ready(int fd)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_PROBES; i++) {
        fd_probe_t *p = &f->probes[i];
        if (!p->used || p->tcp != fd)
            continue;
        int r = hcrt__fd_connect_result(fd);
        p->got |= r == 0                 ? FD_EV_TCP_ACCEPTED
                  : r == FD_CONN_REFUSED ? FD_EV_TCP_REFUSED
                                         : FD_EV_TCP_TIMEOUT;
        close(fd);
        p->tcp = -1;
    }
}

/* Silent for at most this long, a process on this host whose detector
 * thread is runnable is taken to be alive: that thread is waiting for a
 * core (a host with several times more runnable threads than cores: the
 * detector thread of a rank of RSBench at load 6-9 on 2 cores waited 3-4 s
 * for a CPU, and the job ended for a "stopped" rank). A stopped process's
 * threads are in state T, a frozen one's in D, a dead one's gone. Past it
 * the silence counts whatever the thread shows, so that a rank whose
 * detector cannot answer never keeps the job waiting forever. */
#define BUSY_SILENCE_MAX_NS 60000000000ULL

static uint32_t proc_busy(const fd_probe_t *p, uint64_t now)
{
    fd_peer_t *peer = &hcrt__fd.peers[p->subject];
    if (hcrt__fd_proc_probe(p->subject) != FD_EV_PROC_RUNNING ||
        !hcrt__fd_detector_runnable(p->subject))
        return 0;
    /* one streak: verdicts no further apart than a few detection times */
    uint64_t gap = (uint64_t)((hcrt__fd.timeout + hcrt__fd.probe_time) * 3e9);
    if (!peer->busy_first_ns || now > peer->busy_last_ns + gap)
        peer->busy_first_ns = now;
    peer->busy_last_ns = now;
    return now - peer->busy_first_ns <= BUSY_SILENCE_MAX_NS ? FD_EV_PROC_BUSY
                                                            : 0;
}

/* A probe's time is up or its answer is in: its evidence goes to the
 * case, or back to the rank that asked. */
static void probe_finish(fd_probe_t *p, uint64_t now)
{
    int late = now >= p->deadline; /* else conclusive evidence came first */
    if (p->tcp >= 0) {
        close(p->tcp);
        p->tcp = -1;
        p->got |= late ? FD_EV_TCP_TIMEOUT : 0;
    }
    if (!(p->got & FD_EV_PONG) && late)
        p->got |= FD_EV_NO_PONG;
    if ((p->got & FD_EV_NO_PONG) && (p->got & FD_EV_PROC_RUNNING))
        p->got |= proc_busy(p, now);
    if (p->asker >= 0) {
        fd_msg_t m = {.subject = p->subject, .ev = p->got};
        hcrt__fd_send(p->asker, FD_PROBE_RES, &m);
    }
    p->used = 0;
}

static void probe_timers(uint64_t now)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_PROBES; i++) {
        fd_probe_t *p = &f->probes[i];
        if (!p->used || p->asker < 0)
            continue; /* a case's own probe: the case finishes it */
        if (probe_done(p, now)) {
            probe_finish(p, now);
        } else if (now >= p->next_ping) {
            fd_msg_t m = {.subject = p->subject};
            hcrt__fd_send(p->subject, FD_PING, &m);
            p->next_ping = now + (p->deadline - now) / 2 + 1;
        }
    }
}

#define DOING_GRACE_NS 200000000ULL /* 0.2 s */

static int ready_to_decide(fd_case_t *c, uint64_t now)
{
    fd_probe_t *p = c->probe;
    uint32_t ev = c->ev | (p ? p->got : 0);
    /* conclusive, but what the subject was doing is unknown here: the
     * helpers asked answer that at once (a datagram's round trip) */
    if (hcrt__fd_conclusive(ev))
        return c->doing[0] || c->asked == 0 ||
               now >= c->opened + DOING_GRACE_NS;
    if (p && !probe_done(p, now)) {
        if (now >= p->next_ping) {
            fd_msg_t m = {.subject = c->subject};
            hcrt__fd_send(c->subject, FD_PING, &m);
            p->next_ping = now + (uint64_t)(hcrt__fd.probe_time * 0.25e9);
        }
        return 0;
    }
    return c->answered >= c->asked || now >= c->deadline;
}

static void decide(fd_case_t *c)
{
    fd_state_t *f = &hcrt__fd;
    if (c->probe) {
        c->probe->asker = -2; /* finish without an answer to anyone */
        probe_finish(c->probe, hcrt__fd_now());
        c->ev |= c->probe->got;
        c->probe = NULL;
    }
    if ((c->ev & FD_EV_NO_PONG) &&
        !(c->ev &
          (FD_EV_TCP_ACCEPTED | FD_EV_TCP_REFUSED | FD_EV_PROC_RUNNING))) {
        if (hcrt__fd_own_link_down())
            c->ev |= FD_EV_SELF_LINK;
        else if (c->asked > 0 && c->answered == 0)
            c->ev |= FD_EV_ISOLATED;
    }
    const fd_rule_t *r = hcrt__fd_rule(c->ev);
    c->diag = r->diag;
    c->rule = r->name;
    c->decided = 1;
    c->decided_ns = hcrt__fd_now();
    if (c->diag == FD_DIAG_DEAD && f->peers[c->subject].leaving) {
        c->diag = FD_DIAG_NONE; /* it left and exited: not a failure */
        c->rule = "left, then exited";
        f->peers[c->subject].left_acked = 1;
    }
    hcrt_info(HCRT_MOD_FAULT, "rank %d: %s (rule: %s; evidence %#x)",
              c->subject, hcrt__fd_diag_name(c->diag), c->rule, c->ev);
    if (hcrt__fd_is_failure(c->diag) && c->diag != FD_DIAG_SELF_CUT) {
        f->peers[c->subject].state = P_FAILED;
        if (!hcrt__ft_on()) /* FT mode: once the modules heard (fd_ft.c) */
            hcrt__wait_peer_failed(c->subject);
        hcrt__fd_ring_update();
    } else if (c->diag == FD_DIAG_ENDED) {
        f->peers[c->subject].state = P_FAILED;
    } else if (!hcrt__fd_is_failure(c->diag)) {
        if (c->diag == FD_DIAG_SLOW)
            hcrt__fd_report_slow(c);
        if (f->peers[c->subject].state == P_SUSPECT)
            f->peers[c->subject].state = P_ALIVE;
        hcrt__fd_corr_drop(&f->corr, c->subject);
        c->used = 0;
    }
}

int hcrt__fd_case_before(uint64_t t)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_CASES; i++)
        if (f->cases[i].used && !f->cases[i].decided && f->cases[i].opened < t)
            return 1;
    return 0;
}

int hcrt__fd_cases_open(void)
{
    fd_state_t *f = &hcrt__fd;
    int n = 0;
    for (int i = 0; i < FD_MAX_CASES; i++)
        n += f->cases[i].used && !f->cases[i].decided;
    return n;
}

/* Every case decided: failures make the one report and end the job. */
static void conclude(void)
{
    fd_state_t *f = &hcrt__fd;
    int fail = 0, ended = 0;
    if (f->reported || f->ending || hcrt__fd_cases_open())
        return;
    for (int i = 0; i < FD_MAX_CASES; i++) {
        fd_case_t *c = &f->cases[i];
        if (!c->used || c->ft_done)
            continue;
        fail |= hcrt__fd_is_failure(c->diag);
        ended |= c->diag == FD_DIAG_ENDED;
    }
    f->ft_going_on = fail && hcrt__fd_ft_survivable();
    if (f->ft_going_on) {
        hcrt__fd_report();
        hcrt__fd_ft_go_on(); /* FT mode: the job goes on without them */
    } else if (fail && hcrt__fd_ft_finished()) {
        /* FT mode: lost in the shutdown, after the program's end */
        f->ft_finished = 1;
        f->status = f->program_status;
        hcrt__fd_report();
        hcrt__fd_notify_launcher("HCRT-FT-DONE", f->status);
        hcrt__fd_end_job(1);
    } else if (fail) {
        hcrt__fd_report();
        hcrt__fd_end_job(1);
    } else if (ended) {
        hcrt__fd_end_job(0); /* the rank said why; MPI_Abort follows */
    }
}

void hcrt__fd_case_timers(uint64_t now)
{
    fd_state_t *f = &hcrt__fd;
    probe_timers(now);
    for (int i = 0; i < FD_MAX_CASES; i++) {
        fd_case_t *c = &f->cases[i];
        if (c->used && !c->decided && ready_to_decide(c, now))
            decide(c);
    }
    conclude();
}

uint64_t hcrt__fd_case_next(void)
{
    fd_state_t *f = &hcrt__fd;
    uint64_t t = UINT64_MAX;
    for (int i = 0; i < FD_MAX_PROBES; i++) {
        const fd_probe_t *p = &f->probes[i];
        if (!p->used)
            continue;
        if (p->next_ping < t)
            t = p->next_ping;
        if (p->deadline < t)
            t = p->deadline;
    }
    for (int i = 0; i < FD_MAX_CASES; i++)
        if (f->cases[i].used && !f->cases[i].decided &&
            f->cases[i].deadline < t)
            t = f->cases[i].deadline;
    return t;
}
