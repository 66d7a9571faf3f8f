/*
 * dreduce_ft.c - the dynamic reduction in FT mode (docs/reduce.md
 * "Failures", fault/ft.h): each rank's raw input goes to its buddy (the
 * next live rank) when it starts an instance, on a communicator of its
 * own, and the sender rings the buddy's bell; the buddy's replica thread
 * (dreduce_rep.c) receives it at once and tells the instance's scheduler
 * when it is complete. The scheduler then serves a lost rank's input
 * from there (sched/dred_ft.c).
 *
 * A replica may come before its buddy started the instance or after it
 * ended: its tag names the instance (its id modulo a span, read back
 * near the buddy's next id) and the root, which the scheduler needs if
 * the replica's report is the first it hears of the instance.
 */
#include <stdlib.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/log.h"
#include "libhcrt/dreduce_int.h"
#include "libhcrt/fault/ft.h"

MPI_Comm hcrt__dr_rcomm = MPI_COMM_NULL;
static uint32_t rep_span = DR_REP_SPAN; /* a power of two */

/* tag = (id % span) * ranks + root, within the MPI library's MPI_TAG_UB */
static void span_init(void)
{
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(hcrt__dr_rcomm, MPI_TAG_UB, &ub, &flag);
    uint64_t max = flag && ub ? (uint64_t)*ub : 32767;
    while (rep_span > 1 && (uint64_t)rep_span * (uint64_t)hcrt__dr_size > max)
        rep_span /= 2;
    if (rep_span < DR_REP_SPAN_MIN)
        hcrt_fatal(HCRT_MOD_CORE,
                   "FT mode's reduction replicas need message tags up to "
                   "%d x %d ranks, but this MPI library's MPI_TAG_UB is %llu; "
                   "run fewer ranks or without FT mode",
                   DR_REP_SPAN_MIN, hcrt__dr_size, (unsigned long long)max);
}

int hcrt__dr_rep_tag(uint32_t id, int root)
{
    return (int)((id % rep_span) * (uint32_t)hcrt__dr_size + (uint32_t)root);
}

void hcrt__dr_rep_tag_read(int tag, uint32_t *id, int *root)
{
    uint32_t t = (uint32_t)tag / (uint32_t)hcrt__dr_size;
    uint32_t next = __atomic_load_n(&hcrt__dr_next_id, __ATOMIC_RELAXED);
    uint32_t diff = (t - next) % rep_span; /* the id nearest the next one */
    *root = tag % hcrt__dr_size;
    *id = diff < rep_span / 2 ? next + diff : next - (rep_span - diff);
}

void hcrt__dr_ft_init(int own_mpi)
{
    if (!hcrt__ft_on() || hcrt__dr_rcomm != MPI_COMM_NULL || hcrt__dr_size < 2)
        return;
    MPI_Comm_dup(hcrt__dr_comm, &hcrt__dr_rcomm);
    span_init();
    /* collective; without routes for UDP the replica thread naps */
    hcrt__dr_bell_up =
        hcrt__bell_init(&hcrt__dr_bell, hcrt__dr_rcomm, HCRT_BELL_AUTO,
                        HCRT_MOD_CORE, "reduction replica", NULL) == HCRT_OK;
    hcrt__dr_sched_ft_init();
    (void)hcrt__dr_sched_rank(0); /* decided before another thread asks */
    if (own_mpi) /* else the program may finalise MPI under the thread */
        hcrt__dr_rep_thread_start();
}

int hcrt__dr_ft(const hcrt__dr_t *r)
{
    return hcrt__dr_rcomm != MPI_COMM_NULL && r->ops->raw && r->ops->combine &&
           hcrt__dr_size > 1;
}

int hcrt__dr_req_abort(MPI_Request *req)
{
    int flag = 0;
    if (*req == MPI_REQUEST_NULL)
        return 0;
    MPI_Cancel(req);
    MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (!flag) /* a send to a lost peer: MPI drops it in the background */
        MPI_Request_free(req);
    *req = MPI_REQUEST_NULL;
    return !flag;
}

int hcrt__dr_buddy(void)
{
    for (int k = 1; k < hcrt__dr_size; k++) {
        int b = (hcrt__dr_rank + k) % hcrt__dr_size;
        if (!hcrt__ft_lost(b))
            return b;
    }
    return -1;
}

void hcrt__dr_rep_send(hcrt__dr_t *r)
{
    const void *buf;
    size_t len;
    r->rep_ns = hcrt__now_ns();
    if (r->rep_peer < 0 || r->ops->raw(r->ctx, &buf, &len) != HCRT_OK ||
        len > INT32_MAX ||
        MPI_Isend(buf, (int)len, MPI_BYTE, r->rep_peer,
                  hcrt__dr_rep_tag(r->id, r->root), hcrt__dr_rcomm,
                  &r->rep_req) != MPI_SUCCESS) {
        r->rep_req = MPI_REQUEST_NULL; /* this input is lost with its rank */
        return;
    }
    hcrt__bell_ring(&hcrt__dr_bell, r->rep_peer, 0); /* its thread wakes */
}

int hcrt__dr_rep_sent(hcrt__dr_t *r)
{
    int flag = 0;
    if (r->rep_req == MPI_REQUEST_NULL)
        return 1;
    MPI_Test(&r->rep_req, &flag, MPI_STATUS_IGNORE);
    if (!flag && hcrt__ft_lost(r->rep_peer)) {
        hcrt__dr_req_abort(&r->rep_req);
        return 1;
    }
    if (flag) /* the window in which this rank's loss loses its input */
        hcrt_debug(HCRT_MOD_CORE,
                   "reduction %u: replica to rank %d complete %.1f us after "
                   "its send, which came %.2f us after the start",
                   r->id, r->rep_peer,
                   1e-3 * (double)(hcrt__now_ns() - r->rep_ns),
                   1e-3 * (double)(r->rep_ns - r->start_ns));
    return flag;
}
