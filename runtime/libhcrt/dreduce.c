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
#include "libhcrt/fault/ft.h"

pthread_mutex_t hcrt__dr_lock = PTHREAD_MUTEX_INITIALIZER;
MPI_Comm hcrt__dr_comm = MPI_COMM_NULL;
int hcrt__dr_rank, hcrt__dr_size = 1;
static int dr_up; /* hcrt__dr_init ran (with or without MPI) */

#define DR_IDLE_SPIN_NS 1000000 /* yield this long, then nap (bell.h) */

static hcrt__dr_t *active; /* this rank's instances not yet ended */
uint32_t hcrt__dr_next_id; /* the k-th instance is the same everywhere */
static dr_ctl_t *early;    /* TASK/GIVE/END before the local start */
static int nearly, capearly;

/* Control messages in flight (sent, not yet complete). */
typedef struct outmsg {
    MPI_Request req;
    int to;
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

void hcrt__dr_init(MPI_Comm world, int own_mpi)
{
    dr_up = 1;
    if (world == MPI_COMM_NULL) /* one rank without MPI: all is local */
        return;
    MPI_Comm_dup(world, &hcrt__dr_comm);
    MPI_Comm_rank(hcrt__dr_comm, &hcrt__dr_rank);
    MPI_Comm_size(hcrt__dr_comm, &hcrt__dr_size);
    hcrt__dr_ft_init(own_mpi);
}

void hcrt__dr_fini(void)
{
    hcrt__dr_rep_fini();
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
        if (m->kind <= CTL_REPLICA)
            hcrt__dr_sched_handle(m);
        else
            hcrt__dr_rank_handle(m);
        return;
    }
    outmsg_t *o = malloc(sizeof *o);
    if (!o)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    o->m = *m;
    o->to = to;
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
        if (!done && hcrt__ft_on() && hcrt__ft_lost((*p)->to)) {
            hcrt__dr_req_abort(&(*p)->req);
            done = 1;
        }
        if (!done) {
            p = &(*p)->next;
            continue;
        }
        outmsg_t *o = *p;
        *p = o->next;
        free(o);
    }
}

hcrt__dr_t *hcrt__dr_find(uint32_t id)
{
    for (hcrt__dr_t *r = active; r; r = r->next)
        if (r->id == id)
            return r;
    return NULL;
}

