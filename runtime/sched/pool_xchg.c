/*
 * pool_xchg.c - the probe exchange of a HetProbe pool between the nodes:
 * the only MPI of the loop schedulers (the window protocol, hp_*.c, sees
 * an opaque hcrt__cl_xchg_t).
 *
 * Messages on a communicator of their own, sent and received by the nodes'
 * own threads: a node's leader sends its measurement to every other node
 * and receives theirs; the first node done with its probe sends each a
 * close. These were DSM words homed at node 0: every load by another node
 * waited for node 0's DSM service thread, which shares a core with node
 * 0's compute thread and got it a time slice late - per word, five words
 * per node per exchange. A HetProbe-I window of 15 ms of ep spent 7-20 ms
 * gathering, and node 1's polls of the close word took its probe 3-15 ms
 * for a handful of iterations. Tags: a loop claims one sequence number per
 * window, so (sequence + window) mod TAG_SPAN tells apart the windows of
 * the loops running at once; every message of a window is received before
 * the window ends, so none is left for a later tag's reuse.
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "sched/pool_int.h"
#include "sched/pool_xchg.h"

#define WORDS 7         /* a node's measurement (hcrt__cl_publish) */
#define TAG_SPAN 0x2000 /* tags: (pool sequence + window) mod span */
#define TAG_CLOSE 0x2000
#define TAG_EXT                                                                \
    0x4000 /* the extensions (highest tag 0x7fff: MPI's minimum                \
              MPI_TAG_UB) */

/* The exchange's window (its number), whether this node sent a close, the
 * first close received (its value), from which nodes a close came, this
 * node's message and close, the requests (measurement sends, receives,
 * close sends: nn - 1 each). */
struct hcrt__cl_xchg {
    int nn, me;
    uint32_t seq;
    int xwin, xsent;
    uint64_t xclose, xclose_v;
    uint8_t *xgot;
    uint64_t xmine[WORDS + 1];
    MPI_Request *xreq;
    uint64_t *xin;  /* the others' measurements: (nn - 1) x 7 words */
    uint64_t *xext; /* every node's extension (hcrt__cl_ext_exchange) */
};

