/*
 * cluster_place.h - region placement in the cluster runtime (internal):
 * the head asks the policy (sched/placement.h) where each call of a cluster
 * region runs, times its cycles, runs head-alone calls with the whole
 * logical team, and moves the threads' threadprivate data (the executable's
 * TLS block) between the nodes when a region's team changes nodes
 * (docs/placement.md).
 */
#ifndef HCRT_CLUSTER_PLACE_H
#define HCRT_CLUSTER_PLACE_H

#include <mpi.h>
#include <stdint.h>

#include "hcrt/abi.h"
#include "sched/placement.h"

/* Every rank at cluster start-up (after the team sizes are known). */
void hcrt__cluster_place_init(void);
/* Every rank at cluster start-up (collective on `comm`): the head learns
 * the cores of the ranks on its host (cluster_cores.c). */
void hcrt__cluster_cores_init(MPI_Comm comm);
/* Head: the cores of a call on all nodes over those of a call on the head
 * alone (the placement policy's capacity). */
double hcrt__cluster_cores_capacity(void);
/* Head: the cores a call on the head alone runs on (0: unknown). */
int hcrt__cluster_cores_head(void);
/* Head's main thread, before a call on the head alone of `total` threads:
 * which cores each logical thread takes (cluster_cores_enter). 0 when
 * threads keep the head's cores (no other rank's to take). */
int hcrt__cluster_cores_plan(int total);
/* Head, logical thread k of that call: run on the cores of the rank that
 * runs k on all nodes, when that rank shares the head's host. */
void hcrt__cluster_cores_enter(int k);
/* Head, a thread of a call on all nodes: back on the head's cores. */
void hcrt__cluster_cores_home(void);
/* Head, at every fork of its main thread at level 0: the cycle of the
 * call chosen last ends here. */
void hcrt__cluster_place_cycle(uint64_t now_ns);
/* Head: whether the call chosen last is its region's first (placement
 * measures the head's share of a first call on all nodes). */
int hcrt__cluster_place_first_call(void);
/* Head, after a region's first call on all nodes: its fork-to-join time,
 * how long the head's main thread waited in it for the other nodes and
 * its CPU time in it (placement's estimate of the head alone). */
void hcrt__cluster_place_first_done(uint64_t region_ns, uint64_t wait_ns,
                                    uint64_t cpu_ns);
/* Head: where this call of `region` (a team of `total`) runs. */
hcrt_place_t hcrt__cluster_place_choose(const hcrt_region_desc_t *region,
                                        int total, uint64_t now_ns);
/* Head: runs the call on the head alone with `total` threads. */
void hcrt__cluster_place_run_head(hcrt_ident_t *loc,
                                  const hcrt_region_desc_t *region, void **args,
                                  int total);

/* threadprivate data follows the logical threads. Head, before a fork to
 * all nodes: whether the workers must receive their threads' TLS images
 * (sent after the command by hcrt__cluster_place_tls_send). */
int hcrt__cluster_place_tls_push(int total);
void hcrt__cluster_place_tls_send(int total);
/* Worker: receives the images of its threads; each thread installs its own
 * at region entry (hcrt__cluster_place_tls_enter) and, when images travel
 * after every call, saves it at the region's end (..._leave); the rank
 * sends them after the join (hcrt__cluster_place_tls_done, every rank).
 * The head takes them in at its next fork or exit (..._drain). A worker
 * prepares for a call of `total` threads before it runs (..._prepare). */
void hcrt__cluster_place_tls_prepare(int total);
void hcrt__cluster_place_tls_recv(int total);
void hcrt__cluster_place_tls_enter(int local_tid);
/* Bytes of the executable's TLS block (threadprivate, _Thread_local) a
 * thread, 0 without one; also when images cannot move (-static-hcrt). */
size_t hcrt__cluster_place_tls_bytes(void);
/* Head: whether it holds the current TLS images of every thread (the
 * calls since the last one on all nodes ran on the head alone). */
int hcrt__cluster_place_tls_at_head(void);
void hcrt__cluster_place_tls_leave(int local_tid);
void hcrt__cluster_place_tls_done(int total);
void hcrt__cluster_place_tls_drain(void);
/* Worker: answers the head's request for its threads' images (CMD_TLS). */
void hcrt__cluster_place_tls_serve(int total);

#endif /* HCRT_CLUSTER_PLACE_H */
