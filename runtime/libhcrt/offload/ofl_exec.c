/*
 * ofl_exec.c - the head's executor of offload tasks: runs the data
 * manager's plans and the kernel of each task over the event system.
 *
 * An executor walks its task's `pre` plan, the kernel, then `post`, one
 * op at a time (ops of one plan run in order); an op whose `wait_op` has
 * not completed parks the executor on a list (no thread) until it does.
 * Async executors (target nowait) move on in event callbacks, so a
 * thousand in-flight tasks cost memory only; sync ones (undeferred
 * regions, data constructs) run on the caller's thread with `sync` events,
 * the fast path of the event system.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "base/wait.h"
#include "libhcrt/core.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/offload/ofl_exec_int.h"

ofl_state_t hcrt__ofl;
static int batch_enabled = 1; /* HCRT_OFFLOAD_BATCH */

/* libomp's, without omp.h (whose enum type we do not need). */
extern void ofl_fulfill_event(uintptr_t ev) __asm__("omp_fulfill_event");

int hcrt__offload_ndev(void)
{
    return hcrt__ofl.ndev;
}

void hcrt__offload_init(MPI_Comm comm)
{
    int rank, size;

    if (comm == MPI_COMM_NULL) /* one rank without MPI: no devices */
        return;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size < 2 || !hcrt__config_bool("HCRT_OFFLOAD"))
        return;
    /* Types first: the head may send as soon as its own init returns. */
    hcrt__ofl_node_register();
    if (hcrt__event_init(comm, NULL) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_TARGET, "cannot start the event system for "
                                    "target offload (see above); set "
                                    "HCRT_OFFLOAD=0 to run target regions on "
                                    "the head");
    ofl_state_t *s = &hcrt__ofl;
    s->rank = rank;
    s->size = size;
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->policy = hcrt__config_enum("HCRT_OFFLOAD_POLICY");
    s->shared_env = hcrt__config_enum("HCRT_OFFLOAD_DATA_ENV") == 1;
    batch_enabled = hcrt__config_bool("HCRT_OFFLOAD_BATCH");
    if (rank == 0) {
        if (hcrt__dm_create(size, &s->dm) != HCRT_OK)
            hcrt_fatal(HCRT_MOD_TARGET, "out of memory for the data manager");
        s->load_ns = calloc((size_t)size, sizeof(double));
        s->dev_kernels = calloc((size_t)size, sizeof(long));
        s->dev_run_ns = calloc((size_t)size, sizeof(double));
        if (!s->load_ns || !s->dev_kernels || !s->dev_run_ns)
            hcrt_fatal(HCRT_MOD_TARGET, "out of memory for the offload state");
    }
    s->up = 1;
    s->ndev = size - 1;
    hcrt__ofl_ft_init();
    hcrt_info(HCRT_MOD_TARGET, "target offload up: %d device(s) = ranks 1..%d",
              s->ndev, s->ndev);
}

void hcrt__offload_fini(void)
{
    if (!hcrt__ofl.up)
        return;
    hcrt__ofl.ndev = 0;
    hcrt__ofl.up = 0;
    hcrt__event_fini();
    if (hcrt__ofl.dm)
        hcrt__dm_destroy(hcrt__ofl.dm);
    hcrt__ofl.dm = NULL;
    free(hcrt__ofl.load_ns);
    free(hcrt__ofl.dev_kernels);
    free(hcrt__ofl.dev_run_ns);
    hcrt__ofl.load_ns = hcrt__ofl.dev_run_ns = NULL;
    hcrt__ofl.dev_kernels = NULL;
    free(hcrt__ofl.opdone);
    hcrt__ofl_graph_fini();
}

/* kernel times (hcrt__ofl_kernel_learn) and the per-device counters */
static pthread_mutex_t kt_lock = PTHREAD_MUTEX_INITIALIZER;

