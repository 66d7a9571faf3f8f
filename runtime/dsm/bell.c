/*
 * bell.c - wake-ups of the DSM service threads: a local eventfd, and
 * between ranks one UDP datagram per service-thread pass that sent protocol
 * messages (the mechanism: base/bell.c).
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
 * Routes and start-up: base/bell.h. A rank blocks only when every
 * peer's bells reach it (hcrt__dsm_bell_inbound_ok), else it polls as
 * before. HCRT_DSM_BELL=0 turns bells off, =1 makes a missing route an
 * error.
 */
#include "base/bell.h"
#include "base/config.h"
#include "base/log.h"
#include "dsm/dsm_int.h"

/* fds -1 until init: undo() may finish it without an init */
hcrt_bell_t hcrt__dsm_bell = {.efd = -1, .sfd = -1};

/* Collective over dsm.coll_comm (every rank calls it, whatever happens). */
hcrt_status_t hcrt__dsm_bell_init(void)
{
    /* the setting's choices auto|0|1 are HCRT_BELL_AUTO/OFF/ON */
    return hcrt__bell_init(&hcrt__dsm_bell, dsm.coll_comm,
                           hcrt__config_enum("HCRT_DSM_BELL"), HCRT_MOD_DSM,
                           "DSM", "HCRT_DSM_BELL");
}
