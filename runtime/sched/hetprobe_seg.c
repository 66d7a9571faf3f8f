/*
 * hetprobe_seg.c - iteration spaces, the CSR-weighted split and ordered
 * segment lists, the bookkeeping under HetProbe and HetProbe-I.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched/hetprobe_int.h"

/* ---- iteration spaces -------------------------------------------------- */

/* Trip count from the distance |ub - lb| and |st|, both as unsigned. */
static hcrt_status_t trip_from(uint64_t dist, uint64_t mag, uint64_t *trip)
{
    uint64_t q = dist / mag;
    if (q == UINT64_MAX)
        return HCRT_ERR_UNSUPPORTED; /* 2^64 iterations */
    *trip = q + 1;
    return HCRT_OK;
}

static uint64_t magnitude(int64_t st)
{
    return st > 0 ? (uint64_t)st : (uint64_t)0 - (uint64_t)st;
}

hcrt_status_t hcrt__hetprobe_space_s64(int64_t lb, int64_t ub, int64_t st,
                                       hcrt__hetprobe_space_t *out)
{
    uint64_t trip = 0;
    hcrt_status_t rc = HCRT_OK;
    if (st == 0)
        return HCRT_ERR_INVALID;
    if (st > 0 && lb <= ub)
        rc = trip_from((uint64_t)ub - (uint64_t)lb, magnitude(st), &trip);
    else if (st < 0 && lb >= ub)
        rc = trip_from((uint64_t)lb - (uint64_t)ub, magnitude(st), &trip);
    if (rc != HCRT_OK)
        return rc;
    out->lb = (uint64_t)lb;
    out->step = (uint64_t)st;
    out->trip = trip;
    return HCRT_OK;
}

hcrt_status_t hcrt__hetprobe_space_u64(uint64_t lb, uint64_t ub, int64_t st,
                                       hcrt__hetprobe_space_t *out)
{
    uint64_t trip = 0;
    hcrt_status_t rc = HCRT_OK;
    if (st == 0)
        return HCRT_ERR_INVALID;
    if (st > 0 && lb <= ub)
        rc = trip_from(ub - lb, magnitude(st), &trip);
    else if (st < 0 && lb >= ub)
        rc = trip_from(lb - ub, magnitude(st), &trip);
    if (rc != HCRT_OK)
        return rc;
    out->lb = lb;
    out->step = (uint64_t)st;
    out->trip = trip;
    return HCRT_OK;
}

/* ---- CSR-weighted split ------------------------------------------------ */

#define WEIGHT_SCALE 1048576.0 /* weights are rounded to 2^-20 */
#define WEIGHT_MAX 1e6

typedef unsigned __int128 u128;

/* Integer weight of node k: the rounding makes the split independent of
 * floating-point evaluation order; a tiny positive weight stays positive. */
static int int_weight(double w, int threads, uint64_t *out)
{
    *out = 0;
    if (!(w >= 0.0) || w > WEIGHT_MAX || threads < 0 || threads > 1 << 20)
        return -1;
    uint64_t iw = (uint64_t)llround(w * WEIGHT_SCALE);
    if (iw == 0 && w > 0.0)
        iw = 1;
    *out = iw * (uint64_t)threads;
    return 0;
}

hcrt_status_t hcrt__sched_weighted_split(uint64_t n, int nnodes,
                                         const double *weight,
                                         const int *threads, uint64_t *start)
{
    if (nnodes < 1 || threads == NULL || start == NULL)
        return HCRT_ERR_INVALID;
    uint64_t *w = malloc(sizeof(uint64_t) * (size_t)nnodes);
    u128 *rem = malloc(sizeof(u128) * (size_t)nnodes);
    hcrt_status_t rc = HCRT_OK;
    u128 sum = 0;
    if (w == NULL || rem == NULL) {
        rc = HCRT_ERR_NOMEM;
        goto out;
    }
    for (int k = 0; k < nnodes && rc == HCRT_OK; k++) {
        if (int_weight(weight ? weight[k] : 1.0, threads[k], &w[k]) != 0)
            rc = HCRT_ERR_INVALID;
        sum += w[k];
    }
    if (rc != HCRT_OK || sum == 0) {
        rc = HCRT_ERR_INVALID;
        goto out;
    }
    uint64_t given = 0;
    for (int k = 0; k < nnodes; k++) {
        u128 prod = (u128)n * w[k];
        start[k + 1] = (uint64_t)(prod / sum); /* the share, for now */
        rem[k] = prod % sum;
        given += start[k + 1];
    }
    /* Fewer than nnodes iterations are left over: one each to the largest
     * remainders, ties to the lower id (only nodes with a weight can have
     * a remainder, and each gets at most one). */
    for (uint64_t left = n - given; left > 0; left--) {
        int best = -1;
        for (int k = 0; k < nnodes; k++)
            if (w[k] > 0 && (best < 0 || rem[k] > rem[best]))
                best = k;
        start[best + 1]++;
        w[best] = 0;
    }
    start[0] = 0;
    for (int k = 0; k < nnodes; k++)
        start[k + 1] += start[k];
out:
    free(w);
    free(rem);
    return rc;
}

