/*
 * dred.c - the dynamic reduction's scheduler: ready queue, pairing, the
 * performance counter (dred.h). Failure recovery is in dred_ft.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/dred.h"
#include "sched/dred_int.h"

hcrt_status_t hcrt__dred_perf_init(hcrt__dred_perf_t *p, int nranks,
                                   double alpha)
{
    p->ns_per_b = calloc((size_t)nranks, sizeof(double));
    if (!p->ns_per_b)
        return HCRT_ERR_NOMEM;
    p->nranks = nranks;
    p->alpha = alpha > 0 && alpha <= 1 ? alpha : 1;
    return HCRT_OK;
}

void hcrt__dred_perf_fini(hcrt__dred_perf_t *p)
{
    free(p->ns_per_b);
    p->ns_per_b = NULL;
}

void hcrt__dred_perf_note(hcrt__dred_perf_t *p, int rank, double ns,
                          double bytes)
{
    if (!p || rank < 0 || rank >= p->nranks || bytes <= 0 || ns < 0)
        return;
    double v = ns / bytes, *c = &p->ns_per_b[rank];
    *c = *c > 0 ? (1 - p->alpha) * *c + p->alpha * v : v;
    if (*c <= 0)
        *c = 1e-12; /* measured, even if too fast to see */
}

double hcrt__dred_perf_spread(const hcrt__dred_perf_t *p)
{
    double lo = 0, hi = 0;
    for (int i = 0; i < p->nranks; i++) {
        double v = p->ns_per_b[i];
        if (v <= 0)
            continue;
        if (lo == 0 || v < lo)
            lo = v;
        if (v > hi)
            hi = v;
    }
    return lo > 0 ? hi / lo : 1;
}

/* A rank's cost, an unmeasured one counting as the mean of the measured. */
static double cost_of(const hcrt__dred_perf_t *p, int rank)
{
    double sum = 0;
    int n = 0;
    if (p->ns_per_b[rank] > 0)
        return p->ns_per_b[rank];
    for (int i = 0; i < p->nranks; i++)
        if (p->ns_per_b[i] > 0)
            sum += p->ns_per_b[i], n++;
    return n ? sum / n : 0;
}

hcrt_status_t hcrt__dred_init(hcrt__dred_t *d, int nranks, int root,
                              hcrt__dred_perf_t *perf)
{
    memset(d, 0, sizeof *d);
    if (nranks < 1 || root < 0 || root >= nranks)
        return HCRT_ERR_INVALID;
    d->nranks = nranks, d->root = root, d->perf = perf;
    d->words = (nranks + 63) / 64;
    d->next_item = nranks + 1;
    d->lost_rank = -1;
    d->nparts = nranks, d->excluded = -1;
    d->arrived = calloc((size_t)nranks, 1);
    d->failed = calloc((size_t)nranks, 1);
    d->replica = calloc((size_t)nranks, 1);
    d->buddy = calloc((size_t)nranks, sizeof(int));
    if (!d->arrived || !d->failed || !d->replica || !d->buddy) {
        hcrt__dred_fini(d);
        return HCRT_ERR_NOMEM;
    }
    return HCRT_OK;
}

void hcrt__dred_fini(hcrt__dred_t *d)
{
    for (int i = 0; i < d->qlen; i++)
        free(d->queue[(d->qhead + i) % d->qcap].path);
    for (int i = 0; i < 2 * d->ntasks; i++)
        free(d->tmsg[i].path);
    free(d->queue), free(d->tasks), free(d->tmsg), free(d->log);
    free(d->arrived), free(d->failed), free(d->replica), free(d->buddy);
    memset(d, 0, sizeof *d);
}

hcrt_status_t hcrt__dred_push(hcrt__dred_t *d, const hcrt__dred_msg_t *m)
{
    if (d->qlen == d->qcap) {
        int cap = d->qcap ? 2 * d->qcap : 16;
        hcrt__dred_msg_t *q = malloc((size_t)cap * sizeof *q);
        if (!q)
            return HCRT_ERR_NOMEM;
        for (int i = 0; i < d->qlen; i++)
            q[i] = d->queue[(d->qhead + i) % d->qcap];
        free(d->queue);
        d->queue = q, d->qcap = cap, d->qhead = 0;
    }
    d->queue[(d->qhead + d->qlen++) % d->qcap] = *m;
    return HCRT_OK;
}

hcrt__dred_msg_t hcrt__dred_pop(hcrt__dred_t *d)
{
    hcrt__dred_msg_t m = d->queue[d->qhead];
    d->qhead = (d->qhead + 1) % d->qcap;
    d->qlen--;
    return m;
}

uint64_t *hcrt__dred_path_new(const hcrt__dred_t *d, int rank)
{
    uint64_t *p = calloc((size_t)d->words, sizeof(uint64_t));
    if (p && rank >= 0)
        p[rank / 64] |= 1ULL << (rank % 64);
    return p;
}

hcrt_status_t hcrt__dred_arrive(hcrt__dred_t *d, int rank)
{
    if (rank < 0 || rank >= d->nranks || d->arrived[rank] || d->failed[rank])
        return HCRT_ERR_INVALID;
    hcrt__dred_msg_t m = {rank, 0, 0, hcrt__dred_path_new(d, rank), 1};
    if (!m.path)
        return HCRT_ERR_NOMEM;
    d->arrived[rank] = 1;
    hcrt_status_t st = hcrt__dred_push(d, &m);
    if (st != HCRT_OK)
        free(m.path);
    return st;
}