int hcrt__offload_print(FILE *out)
{
    ofl_state_t *s = &hcrt__ofl;
    if (!s->up || s->rank != 0)
        return 0;
    fprintf(out,
            "offload: %d device(s), policy %s; kernels launched %ld, data "
            "ops %ld, most tasks in flight at once %ld\n",
            s->ndev,
            s->policy == 1   ? "rr"
            : s->policy == 2 ? "locality"
            : s->policy == 3 ? "heft"
                             : "eft",
            atomic_load(&s->launched), atomic_load(&s->ops_run),
            atomic_load(&s->max_inflight));
    long batches = 0, placed = 0;
    double lat, bw;
    int measured;
    hcrt__ofl_graph_stats(&batches, &placed, &lat, &bw, &measured);
    if (s->policy == 3 && s->ndev > 1)
        fprintf(out,
                "offload: HEFT placed %ld recorded depend tasks in %ld "
                "graph batch(es); link %.1f us, %.2f GB/s (%s)\n",
                placed, batches, lat * 1e6, bw * 1e-9,
                measured ? "measured" : "default");
    pthread_mutex_lock(&kt_lock);
    for (int n = 1; s->dev_kernels && n < s->size; n++)
        if (s->dev_kernels[n])
            fprintf(out,
                    "offload: device %d (rank %d): %ld kernels, %.1f ms of "
                    "kernel run time (%.1f us each)\n",
                    n - 1, n, s->dev_kernels[n], s->dev_run_ns[n] * 1e-6,
                    s->dev_run_ns[n] * 1e-3 / (double)s->dev_kernels[n]);
    pthread_mutex_unlock(&kt_lock);
    hcrt__ofl_ft_print(out);
    return atomic_load(&s->launched) || atomic_load(&s->ops_run);
}

/* ---- op table: which planned ops have completed (lock held) -------------- */

static int op_done(int64_t id)
{
    ofl_state_t *s = &hcrt__ofl;
    return id < s->op_base || id >= s->op_end || s->opdone[id - s->op_base];
}

void hcrt__ofl_ops_add(const hcrt__dm_plan_t *p)
{
    ofl_state_t *s = &hcrt__ofl;

    if (s->ops_live == 0 && s->blocked == NULL && p->n > 0) {
        /* Every registered op has completed: start the table afresh. Not
         * this plan's own ops, nor those of the task's other plan (made
         * under the same lock, registered next): they have not started,
         * and a task planned next that finds the data arriving on its
         * node must wait for them. (Settling everything planned here let
         * a kernel joining another on a node read an input that the
         * other's forward had not brought yet: map_clauses one_to_many,
         * awave, under rr/heft placement.) */
        hcrt__dm_settle_before(s->dm, p->ops[0].id);
        s->op_base = s->op_end;
        memset(s->opdone, 0, (size_t)s->op_cap);
    }
    for (int32_t i = 0; i < p->n; i++) {
        int64_t id = p->ops[i].id;
        if (id < s->op_base) /* cannot happen: ids grow */
            hcrt_fatal(HCRT_MOD_TARGET, "offload op ids went backwards");
        while (id - s->op_base >= s->op_cap) {
            int64_t live = s->op_end - s->op_base, cap = s->op_cap;
            /* Shift out the completed prefix before growing. */
            int64_t k = 0;
            while (k < live && s->opdone[k])
                k++;
            if (k > 0) {
                memmove(s->opdone, s->opdone + k, (size_t)(cap - k));
                memset(s->opdone + cap - k, 0, (size_t)k);
                s->op_base += k;
                continue;
            }
            int64_t ncap = cap ? 2 * cap : 4096;
            uint8_t *v = realloc(s->opdone, (size_t)ncap);
            if (!v)
                hcrt_fatal(HCRT_MOD_TARGET, "out of memory for offload ops");
            memset(v + cap, 0, (size_t)(ncap - cap));
            s->opdone = v, s->op_cap = ncap;
        }
        if (id >= s->op_end)
            s->op_end = id + 1;
        s->ops_live++;
    }
}

static void advance(ofl_x_t *x);