/* ---- segment lists ----------------------------------------------------- */

void hcrt__hetprobe_segq_fini(hcrt__hetprobe_segq_t *q)
{
    free(q->v);
    memset(q, 0, sizeof(*q));
}

void hcrt__hetprobe_segq_clear(hcrt__hetprobe_segq_t *q)
{
    q->head = q->len = 0;
    q->count = 0;
}

hcrt_status_t hcrt__hetprobe_segq_push(hcrt__hetprobe_segq_t *q, uint64_t b,
                                       uint64_t e)
{
    if (b >= e)
        return HCRT_OK;
    q->count += e - b;
    if (q->len > q->head && q->v[q->len - 1].end == b) {
        q->v[q->len - 1].end = e;
        return HCRT_OK;
    }
    if (q->head > 0 && q->head == q->len)
        q->head = q->len = 0; /* empty: reuse the space */
    if (q->len == q->cap) {
        if (q->head > 0) { /* slide down before growing */
            memmove(q->v, q->v + q->head,
                    sizeof(*q->v) * (size_t)(q->len - q->head));
            q->len -= q->head;
            q->head = 0;
        }
        if (q->len == q->cap) {
            int64_t cap = q->cap ? 2 * q->cap : 8;
            hcrt__hetprobe_seg_t *v = realloc(q->v, sizeof(*v) * (size_t)cap);
            if (v == NULL) {
                q->count -= e - b;
                return HCRT_ERR_NOMEM;
            }
            q->v = v;
            q->cap = cap;
        }
    }
    q->v[q->len].begin = b;
    q->v[q->len].end = e;
    q->len++;
    return HCRT_OK;
}

int hcrt__hetprobe_segq_take(hcrt__hetprobe_segq_t *q, uint64_t n,
                             hcrt__hetprobe_seg_t *out)
{
    if (q->head == q->len || n == 0)
        return 0;
    hcrt__hetprobe_seg_t *s = &q->v[q->head];
    uint64_t k = s->end - s->begin < n ? s->end - s->begin : n;
    out->begin = s->begin;
    out->end = s->begin + k;
    s->begin += k;
    q->count -= k;
    if (s->begin == s->end)
        q->head++;
    return 1;
}

hcrt_status_t hcrt__hetprobe_segq_move(hcrt__hetprobe_segq_t *src, uint64_t n,
                                       hcrt__hetprobe_segq_t *dst)
{
    hcrt__hetprobe_seg_t s;
    while (n > 0 && hcrt__hetprobe_segq_take(src, n, &s)) {
        n -= s.end - s.begin;
        if (dst != NULL) {
            hcrt_status_t rc = hcrt__hetprobe_segq_push(dst, s.begin, s.end);
            if (rc != HCRT_OK)
                return rc;
        }
    }
    return n == 0 ? HCRT_OK : HCRT_ERR_INVALID;
}

static int seg_cmp(const void *a, const void *b)
{
    const hcrt__hetprobe_seg_t *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin;
}

hcrt_status_t hcrt__hetprobe_segq_merge(hcrt__hetprobe_segq_t *const *qs,
                                        int nq, hcrt__hetprobe_segq_t *dst)
{
    int64_t total = 0;
    for (int i = 0; i < nq; i++)
        total += qs[i]->len - qs[i]->head;
    if (total == 0)
        return HCRT_OK;
    hcrt__hetprobe_seg_t *all = malloc(sizeof(*all) * (size_t)total);
    if (all == NULL)
        return HCRT_ERR_NOMEM;
    int64_t k = 0;
    for (int i = 0; i < nq; i++) {
        for (int64_t j = qs[i]->head; j < qs[i]->len; j++)
            all[k++] = qs[i]->v[j];
        hcrt__hetprobe_segq_clear(qs[i]);
    }
    qsort(all, (size_t)total, sizeof(*all), seg_cmp);
    hcrt_status_t rc = HCRT_OK;
    for (k = 0; k < total && rc == HCRT_OK; k++)
        rc = hcrt__hetprobe_segq_push(dst, all[k].begin, all[k].end);
    free(all);
    return rc;
}
