/*
 * ft.h - FT mode: the job goes on without a lost worker rank (internal;
 * docs/faults.md "FT mode").
 *
 * With `hcrun --ft` (HCRT_FT=1 under `mpirun --enable-recovery`) the fault
 * detector reports a lost worker and the job goes on without it: every
 * rank learns the loss (hcrt__ft_lost), waits marked `recoverable`
 * (base/wait.h) return HCRT_ERR_NODE_FAILED to their callers, the event
 * system fails the events to and from it, and the modules registered with
 * hcrt__ft_on_lost recover what they can. Whatever cannot be recovered
 * ends the job through hcrt__ft_unrecoverable with one line that says
 * why. Losing the head (rank 0) and a rank cut off from all others still
 * end the job (the report of docs/faults.md); a loss in the runtime's
 * shutdown, after the head's program finished, ends it with the
 * program's status.
 *
 * This is the interface for other modules (the offload engine, a
 * fault-tolerant reduction): is FT on, which ranks are alive, a
 * notification when one is lost, a communicator over the survivors.
 */
#ifndef HCRT_FT_H
#define HCRT_FT_H

#include <mpi.h>

/* FT mode is on (the same on every rank; decided at hcrt__fault_init). */
int hcrt__ft_on(void);
/* Whether `rank` was lost (any thread; async-signal-safe). */
int hcrt__ft_lost(int rank);
/* Ranks lost so far. */
int hcrt__ft_nlost(void);
/* FT mode: waits until the detector decided about every rank it suspects
 * (bounded by its correlation window plus probe time); the seconds
 * waited. A rank found lost meanwhile is lost when it returns. */
double hcrt__ft_await_settled(void);
/* FT mode, the head, before a fork to every node: a worker that looks
 * stopped (its process on this host is, or its heartbeats stopped for two
 * periods) would meet the region, which cannot be recovered without it;
 * the fork waits until it shows life again or the detector decides
 * (bounded by the detector's timeout and probe time). Returns 1 when a
 * rank was lost meanwhile (the call then runs on the head alone). */
int hcrt__ft_fork_gate(void);
/* The live ranks in increasing order, up to max; returns how many. */
int hcrt__ft_live(int *ranks, int max);

/* Called once per lost rank on every surviving rank, on the detector's
 * thread: must be quick and must not wait for a peer (set a flag, fail
 * what waits for the rank). At most 8 callbacks. */
typedef void (*hcrt_ft_lost_cb)(int rank, void *arg);
void hcrt__ft_on_lost(hcrt_ft_lost_cb cb, void *arg);

/* Collective over the live members of comm (every live member must call
 * it with the same view of the lost ranks): a new communicator over them,
 * in the same order (MPI_Comm_create_group; PLATFORM.md). comm itself
 * when nothing was lost (no new communicator). */
MPI_Comm hcrt__ft_comm(MPI_Comm comm);

/* Ends the job because a loss touched state hcc cannot recover: logs
 * "fault: rank R was lost ...: WHY; the job ends", ends every rank with
 * HCRT_FAULT_STATUS. Any thread. */
_Noreturn void hcrt__ft_unrecoverable(int rank, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* What recovery re-did, for the report and HCRT_STATS. */
void hcrt__ft_count_redo(long tasks, long bytes, double seconds);
void hcrt__ft_counts(long *losses, long *tasks, long *bytes, double *seconds);
/* A parallel region call the head ran alone because a worker was lost. */
void hcrt__ft_count_head_alone(void);
long hcrt__ft_head_alone(void);

#endif /* HCRT_FT_H */
