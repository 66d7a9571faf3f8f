/*
 * wait.h - the runtime's waits on peers (internal), and what the fault
 * detector tells them.
 *
 * A dead, stopped or cut-off rank makes MPI report nothing (PLATFORM.md):
 * a receive from it, a collective with it, a reply it owes never come.
 * So every wait that involves a peer goes through one of these helpers:
 *
 *  - each has a name (for messages) and the peer it waits for (or
 *    HCRT_WAIT_ANY for a collective);
 *  - a deadline, where an answer is due in bounded time (a DSM fetch, a
 *    request to a home): when it passes, the fault detector gets a
 *    symptom about that peer and the wait goes on (a slow peer is not a
 *    dead one; the detector's probes decide);
 *  - the detector wakes them: once it declared a rank failed
 *    (hcrt__wait_peer_failed), every wait involving that rank calls the
 *    failure policy. Without recovery the policy never returns (the
 *    detector ends the job, DESIGN.md section 10); in FT mode a wait
 *    marked `recoverable` returns HCRT_ERR_NODE_FAILED instead.
 *
 * Waits poll MPI with hcrt__pause (bell.h) rather than block in MPI_Wait,
 * which would spin a core inside Open MPI and could never be woken. A
 * wait with `busy` set polls without pausing: it replaces a blocking call
 * on a short, latency-bound path (a fork's broadcast, page data after a
 * reply, the reduction tree) and must cost no more than that call did.
 * hcrt__wait_word and the hooks are async-signal-safe: the DSM waits for
 * replies inside its SIGSEGV handler.
 */
#ifndef HCRT_WAIT_H
#define HCRT_WAIT_H

#include <mpi.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hcrt/hcrt.h"

struct hcrt_bell;

#define HCRT_WAIT_ANY (-1)       /* a collective: every peer matters */
#define HCRT_WAIT_MAX_RANKS 4096 /* ranks the failed set can name */

typedef struct hcrt_wait {
    const char *what; /* "the fork command", "a DSM barrier" */
    int peer;         /* the rank waited for, or HCRT_WAIT_ANY */
    double deadline;  /* seconds until a symptom (<= 0: none) */
    uint64_t spin_ns; /* yield (not nap) this long between polls */
    int busy;         /* poll without pausing (as MPI_Wait would spin) */
    /* The peer rings this bell when it sends what is awaited (after the
     * waiter's spin_ns): past spin_ns the wait blocks on it (hcrt__pause_bell)
     * instead of napping. NULL: naps. */
    struct hcrt_bell *bell;
    int give_up; /* at the deadline, return HCRT_ERR_TIMEOUT */
    /* In FT mode (hcrt__wait_set_ft), a failed peer makes the wait return
     * HCRT_ERR_NODE_FAILED: the caller recovers. Other waits call the
     * policy, which ends the job saying what could not be recovered. */
    int recoverable;
    /* A collective over the survivors (hcrt__wait_live_comm): HCRT_WAIT_ANY
     * covers only ranks that had not failed when the wait began. */
    int survivors;
} hcrt_wait_t;

/* Waits until the request completes (MPI_Test polls, hcrt__pause). */
hcrt_status_t hcrt__wait_request(MPI_Request *req, const hcrt_wait_t *w);
/* Waits until all n requests complete (MPI_Testall). */
hcrt_status_t hcrt__wait_requests(int n, MPI_Request *reqs,
                                  const hcrt_wait_t *w);
/* Waits until *word != val (futex; async-signal-safe). */
hcrt_status_t hcrt__wait_word(_Atomic uint32_t *word, uint32_t val,
                              const hcrt_wait_t *w);

/* For loops that make their own progress: call hcrt__wait_begin once,
 * then hcrt__wait_poll after each round that did not finish.
 * hcrt__wait_poll returns HCRT_OK to go on, else the failure status. */
typedef struct hcrt_wait_state {
    uint64_t start, next_check;
    int warned, nfailed0;
} hcrt_wait_state_t;
void hcrt__wait_begin(hcrt_wait_state_t *s);
hcrt_status_t hcrt__wait_poll(hcrt_wait_state_t *s, const hcrt_wait_t *w);
/* Such a loop ends: its time counts as waited (hcrt__wait_thread_ns). */
void hcrt__wait_end(const hcrt_wait_state_t *s);

/* Nanoseconds the calling thread has spent in waits on peers so far (the
 * helpers above, and loops between hcrt__wait_begin and hcrt__wait_end);
 * the head's main thread tells region placement from it how much of a
 * call on all nodes it only waited for the other nodes. */
uint64_t hcrt__wait_thread_ns(void);

/* ---- the fault detector's side ---------------------------------------- */

/* A symptom: `peer` (or HCRT_WAIT_ANY) kept `what` waiting for `waited`
 * seconds. Must be async-signal-safe. */
typedef void (*hcrt_wait_symptom_cb)(int peer, const char *what, double waited);
/* The failure policy: `what` waits for `peer`, which failed. Returns the
 * status the wait returns (HCRT_ERR_NODE_FAILED), or never returns. Must
 * be async-signal-safe. */
typedef hcrt_status_t (*hcrt_wait_failed_cb)(int peer, const char *what);
void hcrt__wait_set_hooks(hcrt_wait_symptom_cb symptom,
                          hcrt_wait_failed_cb failed);

/* The deadline of requests that owe a quick answer (a DSM fetch, a
 * home's reply): HCRT_FAULT_WAIT_DEADLINE once the detector runs, else 0
 * (none). */
void hcrt__wait_set_reply_deadline(double seconds);
double hcrt__wait_reply_deadline(void);

/* FT mode (fault/ft.h): recoverable waits return on a failed peer. */
void hcrt__wait_set_ft(int on);
int hcrt__wait_ft(void);
/* How many ranks were declared failed. */
int hcrt__wait_nfailed(void);
/* Collective over the members of comm (ranks numbered as the job's) not
 * declared failed, all with the same view: a communicator over them
 * (MPI_Comm_create_group). comm itself when no rank failed. */
MPI_Comm hcrt__wait_live_comm(MPI_Comm comm);

/* Declares `rank` failed; every wait involving it calls the policy. */
void hcrt__wait_peer_failed(int rank);
int hcrt__wait_is_failed(int rank);
/* Ranks 0-63 declared failed, bit r for rank r. */
uint64_t hcrt__wait_failed_mask(void);
/* The failed rank a wait for `peer` must give up on, or -1. */
int hcrt__wait_failed_for(int peer);

#endif /* HCRT_WAIT_H */
