/*
 * dreduce_ft.c - the dynamic reduction in FT mode (docs/reduce.md
 * "Failures", fault/ft.h): each rank's raw input goes to its buddy (the
 * next live rank) when it starts an instance, on a communicator of its
 * own; the buddy receives it whenever it makes progress, and tells the
 * instance's scheduler once the replica is complete. The scheduler then
 * serves a lost rank's input from there (sched/dred_ft.c).
 *
 * A replica may come before its buddy started the instance (kept until
 * then) or after it ended (dropped): its tag is the instance's id modulo
 * DR_REP_SPAN, read back near this rank's next id.
 */
#include <stdlib.h>

#include "base/log.h"
#include "libhcrt/dreduce_int.h"
#include "libhcrt/fault/ft.h"

MPI_Comm hcrt__dr_rcomm = MPI_COMM_NULL;

/* A replica this rank holds or receives. */
typedef struct rep {
    uint32_t id;
    int from, complete, reported;
    void *buf;
    size_t len;
    MPI_Request req;
    struct rep *next;
} rep_t;
static rep_t *reps;

void hcrt__dr_ft_init(void)
{
    if (!hcrt__ft_on() || hcrt__dr_rcomm != MPI_COMM_NULL)
        return;
    MPI_Comm_dup(hcrt__dr_comm, &hcrt__dr_rcomm);
    hcrt__dr_sched_ft_init();
}

int hcrt__dr_ft(const hcrt__dr_t *r)
{
    return hcrt__dr_rcomm != MPI_COMM_NULL && r->ops->raw && r->ops->combine &&
           hcrt__dr_size > 1;
}

void hcrt__dr_req_abort(MPI_Request *req)
{
    int flag = 0;
    if (*req == MPI_REQUEST_NULL)
        return;
    MPI_Cancel(req);
    MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (!flag) /* a send to a lost peer: MPI drops it in the background */
        MPI_Request_free(req);
    *req = MPI_REQUEST_NULL;
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
    if (r->rep_peer < 0 || r->ops->raw(r->ctx, &buf, &len) != HCRT_OK ||
        len > INT32_MAX ||
        MPI_Isend(buf, (int)len, MPI_BYTE, r->rep_peer,
                  (int)(r->id % DR_REP_SPAN), hcrt__dr_rcomm,
                  &r->rep_req) != MPI_SUCCESS)
        r->rep_req = MPI_REQUEST_NULL; /* this input is lost with its rank */
}

int hcrt__dr_rep_sent(hcrt__dr_t *r)
{
    int flag = 0;
    if (r->rep_req == MPI_REQUEST_NULL)
        return 1;
    MPI_Test(&r->rep_req, &flag, MPI_STATUS_IGNORE);
    if (!flag && hcrt__ft_lost(r->rep_peer)) {
        hcrt__dr_req_abort(&r->rep_req);
        flag = 1;
    }
    return flag;
}

/* The instance id a replica's tag names: the one nearest the next id. */
static uint32_t id_of(int tag)
{
    uint32_t diff = ((uint32_t)tag - hcrt__dr_next_id) % DR_REP_SPAN;
    return diff < DR_REP_SPAN / 2 ? hcrt__dr_next_id + diff
                                  : hcrt__dr_next_id - (DR_REP_SPAN - diff);
}

static void report(rep_t *p, const hcrt__dr_t *r)
{
    dr_ctl_t m = {.kind = CTL_REPLICA,
                  .id = p->id,
                  .rank = hcrt__dr_rank,
                  .root = r->root,
                  .a = p->from};
    p->reported = 1;
    hcrt__dr_send(hcrt__dr_sched_rank(p->id), &m);
}

static void post_new(void)
{
    for (;;) {
        int flag = 0, n;
        MPI_Message msg;
        MPI_Status st;
        MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, hcrt__dr_rcomm, &flag, &msg,
                    &st);
        if (!flag)
            return;
        MPI_Get_count(&st, MPI_BYTE, &n);
        rep_t *p = calloc(1, sizeof *p);
        if (p)
            p->buf = malloc(n ? (size_t)n : 1);
        if (!p || !p->buf)
            hcrt_fatal(HCRT_MOD_CORE,
                       "out of memory for a reduction's replica (%d bytes)", n);
        p->id = id_of(st.MPI_TAG);
        p->from = st.MPI_SOURCE;
        p->len = (size_t)n;
        MPI_Imrecv(p->buf, n, MPI_BYTE, &msg, &p->req);
        p->next = reps;
        reps = p;
    }
}

static void rep_free(rep_t **pp)
{
    rep_t *p = *pp;
    *pp = p->next;
    if (p->req != MPI_REQUEST_NULL)
        hcrt__dr_req_abort(&p->req);
    else
        free(p->buf); /* else MPI may still write there: left to it */
    free(p);
}

void hcrt__dr_rep_poll(void)
{
    if (hcrt__dr_rcomm == MPI_COMM_NULL)
        return;
    post_new();
    for (rep_t **pp = &reps; *pp;) {
        rep_t *p = *pp;
        if (!p->complete) {
            MPI_Test(&p->req, &p->complete, MPI_STATUS_IGNORE);
            if (!p->complete && hcrt__ft_lost(p->from)) {
                rep_free(pp); /* its sender was lost mid-way */
                continue;
            }
        }
        hcrt__dr_t *r = hcrt__dr_find(p->id);
        if (!r && (int32_t)(p->id - hcrt__dr_next_id) < 0 && p->complete) {
            rep_free(pp); /* for an instance this rank already ended */
            continue;
        }
        if (r && p->complete && !p->reported)
            report(p, r);
        pp = &p->next;
    }
}

void hcrt__dr_rep_started(hcrt__dr_t *r)
{
    for (rep_t *p = reps; p; p = p->next)
        if (p->id == r->id && p->complete && !p->reported)
            report(p, r);
}

void *hcrt__dr_rep_get(uint32_t id, int k, size_t *len)
{
    for (rep_t *p = reps; p; p = p->next)
        if (p->id == id && p->from == k && p->complete) {
            *len = p->len;
            return p->buf;
        }
    return NULL;
}

void hcrt__dr_rep_forget(uint32_t id)
{
    for (rep_t **pp = &reps; *pp;)
        if ((*pp)->id == id && (*pp)->complete)
            rep_free(pp);
        else
            pp = &(*pp)->next;
}
