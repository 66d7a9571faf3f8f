/*
 * test_fd_rules.c - unit tests of the fault detector's correlation
 * (runtime/libhcrt/fault/fd_rules.c): symptom sets in, diagnosis out, for
 * every failure the detector tells apart, the false alarms it must not
 * raise, and the grouping of symptoms (duplicates, observers, windows).
 * No MPI, no sockets, no clock.
 *
 *   test_fd_rules [NAME...]   runs the named tests (default: all); exit
 *                             status is the number of failed checks.
 */
#include <stdio.h>
#include <string.h>

#include "libhcrt/fault/fd_rules.h"

static int fails;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fails++;                                                           \
        }                                                                      \
    } while (0)

#define CHECK_DIAG(ev, want)                                                   \
    do {                                                                       \
        fd_diag_t got_ = hcrt__fd_diagnose(ev);                                \
        if (got_ != (want)) {                                                  \
            fprintf(stderr, "%s:%d: evidence %s: %s (rule '%s'), expected %s\n", \
                    __FILE__, __LINE__, #ev, hcrt__fd_diag_name(got_),        \
                    hcrt__fd_rule(ev)->name, hcrt__fd_diag_name(want));        \
            fails++;                                                           \
        }                                                                      \
    } while (0)

/* A killed, exited or crashed process: gone, whatever the observers saw
 * first; its last words or its host's answer tell. */
static void test_dead(void)
{
    CHECK_DIAG(FD_EV_CONN_CLOSED | FD_EV_PROC_GONE, FD_DIAG_DEAD);
    CHECK_DIAG(FD_EV_CONN_CLOSED | FD_EV_TCP_REFUSED, FD_DIAG_DEAD);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_REFUSED,
               FD_DIAG_DEAD);
    CHECK_DIAG(FD_EV_LAST_CRASH | FD_EV_CONN_CLOSED, FD_DIAG_DEAD);
    /* last words before the connection even closed */
    CHECK_DIAG(FD_EV_LAST_CRASH, FD_DIAG_DEAD);
    /* its host closed the connection and nothing says it is there */
    CHECK_DIAG(FD_EV_CONN_CLOSED | FD_EV_NO_PONG, FD_DIAG_DEAD);
    CHECK_DIAG(FD_EV_CONN_CLOSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT,
               FD_DIAG_DEAD);
    /* an indirect probe found it gone */
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT |
                   FD_EV_PROC_GONE,
               FD_DIAG_DEAD);
}

/* A stopped (or hung) process: its host is there, it is silent. */
static void test_stopped(void)
{
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_PROC_STOPPED, FD_DIAG_STOPPED);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_ACCEPTED,
               FD_DIAG_STOPPED);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_PROC_RUNNING,
               FD_DIAG_STOPPED);
    CHECK_DIAG(FD_EV_NO_ACK | FD_EV_NO_PONG | FD_EV_TCP_ACCEPTED |
                   FD_EV_OTHERS_REACH,
               FD_DIAG_STOPPED);
    /* a connection that closed while its host still accepts: not dead */
    CHECK_DIAG(FD_EV_CONN_CLOSED | FD_EV_NO_PONG | FD_EV_TCP_ACCEPTED,
               FD_DIAG_STOPPED);
    /* silent, no state answer at all (no route to probe it) */
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG, FD_DIAG_STOPPED);
    /* silent, but its detector thread is runnable (waiting for a CPU):
     * slow, not failed; a stopped process is stopped whatever else */
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_ACCEPTED |
                   FD_EV_PROC_RUNNING | FD_EV_PROC_BUSY,
               FD_DIAG_SLOW);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_PROC_STOPPED | FD_EV_PROC_BUSY,
               FD_DIAG_STOPPED);
}

/* A cut link: nothing answers, from here and from the others. */
static void test_cut(void)
{
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT,
               FD_DIAG_CUT);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT |
                   FD_EV_OTHERS_NOT,
               FD_DIAG_CUT);
    /* the others still reach it: only the link to the analyzer is cut */
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT |
                   FD_EV_OTHERS_REACH,
               FD_DIAG_LINK);
    /* the analyzer's own link is down, or nobody answers it: it is the
     * one cut off, whatever it thinks of the subject */
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT |
                   FD_EV_SELF_LINK,
               FD_DIAG_SELF_CUT);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_NO_PONG | FD_EV_TCP_TIMEOUT |
                   FD_EV_ISOLATED,
               FD_DIAG_SELF_CUT);
}

