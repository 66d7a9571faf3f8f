/*
 * fd_rules.c - diagnosis rules and symptom grouping (fd_rules.h).
 *
 * The rules read like the reasoning an operator would do: a rank whose
 * detector answers is alive (slow at worst); a process that left last
 * words, that its own host says is gone (no such pid, or its port
 * refuses connections), or whose connection its host closed, is dead; a
 * host that completes a connection for a process that does not answer
 * holds a stopped or hung process; a host that answers nothing is cut
 * off (or down), unless another rank still reaches it (then a link
 * between the two is cut). An analyzer whose own link is down, or that
 * reaches nobody, is the one cut off.
 */
#include <stdio.h>
#include <string.h>

#include "libhcrt/fault/fd_rules.h"

#define LATE                                                                   \
    (FD_EV_HB_MISSED | FD_EV_WAIT | FD_EV_EVENT | FD_EV_NO_ACK | FD_EV_SLOW)
#define SILENT (FD_EV_HB_MISSED | FD_EV_CONN_CLOSED | FD_EV_NO_ACK)

static const fd_rule_t rules[] = {
    {FD_EV_SELF_LINK, 0, 0, FD_DIAG_SELF_CUT, "own link down"},
    {FD_EV_ISOLATED, 0, 0, FD_DIAG_SELF_CUT, "no peer answers"},
    {FD_EV_LAST_END, 0, 0, FD_DIAG_ENDED, "ended the job itself"},
    {FD_EV_PONG, LATE, 0, FD_DIAG_SLOW, "answers, but late"},
    {FD_EV_PONG, 0, 0, FD_DIAG_NONE, "answers"},
    {FD_EV_LAST_CRASH, 0, 0, FD_DIAG_DEAD, "last words: a crash"},
    {FD_EV_PROC_GONE, 0, 0, FD_DIAG_DEAD, "no such process"},
    {FD_EV_TCP_REFUSED, 0, 0, FD_DIAG_DEAD, "its port is closed"},
    {FD_EV_CONN_CLOSED, 0,
     FD_EV_TCP_ACCEPTED | FD_EV_PROC_RUNNING | FD_EV_PROC_STOPPED |
         FD_EV_OTHERS_REACH,
     FD_DIAG_DEAD, "its host closed its connection"},
    {FD_EV_PROC_STOPPED, 0, 0, FD_DIAG_STOPPED, "process stopped"},
    {FD_EV_NO_PONG | FD_EV_PROC_RUNNING | FD_EV_PROC_BUSY, 0, 0, FD_DIAG_SLOW,
     "process there, its detector waiting for a CPU"},
    {FD_EV_NO_PONG | FD_EV_TCP_ACCEPTED, 0, 0, FD_DIAG_STOPPED,
     "host answers, process silent"},
    {FD_EV_NO_PONG | FD_EV_PROC_RUNNING, 0, 0, FD_DIAG_STOPPED,
     "process there, silent"},
    {FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT | FD_EV_OTHERS_REACH, 0, 0, FD_DIAG_LINK,
     "reachable from others only"},
    {FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT, 0, 0, FD_DIAG_CUT, "host unreachable"},
    {FD_EV_NO_PONG, SILENT, 0, FD_DIAG_STOPPED, "silent"},
    {0, 0, 0, FD_DIAG_NONE, "no failure shown"},
};

const fd_rule_t *hcrt__fd_rule(uint32_t ev)
{
    size_t n = sizeof rules / sizeof rules[0];
    for (size_t i = 0; i < n; i++) {
        const fd_rule_t *r = &rules[i];
        if ((ev & r->all) == r->all && (!r->any || (ev & r->any)) &&
            !(ev & r->none))
            return r;
    }
    return &rules[n - 1];
}

fd_diag_t hcrt__fd_diagnose(uint32_t ev)
{
    return hcrt__fd_rule(ev)->diag;
}

int hcrt__fd_is_failure(fd_diag_t d)
{
    return d == FD_DIAG_DEAD || d == FD_DIAG_STOPPED || d == FD_DIAG_CUT ||
           d == FD_DIAG_LINK || d == FD_DIAG_SELF_CUT;
}

int hcrt__fd_conclusive(uint32_t ev)
{
    return (ev &
            (FD_EV_PONG | FD_EV_LAST_CRASH | FD_EV_LAST_END | FD_EV_PROC_GONE |
             FD_EV_PROC_STOPPED | FD_EV_TCP_REFUSED | FD_EV_SELF_LINK)) != 0;
}

const char *hcrt__fd_diag_name(fd_diag_t d)
{
    static const char *const names[] = {"none", "slow", "dead",     "stopped",
                                        "cut",  "link", "self-cut", "ended"};
    return (unsigned)d < sizeof names / sizeof names[0] ? names[d] : "?";
}

const char *hcrt__fd_diag_phrase(fd_diag_t d)
{
    switch (d) {
    case FD_DIAG_DEAD:
        return "died";
    case FD_DIAG_STOPPED:
        return "stopped answering";
    case FD_DIAG_CUT:
        return "was cut off";
    case FD_DIAG_LINK:
        return "lost its link to this rank";
    case FD_DIAG_SELF_CUT:
        return "lost contact with every other rank";
    case FD_DIAG_SLOW:
        return "is slow";
    case FD_DIAG_ENDED:
        return "ended the job";
    default:
        return "is fine";
    }
}

