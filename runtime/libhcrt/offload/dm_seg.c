/*
 * dm_seg.c - valid copies of the data manager: segments of a buffer with
 * their holders, the choice of transfer sources, and the ops that move
 * data. Sources: among the nodes holding the latest version, the one whose
 * next send would complete first in a round model (a copy arriving at
 * round r serves one copy per round after r); the head only when no worker
 * has the data. Serving many readers this way grows a binomial tree over
 * the holders as copies appear (depth ceil(log2(n + 1)) for n readers from
 * a worker, one more from the head), and never relays through the head
 * when a worker has the data.
 */
#include <stdlib.h>
#include <string.h>

#include "libhcrt/offload/dm_int.h"

hcrt_status_t hcrt__dm_op_push(hcrt__dm_t *dm, hcrt__dm_plan_t *p,
                               const hcrt__dm_op_t *op, int64_t *id)
{
    hcrt_status_t st =
        hcrt__ofl_grow((void **)&p->ops, &p->cap, p->n + 1, sizeof(*op));
    if (st != HCRT_OK)
        return st;
    p->ops[p->n] = *op;
    p->ops[p->n].id = dm->next_op++;
    if (id != NULL)
        *id = p->ops[p->n].id;
    p->n++;
    return HCRT_OK;
}

dm_buf_t *hcrt__dm_buf_new(hcrt__dm_t *dm, uintptr_t begin, uint64_t size)
{
    dm_buf_t *b = calloc(1, sizeof(*b));
    dm_seg_t *s = calloc(1, sizeof(*s));
    uint64_t *alloc = calloc((size_t)dm->words, sizeof(uint64_t));
    if (b == NULL || s == NULL || alloc == NULL) {
        free(b);
        free(s);
        free(alloc);
        return NULL;
    }
    b->id = dm->next_buf++;
    b->begin = begin;
    b->size = size;
    b->seg = s;
    b->nseg = b->segcap = 1;
    s->len = size;
    s->writer = -1;
    b->alloc = alloc;
    return b;
}

void hcrt__dm_buf_free(dm_buf_t *b)
{
    if (b == NULL)
        return;
    for (int32_t i = 0; i < b->nseg; i++)
        free(b->seg[i].h);
    free(b->seg);
    free(b->alloc);
    free(b->aop);
    free(b);
}

/* ---- segments --------------------------------------------------------------
 */