/* No failure: a rank that answers is alive, at worst slow. */
static void test_false_alarms(void)
{
    CHECK_DIAG(0, FD_DIAG_NONE);
    CHECK_DIAG(FD_EV_PONG, FD_DIAG_NONE);
    CHECK_DIAG(FD_EV_PONG | FD_EV_TCP_ACCEPTED, FD_DIAG_NONE);
    CHECK_DIAG(FD_EV_HB_MISSED | FD_EV_PONG | FD_EV_TCP_ACCEPTED,
               FD_DIAG_SLOW);
    CHECK_DIAG(FD_EV_WAIT | FD_EV_PONG, FD_DIAG_SLOW);
    CHECK_DIAG(FD_EV_EVENT | FD_EV_PONG | FD_EV_PROC_RUNNING, FD_DIAG_SLOW);
    /* a symptom alone, before any probe, is no diagnosis */
    CHECK_DIAG(FD_EV_HB_MISSED, FD_DIAG_NONE);
    CHECK_DIAG(FD_EV_WAIT, FD_DIAG_NONE);
    CHECK(!hcrt__fd_is_failure(FD_DIAG_NONE));
    CHECK(!hcrt__fd_is_failure(FD_DIAG_SLOW));
    CHECK(!hcrt__fd_is_failure(FD_DIAG_ENDED));
    CHECK(hcrt__fd_is_failure(FD_DIAG_DEAD));
    CHECK(hcrt__fd_is_failure(FD_DIAG_CUT));
}

/* A rank that ends the job itself with a message is not a fault. */
static void test_ended(void)
{
    CHECK_DIAG(FD_EV_LAST_END | FD_EV_CONN_CLOSED | FD_EV_TCP_REFUSED,
               FD_DIAG_ENDED);
}

/* Evidence that decides at once, and evidence that waits for the probe
 * time (a live process answers within it). */
static void test_conclusive(void)
{
    CHECK(hcrt__fd_conclusive(FD_EV_PONG));
    CHECK(hcrt__fd_conclusive(FD_EV_TCP_REFUSED));
    CHECK(hcrt__fd_conclusive(FD_EV_PROC_STOPPED));
    CHECK(hcrt__fd_conclusive(FD_EV_LAST_CRASH));
    CHECK(!hcrt__fd_conclusive(FD_EV_HB_MISSED | FD_EV_TCP_ACCEPTED));
    CHECK(!hcrt__fd_conclusive(FD_EV_CONN_CLOSED));
    CHECK(!hcrt__fd_conclusive(FD_EV_TCP_TIMEOUT));
}

static void test_texts(void)
{
    char buf[512];
    hcrt__fd_evidence_text(FD_EV_HB_MISSED | FD_EV_NO_PONG |
                               FD_EV_TCP_ACCEPTED,
                           4.04, buf, sizeof buf);
    CHECK(!strcmp(buf, "no heartbeat for 4.0 s, response probe unanswered, "
                       "state probe: its host accepts connections"));
    CHECK(!strcmp(hcrt__fd_diag_phrase(FD_DIAG_STOPPED), "stopped answering"));
    CHECK(!strcmp(hcrt__fd_diag_phrase(FD_DIAG_DEAD), "died"));
    CHECK(!strcmp(hcrt__fd_diag_phrase(FD_DIAG_CUT), "was cut off"));
    CHECK(!strcmp(hcrt__fd_evidence_name(12), "tcp_timeout"));
    /* a short buffer is cut, never overrun */
    char small[16];
    size_t n = hcrt__fd_evidence_text(0xffffffu, 1.0, small, sizeof small);
    CHECK(n < sizeof small && strlen(small) == n);
}

#define MS 1000000ULL

static fd_symptom_t sym(int subject, int obs, uint32_t ev, uint64_t t)
{
    return (fd_symptom_t){subject, obs, ev, t, 1.5, 4.0, "running a loop"};
}

