/*
 * fd_tree.c - symptoms on their way to the analyzer (MPFL's tree of
 * detectors): intake from the runtime's threads, grouping in time
 * windows, and forwarding up the tree with acknowledgements.
 *
 * Rank r's parent is (r-1)/fanout. A rank groups the symptoms it sees
 * and its children send about a subject for HCRT_FAULT_WINDOW, then
 * passes the group up (duplicates are dropped: one group per subject,
 * new evidence only). A parent that does not acknowledge is suspected
 * itself, and the symptom goes to the next ancestor (a substitute
 * parent); past the root, to the lowest rank still trusted (the acting
 * root, which is rank 0 unless rank 0 is the suspect). The acting root
 * analyzes instead of forwarding (fd_case.c).
 */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "libhcrt/fault/fd_int.h"

/* ---- intake: runtime threads and signal handlers -> detector thread --- */

#define NINTAKE 64

static struct {
    atomic_int state; /* 0 free, 1 being written, 2 ready */
    int peer;
    uint32_t ev;
    double waited;
    const char *what;
} intake[NINTAKE];

/* Async-signal-safe: a free slot, then a word to the eventfd. */
static void push(int peer, uint32_t ev, double waited, const char *what)
{
    fd_state_t *f = &hcrt__fd;
    if (!f->on || peer < 0 || peer >= f->size || peer == f->rank)
        return;
    for (int i = 0; i < NINTAKE; i++) {
        int zero = 0;
        if (!atomic_compare_exchange_strong(&intake[i].state, &zero, 1))
            continue;
        intake[i].peer = peer, intake[i].ev = ev;
        intake[i].waited = waited, intake[i].what = what;
        atomic_store(&intake[i].state, 2);
        uint64_t one = 1;
        if (write(f->efd, &one, sizeof one) < 0)
            return; /* the detector polls the intake at its next wake */
        return;
    }
}

void hcrt__fd_hook_wait(int peer, const char *what, double waited)
{
    push(peer, FD_EV_WAIT, waited, what); /* collectives: peer -1, dropped */
}

void hcrt__fd_hook_event(int rank, int type, void *arg)
{
    (void)type, (void)arg;
    push(rank, FD_EV_EVENT, 0, "an event");
}

void hcrt__fd_intake_drain(void)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < NINTAKE; i++) {
        if (atomic_load(&intake[i].state) != 2)
            continue;
        int peer = intake[i].peer;
        uint32_t ev = intake[i].ev;
        double waited = intake[i].waited;
        const char *what = intake[i].what;
        atomic_store(&intake[i].state, 0);
        hcrt_info(HCRT_MOD_FAULT,
                  "%s involving rank %d waited %.1f s past its deadline; "
                  "asking the fault detector",
                  what ? what : "a wait", peer, waited);
        double now = hcrt__fd_jobtime(hcrt__fd_now());
        hcrt__fd_symptom(peer, ev, now - waited, 0, f->peers[peer].doing);
    }
}

/* ---- the tree ---------------------------------------------------------- */

int hcrt__fd_acting_root(int exclude)
{
    fd_state_t *f = &hcrt__fd;
    for (int r = 0; r < f->size; r++)
        if (r != exclude && (r == f->rank || f->peers[r].state == P_ALIVE))
            return r;
    return f->rank;
}

int hcrt__fd_is_root(void)
{
    return hcrt__fd_acting_root(-1) == hcrt__fd.rank;
}

/* The first trusted ancestor, else the acting root (perhaps this rank). */
static int route_up(int subject)
{
    fd_state_t *f = &hcrt__fd;
    int r = f->rank;
    while (r > 0) {
        r = (r - 1) / f->fanout;
        if (r != subject && f->peers[r].state == P_ALIVE)
            return r;
    }
    return hcrt__fd_acting_root(subject);
}

int hcrt__fd_symptom(int subject, uint32_t ev, double since, double gap,
                     const char *doing)
{
    fd_state_t *f = &hcrt__fd;
    uint64_t now = hcrt__fd_now();
    if (subject < 0 || subject >= f->size || subject == f->rank || f->done ||
        now < f->frozen_until || f->peers[subject].ft_lost)
        return 0;
    fd_symptom_t s = {subject, f->rank, ev, now, since, gap, doing};
    if (hcrt__fd_corr_add(&f->corr, &s))
        hcrt_debug(HCRT_MOD_FAULT, "symptom about rank %d: evidence %#x",
                   subject, ev);
    return 1;
}

