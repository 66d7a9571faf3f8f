/*
 * heft_probe.h - start-up measurement of the links for the task cost model
 * (internal, libhcrt only: needs MPI).
 */
#ifndef HCRT_SCHED_HEFT_PROBE_H
#define HCRT_SCHED_HEFT_PROBE_H

#include <mpi.h>

#include "sched/heft.h"

/* Collective over `comm` (one rank per node, size = the model's node
 * count): measures latency and bandwidth of every pair of ranks and stores
 * them in `cm`, identically on every rank. With full_matrix the model keeps
 * one link per pair; otherwise their mean as a uniform link (cheaper to
 * schedule with, right on a flat network). Takes P - 1 rounds of a few
 * round trips and a few 1 MiB messages per pair. HCRT_ERR_INVALID if the
 * model has another node count. */
hcrt_status_t hcrt__heft_cost_measure_links(hcrt__heft_cost_t *cm,
                                            MPI_Comm comm, int full_matrix);

#endif /* HCRT_SCHED_HEFT_PROBE_H */