/* Duplicates are dropped; a new observer counts; the window holds. */
static void test_group_dedup(void)
{
    fd_corr_t c;
    hcrt__fd_corr_init(&c, 100 * MS);
    fd_symptom_t a = sym(2, 1, FD_EV_HB_MISSED, 10 * MS);
    CHECK(hcrt__fd_corr_add(&c, &a) == 1);
    CHECK(hcrt__fd_corr_add(&c, &a) == 0); /* the same, again */
    fd_symptom_t b = sym(2, 3, FD_EV_HB_MISSED, 20 * MS);
    CHECK(hcrt__fd_corr_add(&c, &b) == 1); /* another observer */
    CHECK(hcrt__fd_corr_ready(&c, 50 * MS) == NULL);
    CHECK(hcrt__fd_corr_next(&c) == 110 * MS);
    fd_group_t *g = hcrt__fd_corr_ready(&c, 110 * MS);
    CHECK(g && g->subject == 2 && g->nobs == 2 && g->ev == FD_EV_HB_MISSED);
    CHECK(g && !strcmp(g->doing, "running a loop"));
    hcrt__fd_corr_passed(g);
    CHECK(hcrt__fd_corr_ready(&c, 200 * MS) == NULL);
    CHECK(hcrt__fd_corr_next(&c) == UINT64_MAX);
    /* the same evidence later from a known observer: still nothing new */
    a.t_ns = 300 * MS;
    CHECK(hcrt__fd_corr_add(&c, &a) == 0);
    CHECK(hcrt__fd_corr_ready(&c, 500 * MS) == NULL);
}

/* New evidence after the group went up opens a new window with only the
 * new bits to pass on; subjects are grouped apart. */
static void test_group_windows(void)
{
    fd_corr_t c;
    hcrt__fd_corr_init(&c, 100 * MS);
    fd_symptom_t a = sym(1, 0, FD_EV_HB_MISSED, 0);
    fd_symptom_t b = sym(3, 2, FD_EV_CONN_CLOSED, 30 * MS);
    hcrt__fd_corr_add(&c, &a);
    hcrt__fd_corr_add(&c, &b);
    fd_group_t *g = hcrt__fd_corr_ready(&c, 100 * MS);
    CHECK(g && g->subject == 1);
    hcrt__fd_corr_passed(g);
    CHECK(hcrt__fd_corr_ready(&c, 100 * MS) == NULL); /* 3 waits till 130 */
    g = hcrt__fd_corr_ready(&c, 130 * MS);
    CHECK(g && g->subject == 3 && g->ev == FD_EV_CONN_CLOSED);
    hcrt__fd_corr_passed(g);
    fd_symptom_t more = sym(1, 0, FD_EV_NO_ACK, 500 * MS);
    CHECK(hcrt__fd_corr_add(&c, &more) == 1);
    g = hcrt__fd_corr_find(&c, 1);
    CHECK(g && (g->ev & ~g->passed) == FD_EV_NO_ACK);
    CHECK(hcrt__fd_corr_ready(&c, 550 * MS) == NULL);
    CHECK(hcrt__fd_corr_ready(&c, 600 * MS) == g);
    /* the earliest "since" of all observers is kept */
    fd_symptom_t early = sym(1, 4, FD_EV_HB_MISSED, 610 * MS);
    early.since = 0.5;
    hcrt__fd_corr_add(&c, &early);
    CHECK(g->since == 0.5);
    hcrt__fd_corr_drop(&c, 1);
    CHECK(hcrt__fd_corr_find(&c, 1) == NULL);
}

/* More subjects than groups: the extra ones are dropped, not corrupted. */
static void test_group_full(void)
{
    fd_corr_t c;
    hcrt__fd_corr_init(&c, 0);
    for (int s = 0; s < FD_MAX_GROUPS + 5; s++) {
        fd_symptom_t x = sym(s, 0, FD_EV_HB_MISSED, 0);
        CHECK(hcrt__fd_corr_add(&c, &x) == (s < FD_MAX_GROUPS));
    }
    int n = 0;
    fd_group_t *g;
    while ((g = hcrt__fd_corr_ready(&c, 0)) != NULL) {
        hcrt__fd_corr_passed(g);
        n++;
    }
    CHECK(n == FD_MAX_GROUPS);
}

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
    {"dead", test_dead},
    {"stopped", test_stopped},
    {"cut", test_cut},
    {"false_alarms", test_false_alarms},
    {"ended", test_ended},
    {"conclusive", test_conclusive},
    {"texts", test_texts},
    {"group_dedup", test_group_dedup},
    {"group_windows", test_group_windows},
    {"group_full", test_group_full},
};

int main(int argc, char **argv)
{
    size_t n = sizeof tests / sizeof tests[0];
    for (size_t i = 0; i < n; i++) {
        int run = argc == 1;
        for (int a = 1; a < argc; a++)
            run |= !strcmp(argv[a], tests[i].name);
        if (run)
            tests[i].fn();
    }
    if (fails)
        fprintf(stderr, "test_fd_rules: %d check(s) failed\n", fails);
    return fails;
}