/* Marks op id complete and restarts the executors that waited for it. */
static void mark_done(int64_t id)
{
    ofl_state_t *s = &hcrt__ofl;
    ofl_x_t *ready = NULL, **pp;

    pthread_mutex_lock(&s->lock);
    if (id >= s->op_base && id < s->op_end && !s->opdone[id - s->op_base]) {
        s->opdone[id - s->op_base] = 1;
        s->ops_live--;
    }
    for (pp = &s->blocked; *pp;) {
        ofl_x_t *x = *pp;
        if (op_done(x->wait_id)) {
            *pp = x->next_blocked;
            x->next_blocked = ready;
            ready = x;
        } else {
            pp = &x->next_blocked;
        }
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add(&s->ops_run, 1);
    while (ready) {
        ofl_x_t *x = ready;
        ready = x->next_blocked;
        advance(x);
    }
}

/* Whether x must wait for op id: async executors are parked (1), sync
 * ones sleep here until it completes (0). */
static int must_park(ofl_x_t *x, int64_t id)
{
    ofl_state_t *s = &hcrt__ofl;
    int park = 0;

    pthread_mutex_lock(&s->lock);
    if (x->sync) {
        while (!op_done(id))
            pthread_cond_wait(&s->cv, &s->lock);
    } else if (!op_done(id)) {
        x->wait_id = id;
        x->next_blocked = s->blocked;
        s->blocked = x;
        park = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return park;
}

/* ---- one op -------------------------------------------------------------- */

static void fail(const char *what, int node, hcrt_status_t st)
{
    hcrt_fatal(HCRT_MOD_TARGET, "target offload: %s on node %d failed: %s",
               what, node, hcrt_strerror(st));
}

static void op_finish(ofl_x_t *x, const hcrt__dm_op_t *op, hcrt_status_t st)
{
    if (st != HCRT_OK) {
        free(x->stage);
        x->stage = x->stage_host = NULL;
        if (hcrt__ofl_ft_retry(x, op->dst == HCRT_DM_HOST ? op->src : op->dst,
                               st))
            return; /* FT mode: x starts again on a survivor */
        fail(op->kind == HCRT_DM_OP_COPY ? "a data copy" : "a data operation",
             op->dst == HCRT_DM_HOST ? op->src : op->dst, st);
    }
    if (x->stage_host && x->ft) { /* FT mode: lands when x completes */
        hcrt__ofl_ft_hold(x, x->stage_host, x->stage, x->stage_len);
        x->stage = NULL;
    } else if (x->stage_host) { /* a copy home: from the staging buffer */
        memcpy(x->stage_host, x->stage, x->stage_len);
    }
    free(x->stage);
    x->stage = x->stage_host = NULL;
    x->opi++;
    mark_done(op->id);
}

static const hcrt__dm_op_t *cur_op(ofl_x_t *x)
{
    return &(x->phase == 0 ? &x->pre : &x->post)->ops[x->opi];
}

static void op_cb(hcrt__event_t *ev, void *arg)
{
    ofl_x_t *x = arg;
    op_finish(x, cur_op(x), hcrt__event_status(ev));
    advance(x);
}

/* Sends or waits the event of op; sync: completes it before returning.
 * Returns 1 when x was re-planned instead (FT mode): go on advancing. */
static int op_start(ofl_x_t *x, const hcrt__dm_op_t *op)
{
    hcrt__event_send_t s = {.timeout = HCRT_EVENT_TIMEOUT_DEFAULT,
                            .sync = x->sync,
                            .done = x->sync ? NULL : op_cb,
                            .arg = x};
    ofl_buf_hdr_t bh = {op->buf, op->off, op->len};
    ofl_attach_hdr_t ah = {op->buf, op->off, op->tbuf, op->toff};
    hcrt__event_buf_t b = {0};
    hcrt__event_t *ev = NULL, **evp = x->sync ? &ev : NULL;
    hcrt_status_t st;

    s.hdr = &bh, s.hdr_len = sizeof(bh);
    switch (op->kind) {
    case HCRT_DM_OP_ALLOC:
        s.type = OFL_EV_ALLOC, s.dest = op->dst;
        break;
    case HCRT_DM_OP_FREE:
        s.type = OFL_EV_FREE, s.dest = op->dst;
        break;
    case HCRT_DM_OP_ATTACH:
        s.type = OFL_EV_ATTACH, s.dest = op->dst;
        s.hdr = &ah, s.hdr_len = sizeof(ah);
        break;
    case HCRT_DM_OP_COPY:
        /* Host memory is staged: it may be DSM memory, which MPI must not
         * touch, and the caller may change it once the construct ends. */
        x->stage_len = op->len;
        x->stage = malloc(op->len ? op->len : 1);
        if (!x->stage)
            hcrt_fatal(HCRT_MOD_TARGET, "out of memory staging %llu bytes",
                       (unsigned long long)op->len);
        b = (hcrt__event_buf_t){x->stage, op->len};
        if (op->src == HCRT_DM_HOST) {
            memcpy(x->stage, (void *)(op->host + op->off), op->len);
            s.type = OFL_EV_PUT, s.dest = op->dst;
            s.nbufs = 1, s.bufs = &b;
        } else if (op->dst == HCRT_DM_HOST) {
            x->stage_host = (void *)(op->host + op->off);
            s.type = OFL_EV_GET, s.dest = op->src;
            s.nreply = 1, s.reply_bufs = &b;
        } else { /* worker to worker: the head only sends two headers */
            free(x->stage);
            x->stage = NULL;
            st = hcrt__event_forward(op->src, op->dst, OFL_EV_PUT, &bh,
                                     sizeof(bh), HCRT_EVENT_TIMEOUT_DEFAULT,
                                     x->sync ? NULL : op_cb, x, evp);
            goto sent;
        }
        break;
    default:
        hcrt_fatal(HCRT_MOD_TARGET, "unknown data manager op %d", op->kind);
    }
    st = hcrt__event_send(&s, evp);
sent:
    if (st != HCRT_OK) {
        int node = op->dst == HCRT_DM_HOST ? op->src : op->dst;
        free(x->stage);
        x->stage = x->stage_host = NULL;
        if (hcrt__ofl_ft_retry(x, node, st))
            return 1;
        fail("sending a data operation", node, st);
    }
    if (x->sync) {
        st = hcrt__event_wait(ev, -1.0);
        hcrt__event_release(ev);
        op_finish(x, op, st);
    }
    return 0;
}

/* ---- the kernel ------------------------------------------------------------
 */

static void kernel_finish(ofl_x_t *x, hcrt__event_t *ev, hcrt_status_t st)
{
    size_t len;
    const ofl_kernel_reply_t *r;

    if (st != HCRT_OK) {
        if (hcrt__ofl_ft_retry(x, x->node, st))
            return; /* FT mode: x starts again on a survivor */
        fail("a kernel", x->node, st);
    }
    r = hcrt__event_reply_hdr(ev, &len);
    if (len >= sizeof(*r))
        hcrt__ofl_kernel_learn(x->kh.kernel, x->node, (double)r->run_ns);
    x->phase = 2;
    x->opi = 0;
}

static void kernel_cb(hcrt__event_t *ev, void *arg)
{
    ofl_x_t *x = arg;
    kernel_finish(x, ev, hcrt__event_status(ev));
    advance(x);
}

static int kernel_start(ofl_x_t *x)
{
    hcrt__event_buf_t b[2];
    int nb = 0;
    if (x->xparams)
        b[nb++] = (hcrt__event_buf_t){x->xparams,
                                      x->kh.nparams * sizeof(ofl_param_t)};
    if (x->priv)
        b[nb++] = (hcrt__event_buf_t){x->priv, x->priv_len};
    hcrt__event_send_t s = {.type = OFL_EV_KERNEL,
                            .dest = x->node,
                            .hdr = &x->kh,
                            .hdr_len = x->kh_len,
                            .nbufs = nb,
                            .bufs = b,
                            .timeout = HCRT_EVENT_TIMEOUT_NONE,
                            .sync = x->sync,
                            .done = x->sync ? NULL : kernel_cb,
                            .arg = x};
    hcrt__event_t *ev = NULL;
    hcrt_status_t st = hcrt__event_send(&s, x->sync ? &ev : NULL);
    if (st != HCRT_OK) {
        if (hcrt__ofl_ft_retry(x, x->node, st))
            return 1;
        fail("sending a kernel", x->node, st);
    }
    atomic_fetch_add(&hcrt__ofl.launched, 1);
    if (x->sync) {
        st = hcrt__event_wait(ev, -1.0);
        kernel_finish(x, ev, st);
        hcrt__event_release(ev);
    }
    return 0;
}

static void x_finish(ofl_x_t *x)
{
    ofl_state_t *s = &hcrt__ofl;

    hcrt__ofl_ft_complete(x); /* FT mode: its data lands on the host now */
    pthread_mutex_lock(&s->lock);
    s->load_ns[x->node] -= x->est_ns;
    if (s->load_ns[x->node] < 0)
        s->load_ns[x->node] = 0;
    hcrt__ofl_claims_drop(x);
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_sub(&s->inflight, 1);
    if (x->sync) {
        atomic_store(&x->done, 1);
        return;
    }
    uintptr_t evt = x->omp_event;
    hcrt__ofl_x_free(x);
    if (evt)
        ofl_fulfill_event(evt);
}

/* A FREE completes on its own: nothing after it waits for it except
 * through the op table (buffer ids are never reused), so nobody waits. */
static void free_cb(hcrt__event_t *ev, void *arg)
{
    hcrt_status_t st = hcrt__event_status(ev);
    if (st != HCRT_OK && st != HCRT_ERR_NODE_FAILED) /* FT: lost, gone */
        hcrt_warn(HCRT_MOD_TARGET, "freeing a device buffer on node %d: %s",
                  hcrt__event_peer(ev), hcrt_strerror(st));
    mark_done((int64_t)(intptr_t)arg);
}

static void free_start(const hcrt__dm_op_t *op)
{
    ofl_buf_hdr_t bh = {op->buf, op->off, op->len};
    hcrt__event_send_t s = {.type = OFL_EV_FREE,
                            .dest = op->dst,
                            .hdr = &bh,
                            .hdr_len = sizeof(bh),
                            .done = free_cb,
                            .arg = (void *)(intptr_t)op->id};
    hcrt_status_t st = hcrt__event_send(&s, NULL);
    if (st ==
        HCRT_ERR_NODE_FAILED) /* FT mode: the node and its copy are gone */
        mark_done(op->id);
    else if (st != HCRT_OK)
        fail("sending a data operation", op->dst, st);
}

/* ---- batches: a run of ops on the task's node, with its kernel, sent as
 * one event (ofl_wire.h); one round trip instead of one per op ---------- */

static int batch_has(const ofl_x_t *x, int64_t id)
{
    for (int32_t i = 0; i < x->nbops; i++)
        if (x->bops[i]->id == id)
            return 1;
    return 0;
}

/* Whether op can join x's batch for node (lock held): it runs there, from
 * or to the head, and whatever it waits for is done or in the batch. A PUT
 * after a GET is left out: its bytes are read when the batch is sent. */
static int batchable(const ofl_x_t *x, const hcrt__dm_op_t *op, int node,
                     int got)
{
    if (op->wait_op >= 0 && !op_done(op->wait_op) && !batch_has(x, op->wait_op))
        return 0;
    switch (op->kind) {
    case HCRT_DM_OP_ALLOC:
    case HCRT_DM_OP_ATTACH:
    case HCRT_DM_OP_FREE:
        return op->dst == node;
    case HCRT_DM_OP_COPY:
        if (op->src == HCRT_DM_HOST && op->dst == node)
            return !got;
        return op->src == node && op->dst == HCRT_DM_HOST;
    case HCRT_DM_OP_WAIT:
        return 1;
    default:
        return 0;
    }
}

static int batch_add(ofl_x_t *x, const hcrt__dm_op_t *op)
{
    if (x->nbops == x->bops_cap) {
        int32_t cap = x->bops_cap ? 2 * x->bops_cap : 16;
        const hcrt__dm_op_t **v = realloc(x->bops, (size_t)cap * sizeof(*v));
        if (!v)
            return 0;
        x->bops = v, x->bops_cap = cap;
    }
    x->bops[x->nbops++] = op;
    return 1;
}

static void batch_cb(hcrt__event_t *ev, void *arg);
static void batch_finish(ofl_x_t *x, hcrt__event_t *ev, hcrt_status_t st);

/* A batch of x failed (st): FT mode re-plans x (1), else the job ends. */
static int batch_failed(ofl_x_t *x, int node, hcrt_status_t st)
{
    free(x->bblob);
    free(x->bget);
    x->bblob = x->bget = NULL;
    x->nbops = 0;
    if (hcrt__ofl_ft_retry(x, node, st))
        return 1;
    fail(x->bkernel ? "a kernel with its data" : "a batch of data operations",
         node, st);
    return 0;
}

/* How long the reply of x's kernel cannot come (seconds), as a hint to the
 * event handlers: half the kernel's learned time on its node, when that is
 * long enough that a sleep and a wake-up (~15-50 us on a loaded VM) cost
 * less than polling for it; 0 otherwise. Only x's own kernel: the work
 * queued before it on the node (the load counted at placement) counts
 * kernels that may be nearly done, and a hint too long holds a reply on
 * the critical path (measured: 2-4 ms late, some runs five times slower
 * on a 3-device stencil). */
#define QUIET_MIN_NS 40000.0
static double quiet_s(const ofl_x_t *x)
{
    double ns = hcrt__ofl_kernel_seen(x->kh.kernel, x->node);
    return ns >= 2 * QUIET_MIN_NS ? 0.5e-9 * ns : 0;
}

/* Collects the longest batch from x's position and sends it; returns 0
 * (and sends nothing) when it would hold fewer than two operations, 2
 * when x was re-planned (FT mode) instead. */
static int batch_start(ofl_x_t *x)
{
    ofl_state_t *s = &hcrt__ofl;
    int node = x->has_kernel ? x->node : -1, got = 0, kernel = 0, work = 0;
    int phase = x->phase;
    int32_t opi = x->opi;
    uint64_t put_len = 0, get_len = 0;

    x->nbops = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        if (phase == 1) {
            if (x->has_kernel) {
                kernel = 1;
                work++;
            }
            phase = 2, opi = 0;
            continue;
        }
        if (phase == 3)
            break;
        hcrt__dm_plan_t *p = phase == 0 ? &x->pre : &x->post;
        if (opi >= p->n) {
            phase++, opi = 0;
            continue;
        }
        const hcrt__dm_op_t *op = &p->ops[opi];
        if (node < 0 && op->kind != HCRT_DM_OP_WAIT)
            node = op->dst == HCRT_DM_HOST ? op->src : op->dst;
        if ((node <= 0 && op->kind != HCRT_DM_OP_WAIT) ||
            !batchable(x, op, node, got) || !batch_add(x, op))
            break;
        if (op->kind == HCRT_DM_OP_COPY && op->dst == HCRT_DM_HOST)
            got = 1, get_len += op->len;
        else if (op->kind == HCRT_DM_OP_COPY)
            put_len += op->len;
        if (op->kind != HCRT_DM_OP_WAIT)
            work++;
        opi++;
    }
    pthread_mutex_unlock(&s->lock);
    if (work < 2)
        return 0;
    x->bphase = phase, x->bopi = opi, x->bkernel = kernel;

    /* The blob: records (one per op but WAITs, and the kernel), kernel
     * parameters, private data, PUT bytes. */
    ofl_batch_hdr_t h = {.nrec = (uint32_t)work,
                         .has_kernel = (uint32_t)kernel};
    if (kernel) {
        h.kernel = x->kh.kernel;
        h.nparams = x->kh.nparams;
        h.device = x->kh.device;
        h.thread_limit = x->kh.thread_limit;
        h.priv_len = x->priv ? x->priv_len : 0;
    }
    h.put_len = put_len, h.get_len = get_len;
    size_t recs = (size_t)h.nrec * sizeof(ofl_rec_t),
           pars = (size_t)h.nparams * sizeof(ofl_param_t),
           privp = (h.priv_len + 7) & ~(uint64_t)7,
           len = recs + pars + privp + put_len;
    char *blob = calloc(1, len ? len : 1);
    void *get = get_len ? malloc(get_len) : NULL;
    if (!blob || (get_len && !get))
        hcrt_fatal(HCRT_MOD_TARGET,
                   "out of memory for a %zu-byte offload "
                   "batch",
                   len + (size_t)get_len);
    ofl_rec_t *r = (ofl_rec_t *)blob;
    char *put = blob + recs + pars + privp;
    int kernel_left = kernel;
    for (int32_t i = 0, k = 0; i <= x->nbops; i++) {
        /* the kernel record goes where the pre plan ends */
        if (kernel_left &&
            (i == x->nbops || (x->bops[i] >= x->post.ops &&
                               x->bops[i] < x->post.ops + x->post.n))) {
            kernel_left = 0;
            r[k++] = (ofl_rec_t){.kind = OFL_REC_KERNEL};
        }
        if (i == x->nbops)
            break;
        const hcrt__dm_op_t *op = x->bops[i];
        ofl_rec_t v = {.buf = op->buf, .off = op->off, .len = op->len};
        switch (op->kind) {
        case HCRT_DM_OP_WAIT:
            continue;
        case HCRT_DM_OP_ALLOC:
            v.kind = OFL_REC_ALLOC;
            break;
        case HCRT_DM_OP_FREE:
            v.kind = OFL_REC_FREE;
            break;
        case HCRT_DM_OP_ATTACH:
            v.kind = OFL_REC_ATTACH, v.tbuf = op->tbuf, v.toff = op->toff;
            break;
        default: /* COPY */
            if (op->dst == HCRT_DM_HOST) {
                v.kind = OFL_REC_GET;
            } else {
                v.kind = OFL_REC_PUT;
                memcpy(put, (void *)(op->host + op->off), op->len);
                put += op->len;
            }
        }
        r[k++] = v;
    }
    if (kernel) {
        /* more than the header holds: xparams has them all (ofl_target.c) */
        memcpy(blob + recs, x->xparams ? x->xparams : x->kh.p,
               h.nparams * sizeof(ofl_param_t));
        if (h.priv_len)
            memcpy(blob + recs + pars, x->priv, h.priv_len);
    }
    x->bblob = blob, x->bget = get;

    hcrt__event_buf_t b = {blob, len}, rb = {get, get_len};
    hcrt__event_send_t sd = {.type = OFL_EV_BATCH,
                             .dest = node,
                             .hdr = &h,
                             .hdr_len = sizeof(h),
                             .nbufs = 1,
                             .bufs = &b,
                             .nreply = get_len ? 1 : 0,
                             .reply_bufs = get_len ? &rb : NULL,
                             .timeout = kernel ? HCRT_EVENT_TIMEOUT_NONE
                                               : HCRT_EVENT_TIMEOUT_DEFAULT,
                             .sync = x->sync,
                             .done = x->sync ? NULL : batch_cb,
                             .arg = x,
                             .quiet = kernel ? quiet_s(x) : 0};
    hcrt__event_t *ev = NULL;
    hcrt_status_t st = hcrt__event_send(&sd, x->sync ? &ev : NULL);
    if (st != HCRT_OK)
        return batch_failed(x, node, st) ? 2 : 0;
    if (kernel)
        atomic_fetch_add(&hcrt__ofl.launched, 1);
    if (x->sync) { /* the caller's loop goes on */
        st = hcrt__event_wait(ev, -1.0);
        batch_finish(x, ev, st);
        hcrt__event_release(ev);
    }
    return 1;
}

/* The batch of x completed: GETs land in host memory, its ops are done. */
static void batch_finish(ofl_x_t *x, hcrt__event_t *ev, hcrt_status_t st)
{
    int node = hcrt__event_peer(ev);
    if (st != HCRT_OK) {
        batch_failed(x, node, st);
        return; /* FT mode: x starts again on a survivor */
    }
    char *get = x->bget;
    for (int32_t i = 0; i < x->nbops; i++) {
        const hcrt__dm_op_t *op = x->bops[i];
        if (op->kind == HCRT_DM_OP_COPY && op->dst == HCRT_DM_HOST) {
            void *host = (void *)(op->host + op->off), *held;
            if (x->ft && (held = malloc(op->len ? op->len : 1))) {
                memcpy(held, get, op->len); /* FT: lands when x completes */
                hcrt__ofl_ft_hold(x, host, held, op->len);
            } else if (x->ft) {
                hcrt_fatal(HCRT_MOD_TARGET, "out of memory for a target task");
            } else {
                memcpy(host, get, op->len);
            }
            get += op->len;
        }
    }
    if (x->bkernel) {
        size_t len;
        const ofl_kernel_reply_t *r = hcrt__event_reply_hdr(ev, &len);
        if (len >= sizeof(*r))
            hcrt__ofl_kernel_learn(x->kh.kernel, x->node, (double)r->run_ns);
    }
    free(x->bblob);
    free(x->bget);
    x->bblob = x->bget = NULL;
    x->phase = x->bphase, x->opi = x->bopi;
    int32_t n = x->nbops;
    x->nbops = 0;
    /* mark_done may restart other executors, never this one (it is not
     * parked); the ops stay valid: x's plans live until x is freed. */
    for (int32_t i = 0; i < n; i++)
        mark_done(x->bops[i]->id);
}

static void batch_cb(hcrt__event_t *ev, void *arg)
{
    ofl_x_t *x = arg;
    batch_finish(x, ev, hcrt__event_status(ev));
    advance(x);
}

/* Moves x on as far as it can go without waiting (async) or to its end
 * (sync). */
static void advance(ofl_x_t *x)
{
    for (;;) {
        int b = x->phase < 3 && batch_enabled ? batch_start(x) : 0;
        if (b == 2) /* FT mode: re-planned, from the start */
            continue;
        if (b) {
            if (!x->sync)
                return; /* batch_cb goes on */
            continue;
        }
        if (x->phase == 1) {
            if (!x->has_kernel) {
                x->phase = 2, x->opi = 0;
                continue;
            }
            if (kernel_start(x) || x->sync)
                continue;
            return; /* kernel_cb goes on */
        }
        if (x->phase == 3) {
            x_finish(x);
            return;
        }
        hcrt__dm_plan_t *p = x->phase == 0 ? &x->pre : &x->post;
        if (x->opi >= p->n) {
            x->phase++;
            x->opi = 0;
            continue;
        }
        const hcrt__dm_op_t *op = &p->ops[x->opi];
        if (op->wait_op >= 0 && must_park(x, op->wait_op))
            return; /* mark_done restarts it */
        if (op->kind == HCRT_DM_OP_WAIT) {
            x->opi++;
            mark_done(op->id);
            continue;
        }
        if (op->kind == HCRT_DM_OP_FREE) { /* fire and forget */
            x->opi++;
            free_start(op);
            continue;
        }
        if (op_start(x, op) || x->sync)
            continue; /* re-planned (FT mode), or done */
        return;       /* op_cb goes on */
    }
}

void hcrt__ofl_x_start(ofl_x_t *x)
{
    long n = atomic_fetch_add(&hcrt__ofl.inflight, 1) + 1;
    long m = atomic_load(&hcrt__ofl.max_inflight);
    while (n > m &&
           !atomic_compare_exchange_weak(&hcrt__ofl.max_inflight, &m, n))
        ;
    x->phase = 0;
    x->opi = 0;
    advance(x);
}

void hcrt__ofl_x_free(ofl_x_t *x)
{
    hcrt__ofl_ft_free(x);
    hcrt__dm_plan_fini(&x->pre);
    hcrt__dm_plan_fini(&x->post);
    free(x->bops);
    free(x->xparams);
    free(x->priv);
    free(x->cbuf);
    free(x->cshared);
    free(x);
}

/* ---- FT mode: a task whose node was lost starts again (ofl_ft.c) ---- */

static int first_lost(void)
{
    for (int r = 1; r < hcrt__ofl.size; r++)
        if (hcrt__wait_is_failed(r))
            return r;
    return -1;
}

int hcrt__ofl_ft_retry(ofl_x_t *x, int node, hcrt_status_t st)
{
    ofl_state_t *s = &hcrt__ofl;
    if (st != HCRT_ERR_NODE_FAILED || !hcrt__ft_on() || !hcrt__ft_nlost())
        return 0;
    int lost = hcrt__wait_is_failed(node)      ? node
               : hcrt__wait_is_failed(x->node) ? x->node
                                               : first_lost();
    if (!x->ft)
        hcrt__ft_unrecoverable(lost, "a target data construct (enter, exit or "
                                     "update data) was moving data to or from "
                                     "it, and data constructs are not re-run");
    hcrt__dm_plan_t old_pre, old_post;
    pthread_mutex_lock(&s->lock);
    hcrt_status_t r = hcrt__ofl_replan(x, &old_pre, &old_post);
    pthread_mutex_unlock(&s->lock);
    if (r == HCRT_ERR_UNSUPPORTED)
        hcrt__ft_unrecoverable(
            lost,
            "target task %s was running there with data mapped by target "
            "data or enter data, whose only copy may have been there; "
            "re-running the tasks that wrote it (lineage re-execution) is "
            "not implemented",
            x->ft->name ? x->ft->name : "?");
    if (r != HCRT_OK)
        hcrt__ft_unrecoverable(lost,
                               "no worker rank is left to re-run target "
                               "task %s (%s)",
                               x->ft->name ? x->ft->name : "?",
                               hcrt_strerror(r));
    free(x->stage);
    x->stage = x->stage_host = NULL;
    x->phase = 0, x->opi = 0;
    hcrt__ofl_ft_count(x, lost);
    /* nothing else waits for the old ops (the task's data was its own) */
    for (int32_t i = 0; i < old_pre.n; i++)
        mark_done(old_pre.ops[i].id);
    for (int32_t i = 0; i < old_post.n; i++)
        mark_done(old_post.ops[i].id);
    hcrt__dm_plan_fini(&old_pre);
    hcrt__dm_plan_fini(&old_post);
    return 1;
}

/* ---- learned kernel times per node (EWMA) -------------------------------- */

typedef struct ktime {
    uint64_t kernel;
    double *ns; /* per node, < 0: unknown */
    struct ktime *next;
} ktime_t;

#define KT_BUCKETS 1024
static ktime_t *kt[KT_BUCKETS];
#define KT_DEFAULT_NS 100000.0 /* an unknown kernel: 100 us */
#define KT_ALPHA 0.3

static ktime_t *kt_get(uint64_t kernel, int create)
{
    ktime_t **pp = &kt[kernel % KT_BUCKETS], *k;
    for (k = *pp; k; k = k->next)
        if (k->kernel == kernel)
            return k;
    if (!create || !(k = calloc(1, sizeof(*k))))
        return NULL;
    k->ns = malloc((size_t)hcrt__ofl.size * sizeof(double));
    if (!k->ns) {
        free(k);
        return NULL;
    }
    for (int i = 0; i < hcrt__ofl.size; i++)
        k->ns[i] = -1;
    k->kernel = kernel;
    k->next = *pp;
    *pp = k;
    return k;
}

double hcrt__ofl_kernel_est(uint64_t kernel, int node)
{
    double v = KT_DEFAULT_NS, sum = 0;
    int n = 0;

    pthread_mutex_lock(&kt_lock);
    ktime_t *k = kt_get(kernel, 0);
    if (k && k->ns[node] >= 0) {
        v = k->ns[node];
    } else if (k) { /* known elsewhere: the mean of the other nodes */
        for (int i = 1; i < hcrt__ofl.size; i++)
            if (k->ns[i] >= 0)
                sum += k->ns[i], n++;
        if (n)
            v = sum / n;
    }
    pthread_mutex_unlock(&kt_lock);
    return v;
}

double hcrt__ofl_kernel_seen(uint64_t kernel, int node)
{
    pthread_mutex_lock(&kt_lock);
    ktime_t *k = kt_get(kernel, 0);
    double v = k ? k->ns[node] : -1;
    pthread_mutex_unlock(&kt_lock);
    return v;
}

void hcrt__ofl_kernel_learn(uint64_t kernel, int node, double ns)
{
    pthread_mutex_lock(&kt_lock);
    ktime_t *k = kt_get(kernel, 1);
    if (k)
        k->ns[node] =
            k->ns[node] < 0 ? ns : (1 - KT_ALPHA) * k->ns[node] + KT_ALPHA * ns;
    if (hcrt__ofl.dev_kernels && node >= 0 && node < hcrt__ofl.size) {
        hcrt__ofl.dev_kernels[node]++;
        hcrt__ofl.dev_run_ns[node] += ns;
    }
    pthread_mutex_unlock(&kt_lock);
}
