/*
 * reduce.c - reductions (__kmpc_reduce protocol).
 *
 * One node: libomp picks the method (tree, critical or atomic) and returns
 * 1 (combine with fn, then end_reduce), 2 (atomic update) or 0 (nothing to
 * do).
 *
 * At the outer level of a cluster region hcrt runs the whole protocol
 * itself, never libomp's atomic method (a CPU atomic on a node's cached DSM
 * page is not atomic across nodes, and clang's atomic code for some types
 * calls libatomic directly):
 *   1. node-local combine: every thread publishes its reduce list, a node
 *      barrier, then the node's thread 0 folds the others' lists into its
 *      own with `fn` (the lists point to each thread's private copies);
 *   2. cross-node binomial tree over the ranks (log2(nodes) steps): a child
 *      releases its DSM writes and sends its reduce list to its parent;
 *      the parent acquires, folds the child's private copies (DSM memory:
 *      the pass moves private copies whose address escapes into the DSM
 *      stack arena, so the parent reads them by address) and answers, so
 *      the child's copies stay alive until they are read; or, for large
 *      partials or when a node was measured slow or late, the dynamic
 *      reduction (dreduce_omp.c, docs/reduce.md) with the same partials;
 *   3. rank 0's thread 0 returns 1 and the program's code combines the
 *      total into the shared variables; everyone else returns 0. A second
 *      node barrier keeps the other threads' copies alive until step 1 is
 *      done. The shared result becomes visible everywhere at the next
 *      cluster barrier or the region's join, as the spec requires.
 * A reduce list with a word that is neither DSM memory nor a small integer
 * (VLA sizes) cannot travel: then node 0's thread 0 of each node updates
 * the shared variables under a DSM cluster lock named by the reduction's
 * lock address (a linear chain, correct but slower).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm.h"
#include "libhcrt/cancel.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"
#include "libhcrt/dreduce.h"
#include "libhcrt/dreduce_omp.h"
#include "libhcrt/fault/fault.h"
#include "libhcrt/runtime.h"

#define HERE (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_here())
#define MAX_NODE_THREADS 1024

static void *node_lists[MAX_NODE_THREADS];   /* this node's threads' lists */
static uint64_t node_keys[MAX_NODE_THREADS]; /* which reduction each is */
static uint64_t n_tree, n_locked;            /* reductions by method */

void hcrt__cluster_reduce_counts(uint64_t *tree, uint64_t *locked)
{
    *tree = n_tree, *locked = n_locked;
}

/* The cluster lock a thread took (fallback), unlocked in end_reduce. */
static _Thread_local uint64_t held_lock;

/* The calling thread's stack, found once per thread. */
static _Thread_local uintptr_t stk_lo, stk_hi;

static void stack_bounds(void)
{
    pthread_attr_t a;
    void *lo;
    size_t len;

    if (stk_hi)
        return;
    /* A main thread on a DSM stack (mainstack.c): glibc still reports its
     * original stack. */
    if (hcrt__dsm_stack_find(__builtin_frame_address(0), &lo, &len)) {
        stk_lo = (uintptr_t)lo, stk_hi = (uintptr_t)lo + len;
        return;
    }
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        hcrt_fatal(HCRT_MOD_CORE, "cannot find the thread's stack");
    if (pthread_attr_getstack(&a, &lo, &len) == 0)
        stk_lo = (uintptr_t)lo, stk_hi = (uintptr_t)lo + len;
    pthread_attr_destroy(&a);
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_CORE, "cross-node reduction: %s failed", what);
}

/* Waits for a peer through base/wait.h (the fault detector wakes a wait
 * on a rank that failed, docs/faults.md): for `req` to complete, or (req
 * NULL) for the next message from `peer`, matched into *msg (MPI_Improbe)
 * with its size in *count. With cancellation on it also stops the job when
 * the loop this reduction ends was cancelled: the peer's thread that
 * cancelled it never comes. */
static void wait_peer(hcrt_ident_t *loc, MPI_Request *req, int peer, int tag,
                      MPI_Message *msg, int *count)
{
    /* busy, as the blocking calls it replaces spun inside Open MPI */
    hcrt_wait_t w = {.what = "a cross-node reduction", .peer = peer, .busy = 1};
    hcrt_wait_state_t ws;
    MPI_Status st;
    uint64_t next = 0;
    int flag = 0;

    hcrt__wait_begin(&ws);
    for (;;) {
        check(req ? MPI_Test(req, &flag, MPI_STATUS_IGNORE)
                  : MPI_Improbe(peer, tag, hcrt__cluster_reduce_comm(), &flag,
                                msg, &st),
              "wait");
        if (flag)
            break;
        if (hcrt__cancel_on && hcrt__now_ns() >= next) {
            hcrt__cancel_reduce_check(loc); /* a load at the word's home */
            next = hcrt__now_ns() + 1000000;
        }
        check(hcrt__wait_poll(&ws, &w) == HCRT_OK ? MPI_SUCCESS : MPI_ERR_OTHER,
              "wait");
    }
    hcrt__wait_end(&ws);
    if (!req)
        MPI_Get_count(&st, MPI_BYTE, count);
}