static int32_t seg_find(const dm_buf_t *b, uint64_t off)
{
    int32_t lo = 0, hi = b->nseg - 1;
    while (lo < hi) {
        int32_t mid = (lo + hi + 1) / 2;
        if (b->seg[mid].off <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static hcrt_status_t seg_split_at(dm_buf_t *b, uint64_t at)
{
    if (at == 0 || at >= b->size)
        return HCRT_OK;
    int32_t i = seg_find(b, at);
    if (b->seg[i].off == at)
        return HCRT_OK;
    hcrt_status_t st = hcrt__ofl_grow((void **)&b->seg, &b->segcap, b->nseg + 1,
                                      sizeof(dm_seg_t));
    if (st != HCRT_OK)
        return st;
    dm_seg_t *s = &b->seg[i], cp = *s;
    cp.h = NULL;
    cp.hcap = 0;
    if (s->nh) {
        cp.h = malloc((size_t)s->nh * sizeof(dm_holder_t));
        if (cp.h == NULL)
            return HCRT_ERR_NOMEM;
        memcpy(cp.h, s->h, (size_t)s->nh * sizeof(dm_holder_t));
        cp.hcap = s->nh;
    }
    cp.off = at;
    cp.len = s->off + s->len - at;
    s->len = at - s->off;
    memmove(&b->seg[i + 2], &b->seg[i + 1],
            (size_t)(b->nseg - i - 1) * sizeof(dm_seg_t));
    b->seg[i + 1] = cp;
    b->nseg++;
    return HCRT_OK;
}

hcrt_status_t hcrt__dm_seg_split(dm_buf_t *b, uint64_t off, uint64_t len,
                                 int32_t *first)
{
    hcrt_status_t st = seg_split_at(b, off);
    if (st == HCRT_OK)
        st = seg_split_at(b, off + len);
    if (st == HCRT_OK)
        *first = seg_find(b, off);
    return st;
}

static int seg_same(const dm_seg_t *a, const dm_seg_t *b)
{
    return a->version == b->version && a->writer == b->writer &&
           a->nh == b->nh &&
           (a->nh == 0 ||
            memcmp(a->h, b->h, (size_t)a->nh * sizeof(dm_holder_t)) == 0);
}

/* Joins neighbours with the same state so the tiling stays small. */
void hcrt__dm_seg_merge(dm_buf_t *b)
{
    int32_t w = 0;
    for (int32_t i = 1; i < b->nseg; i++) {
        if (seg_same(&b->seg[w], &b->seg[i])) {
            b->seg[w].len += b->seg[i].len;
            free(b->seg[i].h);
        } else {
            b->seg[++w] = b->seg[i];
        }
    }
    b->nseg = w + 1;
}

/* ---- holders and sources ----------------------------------------------------
 */

static void holder_now(const hcrt__dm_t *dm, const dm_holder_t *h,
                       int32_t *round, int32_t *sends, int64_t *op)
{
    int cur = h->epoch == dm->epoch;
    *round = cur ? h->round : 0;
    *sends = cur ? h->sends : 0;
    *op = h->op >= dm->settled ? h->op : -1;
}

static int32_t holder_of(const dm_seg_t *s, int node)
{
    for (int32_t i = 0; i < s->nh; i++)
        if (s->h[i].node == node)
            return i;
    return -1;
}

/* The holder whose next send completes first, among the workers if any
 * holds (or is about to hold) the data: the head dispatches everything
 * and is a source of last resort. Ties: fewer sends, lower node. */
static int32_t pick_source(const hcrt__dm_t *dm, const dm_seg_t *s)
{
    int32_t best = -1, bscore = 0, bsends = 0, worker = 0;
    for (int32_t i = 0; i < s->nh; i++)
        worker |= s->h[i].node != 0;
    for (int32_t i = 0; i < s->nh; i++) {
        int32_t r, k;
        int64_t op;
        if (worker && s->h[i].node == 0)
            continue;
        holder_now(dm, &s->h[i], &r, &k, &op);
        int32_t score = r + k + 1;
        int better = best < 0 || score < bscore;
        if (!better && score == bscore)
            better =
                k < bsends || (k == bsends && s->h[i].node < s->h[best].node);
        if (better) {
            best = i;
            bscore = score;
            bsends = k;
        }
    }
    return best;
}

/* Appends a copy, extending the previous op when it continues it. */
static hcrt_status_t push_copy(hcrt__dm_t *dm, hcrt__dm_plan_t *p,
                               const dm_buf_t *b, uint64_t off, uint64_t len,
                               int src, int dst, int64_t wait, int64_t *id)
{
    if (p->n > 0) {
        hcrt__dm_op_t *l = &p->ops[p->n - 1];
        if (l->kind == HCRT_DM_OP_COPY && l->buf == b->id && l->src == src &&
            l->dst == dst && l->wait_op == wait && l->off + l->len == off) {
            l->len += len;
            *id = l->id;
            return HCRT_OK;
        }
    }
    hcrt__dm_op_t op = {.kind = HCRT_DM_OP_COPY,
                        .src = src,
                        .dst = dst,
                        .buf = b->id,
                        .host = b->begin,
                        .off = off,
                        .len = len,
                        .wait_op = wait};
    return hcrt__dm_op_push(dm, p, &op, id);
}

static hcrt_status_t add_holder(dm_seg_t *s, const dm_holder_t *h)
{
    hcrt_status_t st =
        hcrt__ofl_grow((void **)&s->h, &s->hcap, s->nh + 1, sizeof(*h));
    if (st == HCRT_OK)
        s->h[s->nh++] = *h;
    return st;
}

static int plan_waits_for(const hcrt__dm_plan_t *p, int64_t op)
{
    for (int32_t i = 0; i < p->n; i++)
        if (p->ops[i].kind == HCRT_DM_OP_WAIT && p->ops[i].wait_op == op)
            return 1;
    return 0;
}

hcrt_status_t hcrt__dm_wait_for(hcrt__dm_t *dm, hcrt__dm_plan_t *p,
                                const dm_buf_t *b, int node, int64_t op)
{
    if (op < 0 || op >= dm->plan_first || plan_waits_for(p, op))
        return HCRT_OK;
    hcrt__dm_op_t w = {.kind = HCRT_DM_OP_WAIT,
                       .src = node,
                       .dst = node,
                       .buf = b->id,
                       .host = b->begin,
                       .wait_op = op};
    return hcrt__dm_op_push(dm, p, &w, NULL);
}

/* One segment onto node: a wait if it is already coming, else a copy from
 * the best holder; the new copy becomes a holder itself. */
static hcrt_status_t seg_fetch(hcrt__dm_t *dm, dm_buf_t *b, int32_t si,
                               int node, hcrt__dm_plan_t *p, int64_t first)
{
    dm_seg_t *s = &b->seg[si];
    int32_t r, k, have = holder_of(s, node);
    int64_t op;
    if (s->nh == 0)
        return HCRT_OK; /* uninitialised: the allocation is enough */
    (void)first;
    if (have >= 0) {
        holder_now(dm, &s->h[have], &r, &k, &op);
        return hcrt__dm_wait_for(dm, p, b, node, op);
    }
    int32_t src = pick_source(dm, s);
    holder_now(dm, &s->h[src], &r, &k, &op);
    int64_t id, before = dm->next_op;
    hcrt_status_t st =
        push_copy(dm, p, b, s->off, s->len, s->h[src].node, node, op, &id);
    if (st != HCRT_OK)
        return st;
    if (dm->next_op != before) { /* a new send out of src */
        s->h[src].round = r;
        s->h[src].sends = k + 1;
        s->h[src].op = op;
        s->h[src].epoch = dm->epoch;
    }
    dm_holder_t nh = {
        .node = node, .round = r + k + 1, .epoch = dm->epoch, .op = id};
    return add_holder(s, &nh);
}

hcrt_status_t hcrt__dm_ensure_alloc(hcrt__dm_t *dm, dm_buf_t *b, int node,
                                    hcrt__dm_plan_t *p)
{
    uint64_t bit = 1ULL << (node % 64);
    if (b->alloc[node / 64] & bit) {
        for (int32_t i = 0; i < b->naop; i++)
            if (b->aop[i].node == node && b->aop[i].op >= dm->settled)
                return hcrt__dm_wait_for(dm, p, b, node, b->aop[i].op);
        return HCRT_OK;
    }
    hcrt__dm_op_t op = {.kind = HCRT_DM_OP_ALLOC,
                        .src = node,
                        .dst = node,
                        .buf = b->id,
                        .host = b->begin,
                        .len = b->size,
                        .wait_op = -1};
    int64_t id;
    hcrt_status_t st = hcrt__ofl_grow((void **)&b->aop, &b->aopcap, b->naop + 1,
                                      sizeof(*b->aop));
    if (st == HCRT_OK)
        st = hcrt__dm_op_push(dm, p, &op, &id);
    if (st != HCRT_OK)
        return st;
    b->alloc[node / 64] |= bit;
    int32_t w = 0; /* forget settled allocations */
    for (int32_t i = 0; i < b->naop; i++)
        if (b->aop[i].op >= dm->settled)
            b->aop[w++] = b->aop[i];
    b->naop = w;
    b->aop[b->naop++] = (struct dm_aop){node, dm->epoch, id};
    return HCRT_OK;
}

hcrt_status_t hcrt__dm_make_valid(hcrt__dm_t *dm, dm_buf_t *b, uint64_t off,
                                  uint64_t len, int node, hcrt__dm_plan_t *p,
                                  int64_t plan_first)
{
    int32_t i;
    hcrt_status_t st = hcrt__dm_ensure_alloc(dm, b, node, p);
    if (st == HCRT_OK)
        st = hcrt__dm_seg_split(b, off, len, &i);
    for (; st == HCRT_OK && i < b->nseg && b->seg[i].off < off + len; i++)
        st = seg_fetch(dm, b, i, node, p, plan_first);
    hcrt__dm_seg_merge(b);
    return st;
}

/* What a reader of a kernel's output on `node` must wait for, besides the
 * kernel itself: the op bringing the copy the kernel started from, else
 * the node's allocation. Readers the kernel is ordered before wait for it
 * anyway; this matters for tasks running next to it (no depend edge),
 * which may read the copy while the kernel runs: legal when the kernel
 * only reads it (a write would be a race), but never before it exists. */
static int64_t write_wait(const hcrt__dm_t *dm, const dm_buf_t *b,
                          const dm_seg_t *s, int node)
{
    int32_t have = holder_of(s, node);
    if (have >= 0)
        return s->h[have].op >= dm->settled ? s->h[have].op : -1;
    for (int32_t i = 0; i < b->naop; i++)
        if (b->aop[i].node == node && b->aop[i].op >= dm->settled)
            return b->aop[i].op;
    return -1;
}

hcrt_status_t hcrt__dm_write(hcrt__dm_t *dm, dm_buf_t *b, uint64_t off,
                             uint64_t len, int node, int64_t op)
{
    int32_t i;
    hcrt_status_t st = hcrt__dm_seg_split(b, off, len, &i);
    uint64_t v = ++dm->next_version;
    for (; st == HCRT_OK && i < b->nseg && b->seg[i].off < off + len; i++) {
        dm_holder_t h = {.node = node,
                         .round = op >= 0 ? 1 : 0,
                         .epoch = dm->epoch,
                         .op = op >= 0 ? op
                                       : write_wait(dm, b, &b->seg[i], node)};
        b->seg[i].nh = 0; /* every other copy is stale now */
        b->seg[i].version = v;
        b->seg[i].writer = node;
        st = add_holder(&b->seg[i], &h);
    }
    hcrt__dm_seg_merge(b);
    return st;
}

/* Copies [lo, hi) home, skipping the 8-byte attached pointer slots. */
static hcrt_status_t home_piece(hcrt__dm_t *dm, dm_buf_t *b, uint64_t lo,
                                uint64_t hi, int src, int64_t wait,
                                hcrt__dm_plan_t *p)
{
    while (lo < hi) {
        uint64_t cut = hi, skip = hi;
        for (int32_t a = 0; a < dm->natt; a++) {
            const dm_attach_t *at = &dm->att[a];
            if (at->q != b->id || at->qoff + sizeof(void *) <= lo ||
                at->qoff >= cut)
                continue;
            cut = at->qoff > lo ? at->qoff : lo;
            skip = at->qoff + sizeof(void *);
        }
        int64_t id;
        if (cut > lo) {
            hcrt_status_t st =
                push_copy(dm, p, b, lo, cut - lo, src, HCRT_DM_HOST, wait, &id);
            if (st != HCRT_OK)
                return st;
        }
        lo = skip > cut ? skip : cut;
    }
    return HCRT_OK;
}

hcrt_status_t hcrt__dm_copy_home(hcrt__dm_t *dm, dm_buf_t *b, uint64_t off,
                                 uint64_t len, hcrt__dm_plan_t *p)
{
    int32_t i;
    hcrt_status_t st = hcrt__dm_seg_split(b, off, len, &i);
    for (; st == HCRT_OK && i < b->nseg && b->seg[i].off < off + len; i++) {
        dm_seg_t *s = &b->seg[i];
        if (s->nh == 0)
            continue; /* never written on the device: nothing to bring */
        int32_t src = pick_source(dm, s), r, k;
        int64_t op;
        holder_now(dm, &s->h[src], &r, &k, &op);
        st = home_piece(dm, b, s->off, s->off + s->len, s->h[src].node, op, p);
    }
    hcrt__dm_seg_merge(b);
    return st;
}