static const char *const ev_names[FD_EV_COUNT] = {
    "hb_missed",    "conn_closed", "wait_deadline",  "event_deadline",
    "no_ack",       "slow",        "last_crash",     "last_end",
    "pong",         "no_pong",     "tcp_accepted",   "tcp_refused",
    "tcp_timeout",  "proc_gone",   "proc_stopped",   "proc_running",
    "others_reach", "others_not",  "self_link_down", "isolated",
    "proc_busy"};

const char *hcrt__fd_evidence_name(int i)
{
    return i >= 0 && i < FD_EV_COUNT ? ev_names[i] : "?";
}

static const char *const ev_text[FD_EV_COUNT] = {
    NULL, /* heartbeat: with its gap */
    "its connection to a neighbour closed",
    "a wait on it passed its deadline",
    "an event with it passed its deadline",
    "it did not acknowledge a symptom",
    "its heartbeats came late",
    "it reported a crash",
    "it ended the job itself",
    "it answered the response probe",
    "response probe unanswered",
    "state probe: its host accepts connections",
    "state probe: its host refuses connections on its port",
    "state probe: its host does not answer on the network",
    "no such process on its host",
    "its process is stopped (state T)",
    "its process is there but silent",
    "another rank still reaches it",
    "the other ranks asked cannot reach it either",
    "this rank's own network link is down",
    "no other rank answers this rank",
    "its fault detector thread is runnable, waiting for a CPU"};

size_t hcrt__fd_evidence_text(uint32_t ev, double gap, char *buf, size_t len)
{
    size_t k = 0;
    if (len)
        buf[0] = 0;
    for (int i = 0; i < FD_EV_COUNT && k < len; i++) {
        if (!(ev & (1u << i)))
            continue;
        int n;
        if (i == 0)
            n = snprintf(buf + k, len - k, "%sno heartbeat for %.1f s",
                         k ? ", " : "", gap);
        else
            n = snprintf(buf + k, len - k, "%s%s", k ? ", " : "", ev_text[i]);
        if (n < 0)
            break;
        k += (size_t)n;
    }
    return k < len ? k : len - 1;
}

/* ---- correlation -------------------------------------------------------- */

void hcrt__fd_corr_init(fd_corr_t *c, uint64_t window_ns)
{
    memset(c, 0, sizeof *c);
    c->window_ns = window_ns;
}

fd_group_t *hcrt__fd_corr_find(fd_corr_t *c, int subject)
{
    for (int i = 0; i < FD_MAX_GROUPS; i++)
        if (c->g[i].used && c->g[i].subject == subject)
            return &c->g[i];
    return NULL;
}

static fd_group_t *group_for(fd_corr_t *c, int subject)
{
    fd_group_t *g = hcrt__fd_corr_find(c, subject);
    for (int i = 0; !g && i < FD_MAX_GROUPS; i++)
        if (!c->g[i].used) {
            g = &c->g[i];
            memset(g, 0, sizeof *g);
            g->used = 1;
            g->subject = subject;
            g->since = -1;
        }
    return g; /* NULL: table full (more subjects than FD_MAX_GROUPS) */
}

static int add_observer(fd_group_t *g, int observer)
{
    for (int i = 0; i < g->nobs; i++)
        if (g->obs[i] == observer)
            return 0;
    if (g->nobs < FD_MAX_OBS)
        g->obs[g->nobs++] = observer;
    return 1;
}

int hcrt__fd_corr_add(fd_corr_t *c, const fd_symptom_t *s)
{
    fd_group_t *g = group_for(c, s->subject);
    if (!g)
        return 0;
    uint32_t fresh = s->ev & ~g->ev;
    int new_obs = add_observer(g, s->observer);
    if (!fresh && !new_obs)
        return 0; /* the same evidence from the same observer again */
    if (!(g->ev & ~g->passed) && fresh)
        g->opened_ns = s->t_ns; /* a new window of evidence */
    g->ev |= s->ev;
    if (s->since >= 0 && (g->since < 0 || s->since < g->since))
        g->since = s->since;
    if (s->gap > g->gap)
        g->gap = s->gap;
    if (s->doing && s->doing[0] && !g->doing[0])
        snprintf(g->doing, sizeof g->doing, "%s", s->doing);
    return fresh ? 1 : new_obs;
}

fd_group_t *hcrt__fd_corr_ready(fd_corr_t *c, uint64_t now)
{
    for (int i = 0; i < FD_MAX_GROUPS; i++) {
        fd_group_t *g = &c->g[i];
        if (g->used && (g->ev & ~g->passed) &&
            now >= g->opened_ns + c->window_ns)
            return g;
    }
    return NULL;
}

void hcrt__fd_corr_passed(fd_group_t *g)
{
    g->passed = g->ev;
}

uint64_t hcrt__fd_corr_next(const fd_corr_t *c)
{
    uint64_t next = UINT64_MAX;
    for (int i = 0; i < FD_MAX_GROUPS; i++) {
        const fd_group_t *g = &c->g[i];
        if (g->used && (g->ev & ~g->passed) &&
            g->opened_ns + c->window_ns < next)
            next = g->opened_ns + c->window_ns;
    }
    return next;
}

void hcrt__fd_corr_drop(fd_corr_t *c, int subject)
{
    fd_group_t *g = hcrt__fd_corr_find(c, subject);
    if (g)
        g->used = 0;
}