static int data_tag(uint32_t id, int task)
{
    return DR_TAG_DATA0 + (int)(id % DR_TAG_SPAN) * DR_TAG_TASKS +
           task % DR_TAG_TASKS;
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

static dr_act_t *new_act(hcrt__dr_t *r, int kind, const dr_ctl_t *m)
{
    if (r->nacts == r->capacts) {
        int cap = r->capacts ? 2 * r->capacts : 2;
        dr_act_t *a = realloc(r->acts, (size_t)cap * sizeof *a);
        if (!a)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
        r->acts = a, r->capacts = cap;
    }
    dr_act_t *a = &r->acts[r->nacts++];
    *a = (dr_act_t){.kind = kind, .req = MPI_REQUEST_NULL};
    a->hitem = m->hitem, a->gitem = m->gitem, a->oitem = m->oitem;
    return a;
}

static dr_item_t *find_item(hcrt__dr_t *r, int id)
{
    for (int i = 0; i < r->nitems; i++)
        if (r->items[i].id == id)
            return &r->items[i];
    return NULL;
}

/* The bytes of item `item` of this rank (not its partial, item 0). */
static const void *item_buf(hcrt__dr_t *r, int item, size_t *len)
{
    if (item == 1 + hcrt__dr_rank) {
        const void *b = NULL;
        if (!r->ops->raw || r->ops->raw(r->ctx, &b, len) != HCRT_OK)
            return NULL;
        return b;
    }
    if (item >= 1 && item <= hcrt__dr_size)
        return hcrt__dr_rep_get(r->id, item - 1, len);
    dr_item_t *it = find_item(r, item);
    if (it)
        *len = it->len;
    return it ? it->buf : NULL;
}

static void give(hcrt__dr_t *r, const dr_ctl_t *m)
{
    const void *buf = NULL;
    size_t len = 0;
    hcrt_status_t st = HCRT_OK;
    if (m->gitem == 0)
        st = r->ops->give(r->ctx, &buf, &len);
    else if (!(buf = item_buf(r, m->gitem, &len)))
        hcrt_fatal(HCRT_MOD_CORE,
                   "reduction %u: this rank was asked for item %d, which it "
                   "does not hold (internal error)",
                   r->id, m->gitem);
    if (st != HCRT_OK || len > INT32_MAX)
        hcrt_fatal(HCRT_MOD_CORE,
                   "a reduction's partial of %zu bytes "
                   "cannot be sent (at most 2 GiB)",
                   len);
    dr_act_t *a = new_act(r, ACT_GIVE, m);
    a->peer = m->a, a->task = m->b;
    mpi_check(MPI_Isend(buf, (int)len, MPI_BYTE, a->peer,
                        data_tag(r->id, a->task), hcrt__dr_comm, &a->req),
              "a partial's send");
}

/* The reasons an END gave, kept for the program's lifetime: a status's
 * `why` outlives its future. Few: each names a lost rank. */
static const char *intern(const char *why, size_t max)
{
    static char *seen[64];
    static int nseen;
    for (int i = 0; i < nseen; i++)
        if (strncmp(seen[i], why, max) == 0)
            return seen[i];
    char *s = strndup(why, max - 1);
    if (!s)
        return "a rank was lost";
    if (nseen < 64)
        seen[nseen++] = s;
    return s; /* past 64 distinct reasons: one small leak each */
}

static void end_msg(hcrt__dr_t *r, const dr_ctl_t *m)
{
    end(r, (hcrt_status_t)m->status, m->a, m->extra, m->b);
    if (m->why[0])
        r->why = intern(m->why, sizeof m->why);
    size_t len = 0;
    const void *b = NULL;
    /* gitem: the root has a result (also a survivors' one) in item hitem */
    if (m->gitem && hcrt__dr_rank == r->root && r->ops->result &&
        (m->hitem == 0 || (b = item_buf(r, m->hitem, &len))))
        r->ops->result(r->ctx, b, len);
}

void hcrt__dr_rank_handle(const dr_ctl_t *m)
{
    hcrt__dr_t *r = hcrt__dr_find(m->id);
    if (!r) { /* its scheduler saw the others start first */
        if ((int32_t)(m->id - hcrt__dr_next_id) < 0)
            return; /* an instance this rank already ended */
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
        dr_act_t *a = new_act(r, ACT_FETCH, m);
        a->task = m->a, a->peer = m->b;
        a->t0 = hcrt__now_ns();
    } else if (m->kind == CTL_GIVE) {
        give(r, m);
    } else if (m->kind == CTL_END) {
        end_msg(r, m);
    }
}

/* Folds a fetched item into the holder's item (a raw one: into a copy,
 * the task's new item). */
static void fold_in(hcrt__dr_t *r, dr_act_t *a)
{
    hcrt_status_t st = HCRT_OK;
    if (a->hitem == 0) {
        st = r->ops->fold(r->ctx, a->rbuf, a->rlen);
    } else if (!r->ops->combine) {
        st = HCRT_ERR_INVALID;
    } else if (a->hitem >= 1 && a->hitem <= hcrt__dr_size) {
        size_t len = 0;
        const void *raw = item_buf(r, a->hitem, &len);
        void *copy = raw && len == a->rlen ? malloc(len ? len : 1) : NULL;
        if (r->nitems == r->capitems) {
            int cap = r->capitems ? 2 * r->capitems : 4;
            dr_item_t *it = realloc(r->items, (size_t)cap * sizeof *it);
            if (it)
                r->items = it, r->capitems = cap;
        }
        if (!copy || r->nitems == r->capitems)
            hcrt_fatal(HCRT_MOD_CORE,
                       "reduction %u: cannot rebuild item %d (%zu bytes; "
                       "out of memory or sizes differ)",
                       r->id, a->hitem, a->rlen);
        memcpy(copy, raw, len);
        st = r->ops->combine(r->ctx, copy, a->rbuf, len);
        r->items[r->nitems++] = (dr_item_t){a->oitem, copy, len};
    } else {
        dr_item_t *it = find_item(r, a->hitem);
        st = it && it->len == a->rlen
                 ? r->ops->combine(r->ctx, it->buf, a->rbuf, a->rlen)
                 : HCRT_ERR_INVALID;
    }
    if (st != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "a reduction's fold failed");
}

/* The giver of a fetch was lost: the scheduler recovers (case 3). */
static int fetch_lost(hcrt__dr_t *r, dr_act_t *a)
{
    if (a->rbuf) {
        hcrt__dr_req_abort(&a->req);
        a->rbuf = NULL; /* MPI may still write there: left to it */
    }
    dr_ctl_t m = {.kind = CTL_FAILED,
                  .id = r->id,
                  .rank = hcrt__dr_rank,
                  .root = r->root,
                  .a = a->task};
    hcrt__dr_send(hcrt__dr_sched_rank(r->id), &m);
    return 1;
}

/* A fetch: match the giver's message, receive it, fold it, report.
 * Returns 1 when the action is over. */
static int advance_fetch(hcrt__dr_t *r, dr_act_t *a)
{
    int flag = 0;
    if (!a->rbuf) {
        MPI_Message msg;
        MPI_Status st;
        int n;
        mpi_check(MPI_Improbe(a->peer, data_tag(r->id, a->task), hcrt__dr_comm,
                              &flag, &msg, &st),
                  "a probe");
        if (!flag)
            return hcrt__dr_ft(r) && hcrt__ft_lost(a->peer) && fetch_lost(r, a);
        MPI_Get_count(&st, MPI_BYTE, &n);
        a->rlen = (size_t)n;
        a->rbuf = hcrt__dr_buf_get(a->rlen, &a->rcap);
        if (!a->rbuf)
            hcrt_fatal(HCRT_MOD_CORE,
                       "out of memory in a reduction "
                       "(%zu bytes)",
                       a->rlen);
        mpi_check(MPI_Imrecv(a->rbuf, n, MPI_BYTE, &msg, &a->req), "receive");
    }
    mpi_check(MPI_Test(&a->req, &flag, MPI_STATUS_IGNORE), "a test");
    if (!flag)
        return hcrt__dr_ft(r) && hcrt__ft_lost(a->peer) && fetch_lost(r, a);
    fold_in(r, a);
    hcrt__dr_buf_put(a->rbuf, a->rcap);
    a->rbuf = NULL;
    dr_ctl_t m = {.kind = CTL_DONE,
                  .id = r->id,
                  .rank = hcrt__dr_rank,
                  .root = r->root,
                  .a = a->task,
                  .ns = (double)(hcrt__now_ns() - a->t0),
                  .bytes = a->rlen};
    hcrt__dr_send(hcrt__dr_sched_rank(r->id), &m);
    return 1;
}

/* A give: over when the send completed, or its holder was lost (the
 * scheduler gives the same item to another holder). */
static int advance_give(hcrt__dr_t *r, dr_act_t *a)
{
    int flag = 0;
    mpi_check(MPI_Test(&a->req, &flag, MPI_STATUS_IGNORE), "a test");
    if (!flag && hcrt__dr_ft(r) && hcrt__ft_lost(a->peer)) {
        hcrt__dr_req_abort(&a->req);
        flag = 1;
    }
    if (flag && a->gitem == 0 && r->ops->given)
        r->ops->given(r->ctx);
    return flag;
}

/* The actions there were on entry, once each: an action's report may
 * bring new ones at once (this rank schedules itself), which wait for
 * the next round, and an over one's slot takes the last (visited). */
static void advance(hcrt__dr_t *r)
{
    for (int i = r->nacts - 1; i >= 0; i--) {
        dr_act_t *a = &r->acts[i];
        int over =
            a->kind == ACT_FETCH ? advance_fetch(r, a) : advance_give(r, a);
        if (over)
            r->acts[i] = r->acts[--r->nacts];
    }
}

/* Control messages for this rank (its scheduler's or its ranks'), or
 * with tag DR_TAG_REP the replica reports. */
static void poll_ctl(int tag)
{
    while (hcrt__dr_comm != MPI_COMM_NULL) {
        int flag = 0;
        MPI_Message msg;
        dr_ctl_t m;
        mpi_check(MPI_Improbe(MPI_ANY_SOURCE, tag, hcrt__dr_comm, &flag, &msg,
                              MPI_STATUS_IGNORE),
                  "a probe");
        if (!flag)
            return;
        mpi_check(MPI_Mrecv(&m, sizeof m, MPI_BYTE, &msg, MPI_STATUS_IGNORE),
                  "a control receive");
        if (m.kind <= CTL_REPLICA)
            hcrt__dr_sched_handle(&m);
        else
            hcrt__dr_rank_handle(&m);
    }
}

void hcrt__dr_poll_replicas(void)
{
    poll_ctl(DR_TAG_REP);
}

static void progress_locked(void)
{
    if (hcrt__ft_on()) {
        poll_ctl(DR_TAG_REP); /* an instance ends after its replicas */
        hcrt__dr_sched_losses();
        hcrt__dr_rep_poll();
    }
    poll_ctl(DR_TAG_CTL);
    for (hcrt__dr_t *r = active; r; r = r->next) {
        advance(r);
        if (r->rep_req != MPI_REQUEST_NULL) /* complete: as soon as seen */
            hcrt__dr_rep_sent(r);
    }
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
    r->rep_req = MPI_REQUEST_NULL;
    r->start_ns = hcrt__now_ns();
    pthread_mutex_lock(&hcrt__dr_lock);
    /* the replica thread reads it (dreduce_ft.c) */
    r->id = __atomic_fetch_add(&hcrt__dr_next_id, 1, __ATOMIC_RELAXED);
    r->next = active;
    active = r;
    r->rep_peer = hcrt__dr_ft(r) ? hcrt__dr_buddy() : -1;
    dr_ctl_t m = {.kind = CTL_READY,
                  .id = r->id,
                  .rank = hcrt__dr_rank,
                  .root = root,
                  .b = r->rep_peer,
                  .bytes = bytes,
                  .window = window};
    hcrt__dr_send(hcrt__dr_sched_rank(r->id), &m);
    if (hcrt__dr_ft(r))
        hcrt__dr_rep_send(r);
    replay_early(r);
    progress_locked();
    pthread_mutex_unlock(&hcrt__dr_lock);
    *out = r;
    return HCRT_OK;
}

int hcrt__dr_test(hcrt__dr_t *r, hcrt_status_t *status)
{
    pthread_mutex_lock(&hcrt__dr_lock);
    if (!r->ended || r->nacts || r->rep_req != MPI_REQUEST_NULL)
        progress_locked();
    /* a giver's send completes after the end at a fast holder */
    int done = r->ended && !r->nacts && hcrt__dr_rep_sent(r);
    pthread_mutex_unlock(&hcrt__dr_lock);
    if (done && status)
        *status = r->status;
    return done;
}

hcrt_status_t hcrt__dr_wait(hcrt__dr_t *r)
{
    /* FT mode: a loss is this reduction's to recover (the scheduler ends
     * it with the status if it cannot): the wait goes on over the
     * survivors */
    hcrt_wait_t w = {.what = "a dynamic reduction",
                     .peer = HCRT_WAIT_ANY,
                     .busy = 1,
                     .recoverable = hcrt__dr_ft(r),
                     .survivors = hcrt__dr_ft(r)};
    hcrt_wait_state_t ws;
    hcrt_status_t st = HCRT_OK;
    hcrt__wait_begin(&ws);
    while (!hcrt__dr_test(r, &st)) {
        if (r->ops->poll)
            r->ops->poll(r->ctx);
        hcrt_status_t f = hcrt__wait_poll(&ws, &w);
        if (f != HCRT_OK && w.recoverable) {
            hcrt__wait_end(&ws);
            hcrt__wait_begin(&ws);
            continue;
        }
        if (f != HCRT_OK) { /* only with recovery: the policy returned */
            hcrt__wait_end(&ws);
            pthread_mutex_lock(&hcrt__dr_lock);
            end(r, f, hcrt__wait_failed_for(HCRT_WAIT_ANY), 0, 0);
            r->why = "a rank failed during the reduction and this rank "
                     "cannot go on without it (no recovery in this run)";
            pthread_mutex_unlock(&hcrt__dr_lock);
            return f;
        }
    }
    hcrt__wait_end(&ws);
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
    hcrt__dr_rep_forget(r->id);
    pthread_mutex_unlock(&hcrt__dr_lock);
    for (int i = 0; i < r->nitems; i++)
        free(r->items[i].buf);
    free(r->items);
    free(r->acts);
    free(r);
}
