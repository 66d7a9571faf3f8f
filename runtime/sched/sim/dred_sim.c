/*
 * dred_sim.c - hcrt-dred-sim: the dynamic reduction's scheduler
 * (sched/dred.c) on simulated ranks, against a binomial tree on the same
 * model (docs/reduce.md "Simulated").
 *
 * Model: a message costs `lat` us; a transfer of S bytes lat + S/bw on
 * the giver's and the holder's links (one transfer at a time each way per
 * rank); a fold S/fold on the holder's core; one rank is `slow` times
 * slower at both and arrives `late` us after the others (a CPU hog); the
 * scheduler handles one message at a time, `svc` us each (received ready
 * messages, sent tasks and ends). K instances start at once; their
 * scheduler is rank 0 ("head") or rank id % n ("spread"). Prints the
 * mean completion time of both schemes, when the last instance ended,
 * and the busiest scheduler's utilisation (its busy time over the run).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/dred.h"

#define MAXI 256
#define MAXN 1024

typedef struct cfg {
    int n, k, spread, slow_rank;
    double bytes, lat, bw, fold, slow, late, svc;
} cfg_t;

typedef struct ev {
    double t;
    int kind, inst, a, b; /* a: rank or task id */
    double ns;
} ev_t;

enum { EV_READY, EV_DONE };

static ev_t *heap;
static int nheap, capheap;

static void push(ev_t e)
{
    if (nheap == capheap) {
        capheap = capheap ? 2 * capheap : 1024;
        heap = realloc(heap, (size_t)capheap * sizeof *heap);
    }
    int i = nheap++;
    while (i && heap[(i - 1) / 2].t > e.t) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = e;
}

static ev_t pop(void)
{
    ev_t top = heap[0], last = heap[--nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= nheap)
            break;
        if (c + 1 < nheap && heap[c + 1].t < heap[c].t)
            c++;
        if (heap[c].t >= last.t)
            break;
        heap[i] = heap[c];
        i = c;
    }
    heap[i] = last;
    return top;
}

static double tx_free[MAXN], rx_free[MAXN], cpu_free[MAXN];

