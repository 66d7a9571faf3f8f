/*
 * dreduce_api.c - the public reduction API (hcrt.h): futures over the
 * dynamic reduction (dreduce.h) for user buffers.
 *
 * The root folds into its recvbuf (a copy of its sendbuf at the start);
 * another rank gives its sendbuf as it is until it folds something, then a
 * buffer of its own (the first fold writes send op in there: no copy).
 */
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/dreduce.h"
#include "libhcrt/dreduce_api.h"
#include "libhcrt/dreduce_int.h"
#include "libhcrt/runtime.h"

struct hcrt_future {
    hcrt__dr_t *dr;
    const void *send;
    void *acc;  /* the partial once it differs from send */
    void *recv; /* the root's: its first fold writes there */
    int own_acc, is_root, have_result;
    size_t count, size, acc_cap;
    hcrt_type_t type;
    hcrt_op_t op;
    hcrt_reduce_op_cb user;
    void *arg;
};

static hcrt_status_t api_give(void *ctx, const void **buf, size_t *len)
{
    hcrt_future_t *f = ctx;
    *buf = f->acc ? f->acc : f->send;
    *len = f->count * f->size;
    return HCRT_OK;
}

static hcrt_status_t api_fold(void *ctx, void *in, size_t len)
{
    hcrt_future_t *f = ctx;
    if (len != f->count * f->size)
        hcrt_fatal(HCRT_MOD_CORE,
                   "a reduction received %zu bytes where this rank has %zu "
                   "(%zu elements of %zu bytes): every rank must pass the "
                   "same count and type",
                   len, f->count * f->size, f->count, f->size);
    const void *a = f->acc;
    if (!f->acc) { /* the first fold: send op in, written out of place */
        if (f->is_root) {
            f->acc = f->recv;
        } else {
            f->acc = hcrt__dr_buf_get(len, &f->acc_cap);
            if (!f->acc)
                return HCRT_ERR_NOMEM;
            f->own_acc = 1;
        }
        a = f->send;
    }
    if (f->user) {
        if (a != f->acc)
            memcpy(f->acc, a, len);
        f->user(f->acc, in, f->count, f->arg);
    } else {
        hcrt__dr_op_apply(f->type, f->op, f->acc, a, in, f->count);
    }
    return HCRT_OK;
}

/* FT mode: the raw input (the send buffer, unchanged on a non-root; the
 * root's is never needed: its inputs never leave it), folds into other
 * items, and a result that formed in one of them. */
static hcrt_status_t api_raw(void *ctx, const void **buf, size_t *len)
{
    hcrt_future_t *f = ctx;
    *buf = f->send;
    *len = f->count * f->size;
    return HCRT_OK;
}

static hcrt_status_t api_combine(void *ctx, void *inout, const void *in,
                                 size_t len)
{
    hcrt_future_t *f = ctx;
    if (len != f->count * f->size)
        return HCRT_ERR_INVALID;
    if (f->user)
        f->user(inout, in, f->count, f->arg);
    else
        hcrt__dr_op_apply(f->type, f->op, inout, inout, in, f->count);
    return HCRT_OK;
}

static void api_result(void *ctx, const void *buf, size_t len)
{
    hcrt_future_t *f = ctx;
    if (!buf && !f->acc) { /* a root alone (the others lost) */
        buf = f->send;
        len = f->count * f->size;
    }
    if (f->recv && buf && buf != f->recv && len == f->count * f->size)
        memcpy(f->recv, buf, len);
    f->have_result = 1;
}

static const hcrt__dr_ops_t api_ops = {api_give, NULL,        api_fold,  NULL,
                                       api_raw,  api_combine, api_result};

