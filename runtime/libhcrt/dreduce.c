/*
 * dreduce.c - the dynamic reduction, each rank's side (dreduce.h): start,
 * the actions the scheduler hands out (give the partial to a holder, or
 * fetch a giver's and fold it), the end, and the progress loop.
 */
#include <stdlib.h>
#include <string.h>

#include "base/bell.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/dreduce_int.h"

pthread_mutex_t hcrt__dr_lock = PTHREAD_MUTEX_INITIALIZER;
MPI_Comm hcrt__dr_comm = MPI_COMM_NULL;
int hcrt__dr_rank, hcrt__dr_size = 1;
static int dr_up; /* hcrt__dr_init ran (with or without MPI) */

#define DR_IDLE_SPIN_NS 1000000 /* yield this long, then nap (bell.h) */

static hcrt__dr_t *active; /* this rank's instances not yet ended */
static uint32_t next_id;   /* the k-th instance is the same everywhere */
static dr_ctl_t *early;    /* TASK/GIVE/END before the local start */
static int nearly, capearly;

/* Control messages in flight (sent, not yet complete). */
typedef struct outmsg {
    MPI_Request req;
    dr_ctl_t m;
    struct outmsg *next;
} outmsg_t;
static outmsg_t *outbox;

/* Receive buffers are reused: a fresh malloc of megabytes per fold costs
 * a page fault per page (and a free unmaps it again). */
#define SPARES 4
static void *spare[SPARES];
static size_t spare_cap[SPARES];

void *hcrt__dr_buf_get(size_t len, size_t *cap)
{
    for (int i = 0; i < SPARES; i++)
        if (spare[i] && spare_cap[i] >= len) {
            void *p = spare[i];
            *cap = spare_cap[i];
            spare[i] = NULL;
            return p;
        }
    *cap = len ? len : 1;
    return malloc(*cap);
}

void hcrt__dr_buf_put(void *p, size_t cap)
{
    int small = 0;
    for (int i = 0; i < SPARES; i++) {
        if (!spare[i]) {
            spare[i] = p, spare_cap[i] = cap;
            return;
        }
        if (spare_cap[i] < spare_cap[small])
            small = i;
    }
    if (spare_cap[small] < cap) { /* keep the larger ones */
        free(spare[small]);
        spare[small] = p, spare_cap[small] = cap;
    } else {
        free(p);
    }
}

void hcrt__dr_init(MPI_Comm world)
{
    dr_up = 1;
    if (world == MPI_COMM_NULL) /* one rank without MPI: all is local */
        return;
    MPI_Comm_dup(world, &hcrt__dr_comm);
    MPI_Comm_rank(hcrt__dr_comm, &hcrt__dr_rank);
    MPI_Comm_size(hcrt__dr_comm, &hcrt__dr_size);
}

static void mpi_check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_CORE, "dynamic reduction: %s failed", what);
}

void hcrt__dr_buf_release(void *p, size_t cap)
{
    pthread_mutex_lock(&hcrt__dr_lock);
    hcrt__dr_buf_put(p, cap);
    pthread_mutex_unlock(&hcrt__dr_lock);
}

void hcrt__dr_send(int to, const dr_ctl_t *m)
{
    if (to == hcrt__dr_rank) {
        if (m->kind <= CTL_FAILED)
            hcrt__dr_sched_handle(m);
        else
            hcrt__dr_rank_handle(m);
        return;
    }
    outmsg_t *o = malloc(sizeof *o);
    if (!o)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    o->m = *m;
    mpi_check(MPI_Isend(&o->m, sizeof o->m, MPI_BYTE, to, DR_TAG_CTL,
                        hcrt__dr_comm, &o->req),
              "a control send");
    o->next = outbox;
    outbox = o;
}

static void flush_outbox(void)
{
    for (outmsg_t **p = &outbox; *p;) {
        int done = 0;
        mpi_check(MPI_Test(&(*p)->req, &done, MPI_STATUS_IGNORE), "a test");
        if (!done) {
            p = &(*p)->next;
            continue;
        }
        outmsg_t *o = *p;
        *p = o->next;
        free(o);
    }
}