/* Which of the pair reduces (seed §2 step 4, §3 step 4): a local pair on
 * its rank; the root; a message rebuilt after a loss (its holder has the
 * raw data at hand); else the faster by the counter, the earlier on a
 * tie. Returns 0 for a, 1 for b. */
static int pick(const hcrt__dred_t *d, const hcrt__dred_msg_t *a,
                const hcrt__dred_msg_t *b)
{
    if (a->holder == d->root || a->holder == b->holder)
        return 0;
    if (b->holder == d->root)
        return 1;
    if ((a->flags ^ b->flags) & HCRT_DRED_RECOVER)
        return (b->flags & HCRT_DRED_RECOVER) != 0;
    if (!d->perf)
        return 0;
    return cost_of(d->perf, b->holder) < cost_of(d->perf, a->holder);
}

static int grow_tasks(hcrt__dred_t *d)
{
    if (d->ntasks < d->tcap)
        return 1;
    int cap = d->tcap ? 2 * d->tcap : 16;
    hcrt__dred_task_t *t = realloc(d->tasks, (size_t)cap * sizeof *t);
    if (t)
        d->tasks = t;
    hcrt__dred_msg_t *m = realloc(d->tmsg, (size_t)cap * 2 * sizeof *m);
    if (m)
        d->tmsg = m;
    if (!t || !m)
        return 0;
    d->tcap = cap;
    return 1;
}

static void log_task(hcrt__dred_t *d, const hcrt__dred_task_t *t, int npath)
{
    if (d->nlog == d->logcap) {
        int cap = d->logcap ? 2 * d->logcap : 16;
        hcrt__dred_log_t *l = realloc(d->log, (size_t)cap * sizeof *l);
        if (!l)
            return; /* the log is for the statistics only */
        d->log = l, d->logcap = cap;
    }
    d->log[d->nlog++] = (hcrt__dred_log_t){t->holder, t->giver, npath};
}

/* Done when one waiting message folds every participant's input: it is
 * at the root (every path with the root's input stays there). */
static int check_done(hcrt__dred_t *d)
{
    for (int i = 0; i < d->qlen; i++) {
        const hcrt__dred_msg_t *m = &d->queue[(d->qhead + i) % d->qcap];
        if (m->npath == d->nparts && m->holder == d->root) {
            d->state = HCRT_DRED_DONE;
            d->final_item = m->item;
            d->why = "complete";
            return 1;
        }
    }
    return 0;
}

int hcrt__dred_next(hcrt__dred_t *d, hcrt__dred_task_t *t)
{
    if (d->state != HCRT_DRED_RUNNING || check_done(d) || d->qlen < 2 ||
        !grow_tasks(d))
        return 0;
    hcrt__dred_msg_t a = hcrt__dred_pop(d), b = hcrt__dred_pop(d);
    if (pick(d, &a, &b)) {
        hcrt__dred_msg_t s = a;
        a = b, b = s;
    }
    t->id = d->next_task++;
    t->holder = a.holder, t->holder_item = a.item;
    t->giver = b.holder, t->giver_item = b.item;
    /* a raw item stays as it is (it may be read again): a new one */
    t->out_item = a.item >= 1 && a.item <= d->nranks ? d->next_item++ : a.item;
    t->flags = (a.flags | b.flags) & HCRT_DRED_RECOVER;
    d->tasks[d->ntasks] = *t;
    d->tmsg[2 * d->ntasks] = a, d->tmsg[2 * d->ntasks + 1] = b;
    d->ntasks++;
    log_task(d, t, a.npath + b.npath);
    return 1;
}

int hcrt__dred_find_task(const hcrt__dred_t *d, int id)
{
    for (int i = 0; i < d->ntasks; i++)
        if (d->tasks[i].id == id)
            return i;
    return -1;
}

void hcrt__dred_drop_task(hcrt__dred_t *d, int i)
{
    int last = --d->ntasks;
    d->tasks[i] = d->tasks[last];
    d->tmsg[2 * i] = d->tmsg[2 * last];
    d->tmsg[2 * i + 1] = d->tmsg[2 * last + 1];
}

hcrt_status_t hcrt__dred_task_done(hcrt__dred_t *d, int id, double ns,
                                   double bytes)
{
    int i = hcrt__dred_find_task(d, id);
    if (i < 0) /* dropped by a recovery: its result is not used */
        return HCRT_ERR_NOT_FOUND;
    hcrt__dred_task_t t = d->tasks[i];
    hcrt__dred_msg_t a = d->tmsg[2 * i], b = d->tmsg[2 * i + 1];
    if (t.giver != t.holder)
        hcrt__dred_perf_note(d->perf, t.holder, ns, bytes);
    for (int w = 0; w < d->words; w++)
        a.path[w] |= b.path[w];
    free(b.path);
    hcrt__dred_drop_task(d, i);
    hcrt__dred_msg_t m = {t.holder, t.out_item, 0, a.path, a.npath + b.npath};
    hcrt_status_t st = hcrt__dred_push(d, &m);
    if (st != HCRT_OK)
        free(a.path);
    return st;
}