static void send_to(hcrt_ident_t *loc, const void *buf, int n, MPI_Datatype t,
                    int to, int tag)
{
    MPI_Request req;
    check(MPI_Isend(buf, n, t, to, tag, hcrt__cluster_reduce_comm(), &req),
          "send");
    wait_peer(loc, &req, to, tag, NULL, NULL);
}

/* A partial result on the wire: the reduce list, then a copy of the
 * sender's stack from its lowest private copy up to the stack's end (the
 * variables' sizes are not in the ABI, but each lies inside that window).
 * Words pointing elsewhere (DSM memory, VLA sizes) travel as they are.
 * The tree's messages also carry what its root decides the site's next
 * scheme by (dreduce_omp.c): the largest partial in the sender's subtree
 * and the longest any rank in it waited for its children. */
typedef struct red_hdr {
    uint64_t base, len, list;
    uint64_t win, late_ns;
} red_hdr_t;

static uintptr_t lowest_copy(void *data, size_t size)
{
    uintptr_t *w = data, lo = UINTPTR_MAX;
    stack_bounds();
    for (size_t i = 0; i < size / sizeof(void *); i++)
        if (w[i] >= stk_lo && w[i] < stk_hi && w[i] < lo)
            lo = w[i];
    return lo;
}

size_t hcrt__reduce_window(void *data, size_t size)
{
    uintptr_t lo = lowest_copy(data, size);
    return sizeof(red_hdr_t) + size + (lo == UINTPTR_MAX ? 0 : stk_hi - lo);
}

size_t hcrt__reduce_pack(void *data, size_t size, void **out)
{
    uintptr_t lo = lowest_copy(data, size);
    red_hdr_t h = {lo, lo == UINTPTR_MAX ? 0 : stk_hi - lo, size, 0, 0};
    char *msg = malloc(sizeof h + size + h.len);
    if (!msg)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    memcpy(msg, &h, sizeof h);
    memcpy(msg + sizeof h, data, size);
    memcpy(msg + sizeof h + size, (void *)lo, h.len);
    hcrt__dsm_release(); /* for private copies in DSM memory */
    *out = msg;
    return sizeof h + size + h.len;
}

void hcrt__reduce_unpack_fold(void *data, hcrt_reduce_fn_t fn, void *msg)
{
    red_hdr_t h;
    memcpy(&h, msg, sizeof h);
    uintptr_t *w = (uintptr_t *)((char *)msg + sizeof h);
    char *win = (char *)msg + sizeof h + h.list;
    for (size_t i = 0; i < h.list / sizeof(void *); i++)
        if (h.len && w[i] >= h.base && w[i] < h.base + h.len)
            w[i] = (uintptr_t)win + (w[i] - h.base);
    hcrt__dsm_acquire();
    fn(data, w);
}

static void send_partial(hcrt_ident_t *loc, void *data, size_t size, int to,
                         int tag, uint64_t win, uint64_t late_ns)
{
    void *msg;
    size_t n = hcrt__reduce_pack(data, size, &msg);
    red_hdr_t *h = msg;
    h->win = win > n ? win : n;
    h->late_ns = late_ns;
    send_to(loc, msg, (int)n, MPI_BYTE, to, tag);
    free(msg);
}

/* Receives a child's partial and folds it into `data` with `fn`; raises
 * *win and *late_ns to the child's subtree's. */
static void fold_partial(hcrt_ident_t *loc, void *data, hcrt_reduce_fn_t fn,
                         int from, int tag, uint64_t *win, uint64_t *late_ns)
{
    MPI_Request req;
    int n;

    MPI_Message m;
    wait_peer(loc, NULL, from, tag, &m, &n);
    char *msg = malloc((size_t)n);
    if (!msg)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory in a reduction");
    check(MPI_Imrecv(msg, n, MPI_BYTE, &m, &req), "receive");
    wait_peer(loc, &req, from, tag, NULL, NULL);
    red_hdr_t h;
    memcpy(&h, msg, sizeof h);
    if (h.win > *win)
        *win = h.win;
    if (h.late_ns > *late_ns)
        *late_ns = h.late_ns;
    hcrt__reduce_unpack_fold(data, fn, msg);
    free(msg);
}

/* Step 2 on the node's thread 0: binomial tree towards rank 0. A parent
 * acks its children once its own parent acked it (the root: once all came
 * in), with the root's choice of the site's next scheme, which it returns;
 * so DSM-resident copies stay alive until they were read, and every rank
 * learns the same choice. */