static hcrt__dr_t *find(uint32_t id)
{
    for (hcrt__dr_t *r = active; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

static int data_tag(uint32_t id)
{
    return DR_TAG_DATA0 + (int)(id % DR_TAG_SPAN);
}

static void end(hcrt__dr_t *r, hcrt_status_t st, int lost, int recovered,
                int hint)
{
    r->ended = 1;
    r->status = st;
    r->lost_rank = lost;
    r->recovered = recovered;
    r->hint = hint;
    r->end_ns = hcrt__now_ns();
    if (st == HCRT_OK)
        r->why = recovered ? "complete, with recovered inputs" : "complete";
    else if (lost >= 0 && st == HCRT_ERR_NODE_FAILED)
        r->why = "a rank failed and its input could not be recovered";
    else
        r->why = "failed";
}

static void give(hcrt__dr_t *r, int holder)
{
    const void *buf;
    size_t len;
    if (r->ops->give(r->ctx, &buf, &len) != HCRT_OK || len > INT32_MAX)
        hcrt_fatal(HCRT_MOD_CORE,
                   "a reduction's partial of %zu bytes "
                   "cannot be sent (at most 2 GiB)",
                   len);
    r->act = ACT_GIVE;
    r->peer = holder;
    mpi_check(MPI_Isend(buf, (int)len, MPI_BYTE, holder, data_tag(r->id),
                        hcrt__dr_comm, &r->req),
              "a partial's send");
}

void hcrt__dr_rank_handle(const dr_ctl_t *m)
{
    hcrt__dr_t *r = find(m->id);
    if (!r) { /* its scheduler saw the others start first */
        if (nearly == capearly) {
            capearly = capearly ? 2 * capearly : 16;
            early = realloc(early, (size_t)capearly * sizeof *early);
            if (!early)
                hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
        }
        early[nearly++] = *m;
        return;
    }
    if (m->kind == CTL_TASK) {
        r->act = ACT_FETCH;
        r->task = m->a, r->peer = m->b;
        r->rbuf = NULL;
        r->t0 = hcrt__now_ns();
    } else if (m->kind == CTL_GIVE) {
        give(r, m->a);
    } else if (m->kind == CTL_END) {
        end(r, (hcrt_status_t)m->status, m->a, m->extra, m->b);
    }
}

/* A fetch: match the giver's message, receive it, fold it, report. */
static void advance_fetch(hcrt__dr_t *r)
{
    int flag = 0;
    if (!r->rbuf) {
        MPI_Message msg;
        MPI_Status st;
        int n;
        mpi_check(MPI_Improbe(r->peer, data_tag(r->id), hcrt__dr_comm, &flag,
                              &msg, &st),
                  "a probe");
        if (!flag)
            return;
        MPI_Get_count(&st, MPI_BYTE, &n);
        r->rlen = (size_t)n;
        r->rbuf = hcrt__dr_buf_get(r->rlen, &r->rcap);
        if (!r->rbuf)
            hcrt_fatal(HCRT_MOD_CORE,
                       "out of memory in a reduction "
                       "(%zu bytes)",
                       r->rlen);
        mpi_check(MPI_Imrecv(r->rbuf, n, MPI_BYTE, &msg, &r->req), "receive");
    }
    mpi_check(MPI_Test(&r->req, &flag, MPI_STATUS_IGNORE), "a test");
    if (!flag)
        return;
    if (r->ops->fold(r->ctx, r->rbuf, r->rlen) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "a reduction's fold failed");
    hcrt__dr_buf_put(r->rbuf, r->rcap);
    r->rbuf = NULL;
    r->act = ACT_NONE;
    dr_ctl_t m = {.kind = CTL_DONE,
                  .id = r->id,
                  .rank = hcrt__dr_rank,
                  .root = r->root,
                  .a = r->task,
                  .ns = (double)(hcrt__now_ns() - r->t0),
                  .bytes = r->rlen};
    hcrt__dr_send(hcrt__dr_sched_rank(r->id), &m);
}

static void advance(hcrt__dr_t *r)
{
    int flag = 0;
    if (r->act == ACT_FETCH) {
        advance_fetch(r);
    } else if (r->act == ACT_GIVE) {
        mpi_check(MPI_Test(&r->req, &flag, MPI_STATUS_IGNORE), "a test");
        if (flag) {
            r->act = ACT_NONE;
            if (r->ops->given)
                r->ops->given(r->ctx);
        }
    }
}

/* Control messages for this rank (its scheduler's or its ranks'). */
static void poll_ctl(void)
{
    while (hcrt__dr_comm != MPI_COMM_NULL) {
        int flag = 0;
        MPI_Message msg;
        dr_ctl_t m;
        mpi_check(MPI_Improbe(MPI_ANY_SOURCE, DR_TAG_CTL, hcrt__dr_comm, &flag,
                              &msg, MPI_STATUS_IGNORE),
                  "a probe");
        if (!flag)
            return;
        mpi_check(MPI_Mrecv(&m, sizeof m, MPI_BYTE, &msg, MPI_STATUS_IGNORE),
                  "a control receive");
        if (m.kind <= CTL_FAILED)
            hcrt__dr_sched_handle(&m);
        else
            hcrt__dr_rank_handle(&m);
    }
}

static void progress_locked(void)
{
    poll_ctl();
    for (hcrt__dr_t *r = active; r; r = r->next)
        advance(r);
    flush_outbox();
}

void hcrt__dr_progress(void)
{
    pthread_mutex_lock(&hcrt__dr_lock);
    progress_locked();
    pthread_mutex_unlock(&hcrt__dr_lock);
}

/* Messages that came before this rank started the instance. */
static void replay_early(hcrt__dr_t *r)
{
    for (int i = 0; i < nearly;) {
        if (early[i].id != r->id) {
            i++;
            continue;
        }
        dr_ctl_t m = early[i];
        early[i] = early[--nearly];
        hcrt__dr_rank_handle(&m);
    }
}

hcrt_status_t hcrt__dr_start(const hcrt__dr_ops_t *ops, void *ctx, size_t bytes,
                             uint64_t window, int root, hcrt__dr_t **out)
{
    if (!dr_up || root < 0 || root >= hcrt__dr_size)
        return HCRT_ERR_INVALID;
    hcrt__dr_t *r = calloc(1, sizeof *r);
    if (!r)
        return HCRT_ERR_NOMEM;
    r->ops = ops, r->ctx = ctx, r->bytes = bytes, r->root = root;
    r->lost_rank = -1;
    r->start_ns = hcrt__now_ns();
    pthread_mutex_lock(&hcrt__dr_lock);
    r->id = next_id++;
    r->next = active;
    active = r;
    dr_ctl_t m = {.kind = CTL_READY,
                  .id = r->id,
                  .rank = hcrt__dr_rank,
                  .root = root,
                  .bytes = bytes,
                  .window = window};
    hcrt__dr_send(hcrt__dr_sched_rank(r->id), &m);
    replay_early(r);
    progress_locked();
    pthread_mutex_unlock(&hcrt__dr_lock);
    *out = r;
    return HCRT_OK;
}

int hcrt__dr_test(hcrt__dr_t *r, hcrt_status_t *status)
{
    pthread_mutex_lock(&hcrt__dr_lock);
    if (!r->ended || r->act != ACT_NONE)
        progress_locked();
    /* a giver's send completes after the end at a fast holder */
    int done = r->ended && r->act == ACT_NONE;
    pthread_mutex_unlock(&hcrt__dr_lock);
    if (done && status)
        *status = r->status;
    return done;
}

hcrt_status_t hcrt__dr_wait(hcrt__dr_t *r)
{
    hcrt_wait_t w = {
        .what = "a dynamic reduction", .peer = HCRT_WAIT_ANY, .busy = 1};
    hcrt_wait_state_t ws;
    hcrt_status_t st = HCRT_OK;
    hcrt__wait_begin(&ws);
    while (!hcrt__dr_test(r, &st)) {
        if (r->ops->poll)
            r->ops->poll(r->ctx);
        hcrt_status_t f = hcrt__wait_poll(&ws, &w);
        if (f != HCRT_OK) { /* only with recovery: the policy returned */
            pthread_mutex_lock(&hcrt__dr_lock);
            end(r, f, hcrt__wait_failed_for(HCRT_WAIT_ANY), 0, 0);
            r->why = "a rank failed during the reduction and this rank "
                     "cannot go on without it (no recovery in this run)";
            pthread_mutex_unlock(&hcrt__dr_lock);
            return f;
        }
    }
    return st;
}

void hcrt__dr_outcome(const hcrt__dr_t *r, int *lost_rank, int *recovered,
                      const char **why)
{
    if (lost_rank)
        *lost_rank = r->lost_rank;
    if (recovered)
        *recovered = r->recovered;
    if (why)
        *why = r->why ? r->why : "running";
}

int hcrt__dr_hint(const hcrt__dr_t *r)
{
    return r->hint;
}

void hcrt__dr_free(hcrt__dr_t *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&hcrt__dr_lock);
    for (hcrt__dr_t **p = &active; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&hcrt__dr_lock);
    free(r->rbuf);
    free(r);
}
