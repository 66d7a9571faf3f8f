/*
 * runtime.h - start-up and shutdown of libhcrt (internal).
 *
 * __hcrt_main() (emitted by the pass) and the runtime's C tests, which are not
 * compiled by hcc, both come through here.
 */
#ifndef HCRT_RUNTIME_H
#define HCRT_RUNTIME_H

#include <mpi.h>

#include "base/node.h" /* hcrt__hostname() */
#include "base/proc.h" /* hcrt__rank(), hcrt__comm_world(), ... */
#include "hcrt/hcrt.h"

/* Brings the runtime up: ignores SIGPIPE, parses settings, initialises MPI
 * with MPI_THREAD_MULTIPLE (refusing anything less, clearly), gathers node
 * facts, then the DSM and event threads as they exist. Idempotent; fatal
 * errors end the job with a message. */
hcrt_status_t hcrt__runtime_init(int *argc, char ***argv);

/* Orderly shutdown: statistics report, DSM and event teardown,
 * MPI_Finalize. Idempotent; registered with atexit() by init. */
void hcrt__runtime_fini(void);

#endif /* HCRT_RUNTIME_H */