static double speed(const cfg_t *c, int r)
{
    return r == c->slow_rank ? c->slow : 1;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

/* A transfer giver -> holder then a fold on the holder, starting no
 * earlier than `t`; returns when the fold ends. */
static double xfer_fold(const cfg_t *c, int giver, int holder, double t)
{
    double d = c->bytes / c->bw * max2(speed(c, giver), speed(c, holder));
    if (giver != holder) {
        double s = max2(t + c->lat, max2(tx_free[giver], rx_free[holder]));
        tx_free[giver] = rx_free[holder] = s + d;
        t = s + d;
    }
    double f =
        max2(t, cpu_free[holder]) + c->bytes / c->fold * speed(c, holder);
    cpu_free[holder] = f;
    return f;
}

static double arrival(const cfg_t *c, int r)
{
    return r == c->slow_rank ? c->late : 0;
}

static void reset(const cfg_t *c)
{
    for (int r = 0; r < c->n; r++)
        tx_free[r] = rx_free[r] = cpu_free[r] = 0;
}

static double last_tree, last_dyn; /* the last instance's end */

/* The binomial tree: a rank folds its children in order, then sends. */
static double tree(const cfg_t *c)
{
    double sum = 0, ready[MAXN];
    reset(c);
    for (int i = 0; i < c->k; i++) {
        for (int r = 0; r < c->n; r++)
            ready[r] = arrival(c, r);
        for (int step = 1; step < c->n; step <<= 1)
            for (int r = 0; r + step < c->n; r += 2 * step)
                ready[r] =
                    xfer_fold(c, r + step, r, max2(ready[r], ready[r + step]));
        sum += ready[0] + c->lat;
        last_tree = max2(last_tree, ready[0] + c->lat);
    }
    return sum / c->k;
}

typedef struct inst {
    hcrt__dred_t d;
    int sched;
    double end;
} inst_t;

static double busy_until[MAXN], busy_total[MAXN];

/* The scheduler of `in` handles one message at `t`: returns when done. */
static double serve(const cfg_t *c, inst_t *in, double t)
{
    double s = max2(t, busy_until[in->sched]) + c->svc;
    busy_total[in->sched] += c->svc;
    busy_until[in->sched] = s;
    return s;
}

static void dispatch(const cfg_t *c, inst_t *in, int id, double t)
{
    hcrt__dred_task_t task;
    while (hcrt__dred_next(&in->d, &task)) {
        t = serve(c, in, t); /* the task message (the giver's: same cost) */
        double f = xfer_fold(c, task.giver, task.holder, t + c->lat);
        push((ev_t){f + c->lat, EV_DONE, id, task.id, 0, (f - t) * 1e9});
    }
    if (in->d.state == HCRT_DRED_DONE && !in->end) {
        for (int r = 0; r < c->n; r++)
            t = serve(c, in, t); /* the end, to every rank */
        in->end = t + c->lat;
    }
}

static double dynamic(const cfg_t *c, double *util)
{
    static inst_t in[MAXI];
    hcrt__dred_perf_t perf;
    double sum = 0, last = 0, top = 0;
    reset(c);
    hcrt__dred_perf_init(&perf, c->n, 0.5);
    for (int r = 0; r < c->n; r++) /* as measured by earlier reductions */
        hcrt__dred_perf_note(&perf, r, 1e9 * c->bytes / c->fold * speed(c, r),
                             c->bytes);
    for (int r = 0; r < c->n; r++)
        busy_until[r] = busy_total[r] = 0;
    for (int i = 0; i < c->k; i++) {
        hcrt__dred_init(&in[i].d, c->n, 0, &perf);
        in[i].sched = c->spread ? i % c->n : 0;
        in[i].end = 0;
        for (int r = 0; r < c->n; r++)
            push((ev_t){arrival(c, r) + c->lat, EV_READY, i, r, 0, 0});
    }
    while (nheap) {
        ev_t e = pop();
        inst_t *p = &in[e.inst];
        double t = serve(c, p, e.t);
        if (e.kind == EV_READY)
            hcrt__dred_arrive(&p->d, e.a);
        else
            hcrt__dred_task_done(&p->d, e.a, e.ns, c->bytes);
        dispatch(c, p, e.inst, t);
    }
    for (int i = 0; i < c->k; i++) {
        sum += in[i].end;
        last = max2(last, in[i].end);
        hcrt__dred_fini(&in[i].d);
    }
    for (int r = 0; r < c->n; r++)
        top = max2(top, busy_total[r]);
    *util = last > 0 ? top / last : 0;
    last_dyn = last;
    hcrt__dred_perf_fini(&perf);
    return sum / c->k;
}

static double arg(int argc, char **argv, const char *name, double def)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return atof(argv[i + 1]);
    return def;
}

int main(int argc, char **argv)
{
    cfg_t c = {
        .n = (int)arg(argc, argv, "-n", 16),
        .k = (int)arg(argc, argv, "-k", 1),
        .spread = (int)arg(argc, argv, "-spread", 0),
        .slow_rank = (int)arg(argc, argv, "-slow-rank", 1),
        .bytes = arg(argc, argv, "-bytes", 8 << 20),
        .lat = arg(argc, argv, "-lat", 20) * 1e-6,
        .bw = arg(argc, argv, "-bw", 1.25) * 1e9,
        .fold = arg(argc, argv, "-fold", 4) * 1e9,
        .slow = arg(argc, argv, "-slow", 3),
        .late = arg(argc, argv, "-late", 0) * 1e-6,
        .svc = arg(argc, argv, "-svc", 2) * 1e-6,
    };
    if (c.n < 1 || c.n > MAXN || c.k < 1 || c.k > MAXI) {
        fprintf(stderr, "hcrt-dred-sim: -n must be 1..%d and -k 1..%d\n", MAXN,
                MAXI);
        return 2;
    }
    double util, t = tree(&c), d = dynamic(&c, &util);
    printf("n %d k %d bytes %.0f slow %.2g late %.0fus sched %s: "
           "mean tree %.3f ms dynamic %.3f ms ratio %.2f; all done: tree "
           "%.3f dynamic %.3f ratio %.2f; sched-busy %.1f%%\n",
           c.n, c.k, c.bytes, c.slow, c.late * 1e6,
           c.spread ? "spread" : "head", t * 1e3, d * 1e3, t / d,
           last_tree * 1e3, last_dyn * 1e3, last_tree / last_dyn, 100 * util);
    /* -expect-win 1: fail unless the dynamic scheme finished first */
    return arg(argc, argv, "-expect-win", 0) && t <= d ? 1 : 0;
}
