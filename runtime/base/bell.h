/*
 * bell.h - wake-ups of runtime threads that poll MPI: a local eventfd, and
 * between ranks a UDP datagram ("bell") per burst of messages sent.
 *
 * MPI cannot block without spinning, so the DSM service thread and the
 * event gate poll it; a polling thread that shares its core with
 * computation waits a scheduler tick for it, one that naps answers late.
 * A thread blocked in poll() on its bells is woken by the kernel at once
 * when a peer rings after sending it a message. Bells are hints carrying
 * the sender's rank: a lost or spurious one costs latency or a wake-up,
 * never correctness (every wait keeps a timeout).
 *
 * Routes: every rank binds a UDP port on all its addresses and publishes
 * it with its IPv4 interface addresses. A peer in the same network
 * namespace of the same boot is rung on 127.0.0.1; another on its address
 * in a subnet of one of this rank's interfaces (the cluster's network, as
 * Open MPI's TCP path also needs). Start-up rings every route once and
 * keeps only those whose bells arrived; a thread may block only when every
 * peer's bells reach its rank (hcrt__bell_inbound_ok).
 */
#ifndef HCRT_BELL_H
#define HCRT_BELL_H

#include <mpi.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdint.h>

#include "hcrt/hcrt.h"

enum { HCRT_BELL_AUTO = 0, HCRT_BELL_OFF, HCRT_BELL_ON }; /* setting order */

typedef struct hcrt_bell {
    int efd, sfd, rank, size, module;
    const char *what;         /* for messages: "DSM", "event" */
    struct sockaddr_in *to;   /* per peer; sin_port 0: no route */
    uint8_t *marked;          /* per peer: ring at the next flush */
    _Atomic int64_t *last_ns; /* per peer: monotonic time of the last ring */
    int nmarked;
    int inbound_ok; /* every peer's bells reach this rank */
    _Atomic uint64_t rung, woken;
} hcrt_bell_t;

/* Collective over comm. mode: HCRT_BELL_AUTO/OFF/ON (ON: a route missing
 * is an error naming `setting`). The eventfd exists in every mode. */
hcrt_status_t hcrt__bell_init(hcrt_bell_t *b, MPI_Comm comm, int mode,
                              int module, const char *what,
                              const char *setting);
void hcrt__bell_fini(hcrt_bell_t *b);
int hcrt__bell_inbound_ok(const hcrt_bell_t *b);
uint64_t hcrt__bell_wakeups(hcrt_bell_t *b);
/* One thread only: mark dest, ring every marked peer at the flush. */
void hcrt__bell_mark(hcrt_bell_t *b, int dest);
void hcrt__bell_flush(hcrt_bell_t *b);
/* Any thread: ring dest now (this rank's own eventfd for dest == rank),
 * unless this rank rang it less than gap_ns ago (0: always). */
void hcrt__bell_ring(hcrt_bell_t *b, int dest, int64_t gap_ns);
void hcrt__bell_local(hcrt_bell_t *b); /* async-signal-safe */
/* Blocks until a bell or ns passed; at once if one is pending. 1: woken. */
int hcrt__bell_wait(hcrt_bell_t *b, long ns);

/* A thread that polls MPI for a reply (the worker's wait for the next
 * fork, a DSM barrier) pauses between polls with hcrt__pause: it yields
 * for spin_ns after hcrt__pause_begin, then naps of 10 us doubling to
 * 0.5 ms. Once two yields of the thread within 200 ms lost its core for
 * over 1 ms each (the core is contended: a CPU hog or another job
 * computes on it), it naps instead of yielding for the next 100 ms: a
 * yielding thread that is still runnable waits up to a scheduler tick
 * for the core, a sleeping one is woken by its timer and preempts the
 * computation. */
typedef struct hcrt_pause {
    uint64_t start;
    long nap_ns;
} hcrt_pause_t;
void hcrt__pause_begin(hcrt_pause_t *p);
void hcrt__pause(hcrt_pause_t *p, uint64_t spin_ns);
/* The same for a wait whose peer rings bell b when it sends what is
 * awaited: past spin_ns it blocks on b, woken by the ring or after a nap
 * that doubles from 10 us to HCRT_BELL_NAP_MAX_NS (a lost bell costs at
 * most that). A waiter that naps 0.5 ms at most wakes 2 000 times a
 * second, and on a core it shares with computation each wake-up takes the
 * core from it (a worker waiting while the head runs a long stretch of
 * regions alone on the workers' cores too). b NULL, or some peer cannot
 * ring this rank: hcrt__pause. A ring starts the spin again (the message
 * may trail its bell). */
#define HCRT_BELL_NAP_MAX_NS 10000000L
void hcrt__pause_bell(hcrt_pause_t *p, uint64_t spin_ns, hcrt_bell_t *b);

/* First call of a runtime helper thread: names it (top -H, perf, gdb),
 * keeps its short sleeps short (timer slack 1 us) and, with `responsive`,
 * asks the scheduler for a short time slice (HCRT_HELPER_SLICE_US) so
 * that once woken it takes its core from a computation at once. */
void hcrt__helper_thread_start(const char *name, int responsive);

#endif