static hcrt_status_t start(hcrt_future_t *f, void *recvbuf, int root,
                           hcrt_future_t **future)
{
    size_t bytes = f->count * f->size;
    hcrt__runtime_lazy_init();
    if (hcrt__runtime_head_runs_main() && !hcrt__cluster_here()) {
        hcrt_warn(HCRT_MOD_CORE,
                  "hcrt_reduce_start called by the head's sequential code of "
                  "a program built by hcc: only the head runs there, so the "
                  "other ranks would never join; call it from every rank (an "
                  "SPMD program linked with -lhcrt, or one thread per node "
                  "inside a parallel region)");
        free(f);
        return HCRT_ERR_UNSUPPORTED;
    }
    if (hcrt__runtime_mpi_program() > 1) {
        hcrt_warn(HCRT_MOD_CORE,
                  "hcrt_reduce_start in a program that calls MPI_Init itself "
                  "(%d ranks): hcc's runtime does not use the program's MPI, "
                  "so it cannot reduce across ranks; use MPI_Reduce (or drop "
                  "the program's MPI_Init to let hcc run it across nodes)",
                  hcrt__runtime_mpi_program());
        free(f);
        return HCRT_ERR_UNSUPPORTED;
    }
    if (root < 0 || root >= hcrt__size() || (f->count && !f->send) ||
        (hcrt__rank() == root && f->count && !recvbuf) ||
        (f->size && f->count > SIZE_MAX / f->size)) {
        free(f);
        return HCRT_ERR_INVALID;
    }
    f->is_root = hcrt__rank() == root;
    f->recv = recvbuf;
    hcrt_status_t st = hcrt__dr_start(&api_ops, f, bytes, bytes, root, &f->dr);
    if (st != HCRT_OK) {
        free(f);
        return st;
    }
    *future = f;
    return HCRT_OK;
}

HCRT_EXPORT hcrt_status_t hcrt_reduce_start(const void *sendbuf, void *recvbuf,
                                            size_t count, hcrt_type_t type,
                                            hcrt_op_t op, int root,
                                            hcrt_future_t **future)
{
    size_t size = hcrt__dr_type_size(type);
    if (!future || !size || (unsigned)op >= HCRT_OP_COUNT ||
        !hcrt__dr_op_apply(type, op, NULL, NULL, NULL, 0))
        return HCRT_ERR_INVALID;
    hcrt_future_t *f = calloc(1, sizeof *f);
    if (!f)
        return HCRT_ERR_NOMEM;
    *f = (hcrt_future_t){
        .send = sendbuf, .count = count, .size = size, .type = type, .op = op};
    return start(f, recvbuf, root, future);
}

HCRT_EXPORT hcrt_status_t hcrt_reduce_start_user(
    const void *sendbuf, void *recvbuf, size_t count, size_t size,
    hcrt_reduce_op_cb op, void *arg, int root, hcrt_future_t **future)
{
    if (!future || !size || !op)
        return HCRT_ERR_INVALID;
    hcrt_future_t *f = calloc(1, sizeof *f);
    if (!f)
        return HCRT_ERR_NOMEM;
    *f = (hcrt_future_t){
        .send = sendbuf, .count = count, .size = size, .user = op, .arg = arg};
    return start(f, recvbuf, root, future);
}

HCRT_EXPORT hcrt_status_t hcrt_future_test(hcrt_future_t *future, int *done)
{
    if (!future || !done)
        return HCRT_ERR_INVALID;
    *done = hcrt__dr_test(future->dr, NULL);
    return HCRT_OK;
}

HCRT_EXPORT hcrt_status_t hcrt_future_wait(hcrt_future_t *future,
                                           hcrt_reduce_status_t *status)
{
    if (!future)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__dr_wait(future->dr);
    /* a root that folded nothing (one rank) still owes the result */
    if (st == HCRT_OK && future->is_root && !future->acc &&
        !future->have_result && future->recv != future->send)
        memcpy(future->recv, future->send, future->count * future->size);
    if (status) {
        status->status = st;
        hcrt__dr_outcome(future->dr, &status->lost_rank, &status->recovered,
                         &status->why);
    }
    hcrt__dr_free(future->dr);
    if (future->own_acc)
        hcrt__dr_buf_release(future->acc, future->acc_cap);
    free(future);
    return st;
}

HCRT_EXPORT hcrt_status_t hcrt_reduce(const void *sendbuf, void *recvbuf,
                                      size_t count, hcrt_type_t type,
                                      hcrt_op_t op, int root,
                                      hcrt_reduce_status_t *status)
{
    hcrt_future_t *f;
    hcrt_status_t st =
        hcrt_reduce_start(sendbuf, recvbuf, count, type, op, root, &f);
    if (st != HCRT_OK)
        return st;
    return hcrt_future_wait(f, status);
}