static uint64_t fbits(double d)
{
    float f = (float)d;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static double bitsf(uint64_t v)
{
    uint32_t u = (uint32_t)v;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

hcrt__cl_xchg_t *hcrt__cl_xchg_new(int nn, int me, uint32_t seq)
{
    hcrt__cl_xchg_t *x = calloc(1, sizeof(*x));
    if (!x || !(x->xgot = calloc((size_t)nn, 1)) ||
        !(x->xreq = calloc(3 * (size_t)nn, sizeof(MPI_Request))) ||
        !(x->xin = calloc((size_t)nn * (WORDS + 1), sizeof(uint64_t))) ||
        !(x->xext = calloc((size_t)nn, sizeof(uint64_t))))
        hcrt_fatal(HCRT_MOD_SCHED, "out of memory for a loop pool");
    x->nn = nn, x->me = me, x->seq = seq;
    x->xwin = -1;
    return x;
}

void hcrt__cl_xchg_free(hcrt__cl_xchg_t *x)
{
    if (!x)
        return;
    free(x->xgot), free(x->xreq), free(x->xin), free(x->xext);
    free(x);
}

static MPI_Comm comm = MPI_COMM_NULL;

void hcrt__cl_xchg_init(MPI_Comm c)
{
    comm = c;
}

static MPI_Comm xcomm(void)
{
    return comm;
}

static int xtag(const hcrt__cl_xchg_t *x, int win)
{
    return (int)((x->seq + 1 + (uint32_t)win) % TAG_SPAN);
}

static void xcheck(int rc, const char *what)
{
    if (rc != MPI_SUCCESS)
        hcrt_fatal(HCRT_MOD_SCHED, "probe exchange: %s failed", what);
}

/* Per-window state: which nodes' close this node received. */
static void xwindow(hcrt__cl_xchg_t *x, int win)
{
    if (x->xwin == win)
        return;
    x->xwin = win;
    x->xsent = 0;
    x->xclose = 0;
    memset(x->xgot, 0, (size_t)x->nn);
    for (int i = 0; i < 3 * x->nn; i++)
        x->xreq[i] = MPI_REQUEST_NULL;
}

/* Sent without waiting (completed with the window's gather), so that no
 * node blocks in a send that its peer, waiting for this node's
 * measurement, has not received yet. */
void hcrt__cl_close(hcrt__cl_xchg_t *x, int win, uint64_t probe_us)
{
    int no = x->nn - 1;
    xwindow(x, win);
    x->xsent = 1;
    x->xclose_v = probe_us + 1;
    for (int k = 0, i = 0; k < x->nn; k++)
        if (k != x->me)
            xcheck(MPI_Isend(&x->xclose_v, 1, MPI_UINT64_T, k,
                             xtag(x, win) | TAG_CLOSE, xcomm(),
                             &x->xreq[2 * no + i++]),
                   "send (close)");
}

/* Waits of the exchange go through base/wait.h: the fault detector
 * wakes them when a node fails (docs/faults.md). Busy, as the MPI_Recv
 * and MPI_Waitall they replace. */
static void xwait(int n, MPI_Request *rq, int peer, const char *what)
{
    hcrt_wait_t w = {.what = what, .peer = peer, .busy = 1};
    xcheck(hcrt__wait_requests(n, rq, &w) == HCRT_OK ? MPI_SUCCESS
                                                     : MPI_ERR_OTHER,
           what);
}

static void recv_close(hcrt__cl_xchg_t *x, int win, int from)
{
    uint64_t v;
    MPI_Request rq;
    xcheck(MPI_Irecv(&v, 1, MPI_UINT64_T, from, xtag(x, win) | TAG_CLOSE,
                     xcomm(), &rq),
           "receive (close)");
    xwait(1, &rq, from, "the probe exchange (close)");
    x->xgot[from] = 1;
    if (!x->xclose)
        x->xclose = v ? v : 1;
}

uint64_t hcrt__cl_closed(hcrt__cl_xchg_t *x, int win)
{
    int flag = 0;
    MPI_Status st;
    xwindow(x, win);
    if (x->xclose)
        return x->xclose;
    xcheck(MPI_Iprobe(MPI_ANY_SOURCE, xtag(x, win) | TAG_CLOSE, xcomm(), &flag,
                      &st),
           "probe (close)");
    if (flag)
        recv_close(x, win, st.MPI_SOURCE);
    return x->xclose;
}

static hcrt__hetprobe_node_meas_t decode(const uint64_t *v)
{
    double secs = bitsf(v[1]), elapsed_us = bitsf(v[3]);
    double cm = bitsf(v[4] & 0xffffffffu);
    return (hcrt__hetprobe_node_meas_t){
        .iters = v[0],
        .speed = secs > 0 && v[0] > 0 ? (double)v[0] / secs : 0.0,
        .faults = v[2],
        .period_us = v[2] ? elapsed_us / (double)v[2] : 0.0,
        .cmpki = (v[4] >> 32) & 1 ? cm : -1.0,
        .fault_share = bitsf(v[5]),
        .written = v[6]};
}

/* The message: the WORDS words, then whether this node sent a close
 * (receivers then take it before the window ends). */
void hcrt__cl_publish(hcrt__cl_xchg_t *x, int win, const uint64_t v[WORDS])
{
    xwindow(x, win);
    memcpy(x->xmine, v, sizeof(uint64_t) * WORDS);
    x->xmine[WORDS] = (uint64_t)x->xsent;
    for (int k = 0, i = 0; k < x->nn; k++)
        if (k != x->me)
            xcheck(MPI_Isend(x->xmine, WORDS + 1, MPI_UINT64_T, k, xtag(x, win),
                             xcomm(), &x->xreq[i++]),
                   "send");
}

/* Posts the receives of every other node's measurement of window `win`
 * (after hcrt__cl_publish; one thread of the node at a time). */
void hcrt__cl_gather_post(hcrt__cl_xchg_t *x, int win)
{
    int nn = x->nn, no = nn - 1;
    MPI_Request *rq = x->xreq + no;
    for (int k = 0, i = 0; k < nn; k++)
        if (k != x->me)
            xcheck(MPI_Irecv(x->xin + (size_t)i * (WORDS + 1), WORDS + 1,
                             MPI_UINT64_T, k, xtag(x, win), xcomm(), &rq[i]),
                   "receive"),
                i++;
}

/* Whether every message of the window's exchange has arrived (and every
 * one of this node's has been sent). */
int hcrt__cl_gather_test(hcrt__cl_xchg_t *x)
{
    int done = 0;
    xcheck(MPI_Testall(3 * (x->nn - 1), x->xreq, &done, MPI_STATUSES_IGNORE),
           "test");
    return done;
}

/* Waits for the rest of the exchange and fills m[]. */
void hcrt__cl_gather_finish(hcrt__cl_xchg_t *x, int win,
                            hcrt__hetprobe_node_meas_t *m)
{
    int nn = x->nn, no = nn - 1;
    xwait(3 * no, x->xreq, HCRT_WAIT_ANY, "the probe exchange");
    for (int k = 0, i = 0; k < nn; k++) {
        if (k == x->me) {
            m[k] = decode(x->xmine);
            continue;
        }
        const uint64_t *in = x->xin + (size_t)i * (WORDS + 1);
        m[k] = decode(in);
        if (in[WORDS] && !x->xgot[k])
            recv_close(x, win, k);
        i++;
    }
}

/* Every node's extension of window `win` (iterations it ran from its zone
 * of the window's rest while it waited for the others' measurements),
 * this node's being `mine`: sent to every other node, then theirs
 * received. Every node calls it once the gather is complete; a node still
 * in an extension chunk answers when the chunk ends. Only nodes with a
 * zone (zoned[k], the same on every node) send: the others' extension is
 * 0 by construction, so nobody waits for them (with the quota node
 * resting, the head waited at every call for a message the throttled
 * node sent up to a period late). Returns x->xext (nn values). */
const uint64_t *hcrt__cl_ext_exchange(hcrt__cl_xchg_t *x, int win,
                                      uint64_t mine, const uint8_t *zoned)
{
    int nn = x->nn, n = 0;
    MPI_Request rq[2 * (nn > 1 ? nn - 1 : 1)];
    x->xext[x->me] = zoned[x->me] ? mine : 0;
    for (int k = 0; k < nn; k++) {
        if (k == x->me)
            continue;
        if (zoned[x->me])
            xcheck(MPI_Isend(&x->xext[x->me], 1, MPI_UINT64_T, k,
                             xtag(x, win) | TAG_EXT, xcomm(), &rq[n++]),
                   "send (extension)");
        x->xext[k] = 0;
        if (zoned[k])
            xcheck(MPI_Irecv(&x->xext[k], 1, MPI_UINT64_T, k,
                             xtag(x, win) | TAG_EXT, xcomm(), &rq[n++]),
                   "receive (extension)");
    }
    xwait(n, rq, HCRT_WAIT_ANY, "the probe exchange (extension)");
    return x->xext;
}

uint64_t hcrt__cl_pack_cmpki(double cmpki)
{
    return cmpki >= 0 ? (UINT64_C(1) << 32) | fbits(cmpki) : 0;
}

uint64_t hcrt__cl_fbits(double d)
{
    return fbits(d);
}
