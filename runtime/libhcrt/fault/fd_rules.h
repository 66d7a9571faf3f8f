/*
 * fd_rules.h - the fault detector's correlation (internal, MPI-free):
 * evidence about one rank in, a diagnosis out (MPFL's rule table), and
 * the grouping of symptoms from many observers (deduplication, time
 * windows). No sockets, no MPI, no clock: unit-tested by
 * test/faults/test_fd_rules.c.
 */
#ifndef HCRT_FD_RULES_H
#define HCRT_FD_RULES_H

#include <stddef.h>
#include <stdint.h>

/* Evidence about a subject rank. Symptoms (what observers saw) and probe
 * results (what the analyzer found out) are bits of one set. */
enum {
    /* symptoms */
    FD_EV_HB_MISSED = 1u << 0,   /* no heartbeat within the timeout */
    FD_EV_CONN_CLOSED = 1u << 1, /* its presence connection closed */
    FD_EV_WAIT = 1u << 2,        /* a runtime wait on it passed a deadline */
    FD_EV_EVENT = 1u << 3,       /* an event to/from it passed its deadline */
    FD_EV_NO_ACK = 1u << 4,      /* it did not acknowledge a symptom */
    FD_EV_SLOW = 1u << 5,        /* heartbeats late / it says it is slow */
    FD_EV_LAST_CRASH = 1u << 6,  /* its last words: it crashed */
    FD_EV_LAST_END = 1u << 7,    /* its last words: it ends the job itself */
    /* probes */
    FD_EV_PONG = 1u << 8,          /* it answered the response probe */
    FD_EV_NO_PONG = 1u << 9,       /* ... and did not within the time */
    FD_EV_TCP_ACCEPTED = 1u << 10, /* its host completed a connection */
    FD_EV_TCP_REFUSED = 1u << 11,  /* its host refused: port closed */
    FD_EV_TCP_TIMEOUT = 1u << 12,  /* no answer from its host */
    FD_EV_PROC_GONE = 1u << 13,    /* same host: no such process */
    FD_EV_PROC_STOPPED = 1u << 14, /* same host: process stopped (T) */
    FD_EV_PROC_RUNNING = 1u << 15, /* same host: process there, not T */
    FD_EV_OTHERS_REACH = 1u << 16, /* another rank reached it */
    FD_EV_OTHERS_NOT = 1u << 17,   /* other ranks could not reach it */
    FD_EV_SELF_LINK = 1u << 18,    /* the analyzer's own link is down */
    FD_EV_ISOLATED = 1u << 19,     /* the analyzer reached no peer at all */
    FD_EV_PROC_BUSY = 1u << 20     /* same host: its detector thread runnable */
};
#define FD_EV_SYMPTOMS 0xffu
#define FD_EV_COUNT 21

typedef enum fd_diag {
    FD_DIAG_NONE = 0, /* no failure: a false alarm */
    FD_DIAG_SLOW,     /* answers, but late: not a failure */
    FD_DIAG_DEAD,     /* its process is gone */
    FD_DIAG_STOPPED,  /* there, but silent (stopped or hung) */
    FD_DIAG_CUT,      /* unreachable: link cut or host down */
    FD_DIAG_LINK,     /* unreachable from the analyzer only */
    FD_DIAG_SELF_CUT, /* the analyzer itself is cut off */
    FD_DIAG_ENDED     /* it ended the job itself, with its own message */
} fd_diag_t;

typedef struct fd_rule {
    uint32_t all;  /* every one of these bits */
    uint32_t any;  /* at least one of these (0: no condition) */
    uint32_t none; /* none of these */
    fd_diag_t diag;
    const char *name;
} fd_rule_t;

/* The first rule of the table that the evidence meets (never NULL). */
const fd_rule_t *hcrt__fd_rule(uint32_t ev);
fd_diag_t hcrt__fd_diagnose(uint32_t ev);
/* DEAD, STOPPED, CUT, LINK, SELF_CUT: the job cannot go on. */
int hcrt__fd_is_failure(fd_diag_t d);
/* "dead", "stopped", ... (JSON) */
const char *hcrt__fd_diag_name(fd_diag_t d);
/* The report's verb phrase: "died", "stopped answering", ... */
const char *hcrt__fd_diag_phrase(fd_diag_t d);
/* Evidence as a comma-separated phrase list ("no heartbeat for 4.0 s,
 * state probe: ..."); `gap` is the heartbeat gap in seconds. */
size_t hcrt__fd_evidence_text(uint32_t ev, double gap, char *buf, size_t len);
/* Short evidence names for JSON: "hb_missed", ... (bit index i). */
const char *hcrt__fd_evidence_name(int i);
/* Evidence that settles a case without waiting for the probe time. */
int hcrt__fd_conclusive(uint32_t ev);

/* ---- correlation: symptoms of many observers about one subject -------- */

#define FD_MAX_GROUPS 64
#define FD_MAX_OBS 8
#define FD_TEXT 160

typedef struct fd_symptom {
    int subject, observer;
    uint32_t ev;
    uint64_t t_ns;     /* when it reached this node (its clock) */
    double since;      /* the observer's job time of the fact (s) */
    double gap;        /* heartbeat gap seen (s) */
    const char *doing; /* the subject's last reported activity, or NULL */
} fd_symptom_t;

typedef struct fd_group {
    int used, subject;
    uint32_t ev, passed; /* evidence, and what was passed on already */
    uint64_t opened_ns;  /* window start */
    double since, gap;
    int obs[FD_MAX_OBS], nobs;
    char doing[FD_TEXT];
} fd_group_t;

typedef struct fd_corr {
    fd_group_t g[FD_MAX_GROUPS];
    uint64_t window_ns;
} fd_corr_t;

void hcrt__fd_corr_init(fd_corr_t *c, uint64_t window_ns);
/* Adds a symptom: 1 if it brought new evidence or a new observer, 0 for
 * a duplicate. A symptom with new evidence about a subject whose group
 * was passed on opens a new window. */
int hcrt__fd_corr_add(fd_corr_t *c, const fd_symptom_t *s);
/* A group whose window closed by `now` and holds evidence not passed on
 * yet, or NULL. */
fd_group_t *hcrt__fd_corr_ready(fd_corr_t *c, uint64_t now);
/* The evidence of g was passed on (forwarded, or a case opened). */
void hcrt__fd_corr_passed(fd_group_t *g);
/* When the next window closes (UINT64_MAX: none open). */
uint64_t hcrt__fd_corr_next(const fd_corr_t *c);
fd_group_t *hcrt__fd_corr_find(fd_corr_t *c, int subject);
void hcrt__fd_corr_drop(fd_corr_t *c, int subject);

#endif /* HCRT_FD_RULES_H */