static void send_acked(int dest, const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_OUT; i++) {
        fd_out_t *o = &f->out[i];
        if (o->used)
            continue;
        o->used = 1, o->dest = dest, o->tries = 1, o->m = *m;
        o->m.h.seq = 0;
        hcrt__fd_send(dest, FD_SYMPTOM, &o->m);
        o->next = hcrt__fd_now() + (uint64_t)(f->probe_time * 0.25e9);
        return;
    }
    hcrt_warn(HCRT_MOD_FAULT, "fault detector: too many symptoms in flight");
}

/* A group's evidence goes up, or opens a case at the acting root. */
static void pass_on(fd_group_t *g)
{
    fd_state_t *f = &hcrt__fd;
    int dest = route_up(g->subject);
    if (dest == f->rank) {
        hcrt__fd_case_open(g);
        hcrt__fd_corr_passed(g);
        return;
    }
    fd_msg_t m = {
        .subject = g->subject, .ev = g->ev, .t = g->since, .gap = g->gap};
    memcpy(m.text, g->doing, sizeof m.text);
    send_acked(dest, &m);
    hcrt__fd_corr_passed(g);
}

void hcrt__fd_on_symptom(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    fd_msg_t ack = {.status = (int32_t)m->h.seq};
    hcrt__fd_send(m->h.from, FD_ACK, &ack);
    if (m->subject < 0 || m->subject >= f->size || m->subject == f->rank)
        return;
    fd_symptom_t s = {m->subject, m->h.from, m->ev,  hcrt__fd_now(),
                      m->t,       m->gap,    m->text};
    if (f->peers[m->subject].state == P_ALIVE &&
        (m->ev & (FD_EV_HB_MISSED | FD_EV_CONN_CLOSED | FD_EV_NO_ACK)))
        f->peers[m->subject].state = P_SUSPECT;
    hcrt__fd_corr_add(&f->corr, &s);
}

void hcrt__fd_on_ack(const fd_msg_t *m)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_OUT; i++) {
        fd_out_t *o = &f->out[i];
        if (o->used && o->dest == m->h.from &&
            o->m.h.seq == (uint32_t)m->status)
            o->used = 0;
    }
}

/* No acknowledgement after FD_SEND_TRIES: the receiver is suspected
 * itself, and the symptom takes the next way up. */
static void retry(fd_out_t *o, uint64_t now)
{
    fd_state_t *f = &hcrt__fd;
    if (o->tries < FD_SEND_TRIES) {
        o->tries++;
        hcrt__fd_send(o->dest, FD_SYMPTOM, &o->m);
        o->next = now + (uint64_t)(f->probe_time * 0.25e9);
        return;
    }
    int silent = o->dest;
    fd_msg_t m = o->m;
    o->used = 0;
    if (f->peers[silent].state == P_ALIVE)
        f->peers[silent].state = P_SUSPECT;
    hcrt__fd_symptom(silent, FD_EV_NO_ACK, hcrt__fd_jobtime(now), 0,
                     f->peers[silent].doing);
    fd_symptom_t s = {m.subject, f->rank, m.ev, now, m.t, m.gap, m.text};
    fd_group_t *g = hcrt__fd_corr_find(&f->corr, m.subject);
    if (g)
        g->passed &= ~m.ev; /* pass it on again, to the new receiver */
    hcrt__fd_corr_add(&f->corr, &s);
}

void hcrt__fd_tree_timers(uint64_t now)
{
    fd_state_t *f = &hcrt__fd;
    for (int i = 0; i < FD_MAX_OUT; i++)
        if (f->out[i].used && now >= f->out[i].next)
            retry(&f->out[i], now);
    fd_group_t *g;
    while (!f->done && (g = hcrt__fd_corr_ready(&f->corr, now)) != NULL)
        pass_on(g);
}

uint64_t hcrt__fd_tree_next(void)
{
    fd_state_t *f = &hcrt__fd;
    uint64_t t = hcrt__fd_corr_next(&f->corr);
    for (int i = 0; i < FD_MAX_OUT; i++)
        if (f->out[i].used && f->out[i].next < t)
            t = f->out[i].next;
    return t;
}