static int cross_node_tree(hcrt_ident_t *loc, void *data, size_t size,
                           hcrt_reduce_fn_t fn, int tag)
{
    MPI_Comm comm = hcrt__cluster_reduce_comm();
    int rank = hcrt__rank(), nodes = hcrt__size(), ack = 0, nkids = 0;
    int kids[32];
    uint64_t win = 0, late = 0, t0 = hcrt__now_ns();
    MPI_Request req;

    for (int step = 1; step < nodes; step <<= 1) {
        if (rank & step) { /* child: hand the partial to the parent */
            send_partial(loc, data, size, rank - step, tag, win, late);
            check(MPI_Irecv(&ack, 1, MPI_INT, rank - step, tag, comm, &req),
                  "receive");
            wait_peer(loc, &req, rank - step, tag, NULL, NULL);
            break;
        }
        if (rank + step >= nodes)
            continue;
        fold_partial(loc, data, fn, rank + step, tag, &win, &late);
        kids[nkids++] = rank + step;
        uint64_t waited = hcrt__now_ns() - t0;
        if (waited > late)
            late = waited;
    }
    if (rank == 0)
        ack = hcrt__dr_omp_decide(win, hcrt__dr_perf_spread(), (double)late);
    for (int i = 0; i < nkids; i++)
        send_to(loc, &ack, 1, MPI_INT, kids[i], tag);
    return ack;
}

/* A thread that cancelled the loop skipped the reduction, and its barrier
 * at the loop's end met this reduction's: its list is an old one. */
static void missing_threads(hcrt_ident_t *loc, int n, uint64_t key)
{
    for (int i = 0; i < n; i++)
        if (node_keys[i] != key)
            hcrt__cancel_reduce_refuse(loc);
}

static int32_t cluster_reduce(hcrt_ident_t *loc, int32_t gtid, size_t size,
                              void *data, hcrt_reduce_fn_t fn,
                              hcrt_critical_name_t *lck)
{
    int tid = omp_get_thread_num(), n = omp_get_num_threads();
    uint32_t seq = hcrt__cluster_next_ws();
    int tag = (int)(seq & 0x7fff);
    int32_t ret = 0;

    if (n > MAX_NODE_THREADS)
        hcrt__cluster_unsupported(loc, "a reduction with more than 1024 "
                                       "threads on one node");
    if (hcrt__cancel_on)
        hcrt__cancel_reduce_check(loc);
    node_lists[tid] = data;
    hcrt__doing_set(HCRT_DOING_REDUCTION, loc);
    node_keys[tid] = hcrt__cancel_reduce_key(seq);
    __kmpc_barrier(loc, gtid);
    if (hcrt__cancel_on)
        missing_threads(loc, n, node_keys[tid]);
    if (tid == 0) {
        for (int i = 1; i < n; i++)
            fn(data, node_lists[i]);
        if (size % sizeof(void *) == 0) {
            if (hcrt__dr_omp_mode(loc)) { /* dreduce_omp.c */
                hcrt__dr_omp_reduce(loc, data, size, fn);
            } else {
                hcrt__dr_omp_learn(loc,
                                   cross_node_tree(loc, data, size, fn, tag));
                n_tree++;
            }
            ret = hcrt__rank() == 0;
        } else { /* not a list of words: not clang's or flang's layout */
            n_locked++;
            held_lock = (uint64_t)(uintptr_t)lck;
            hcrt__cluster_lock(held_lock);
            ret = 1;
        }
    }
    __kmpc_barrier(loc, gtid);
    hcrt__doing_set(HCRT_DOING_REGION, NULL);
    return ret;
}

static void cluster_end_reduce(void)
{
    if (held_lock) {
        uint64_t id = held_lock;
        held_lock = 0;
        hcrt__cluster_unlock(id);
    }
}

HCRT_ABI_EXPORT int32_t __hcrt_reduce(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t nvars, size_t size, void *data,
                                      hcrt_reduce_fn_t fn,
                                      hcrt_critical_name_t *lck)
{
    if (HERE)
        return cluster_reduce(loc, gtid, size, data, fn, lck);
    return __kmpc_reduce(loc, gtid, nvars, size, data, fn, lck);
}

HCRT_ABI_EXPORT int32_t __hcrt_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                             int32_t nvars, size_t size,
                                             void *data, hcrt_reduce_fn_t fn,
                                             hcrt_critical_name_t *lck)
{
    if (HERE)
        return cluster_reduce(loc, gtid, size, data, fn, lck);
    return __kmpc_reduce_nowait(loc, gtid, nvars, size, data, fn, lck);
}

HCRT_ABI_EXPORT void __hcrt_end_reduce(hcrt_ident_t *loc, int32_t gtid,
                                       hcrt_critical_name_t *lck)
{
    if (HERE) {
        cluster_end_reduce();
        return;
    }
    __kmpc_end_reduce(loc, gtid, lck);
}

HCRT_ABI_EXPORT void __hcrt_end_reduce_nowait(hcrt_ident_t *loc, int32_t gtid,
                                              hcrt_critical_name_t *lck)
{
    if (HERE) {
        cluster_end_reduce();
        return;
    }
    __kmpc_end_reduce_nowait(loc, gtid, lck);
}
