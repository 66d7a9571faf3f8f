/*
 * hp_run.c - a HetProbe / HetProbe-I pool at work: chunks handed out to
 * the node's threads (probe sub-chunks, extensions, the run phase), the
 * probe timing, and the exchange at a probe's end that decides and splits
 * the window's rest identically on every node (windows: hp_window.c).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "sched/hp_int.h"

/* ---- per-thread probe timing --------------------------------------------- */

static _Thread_local struct {
    hcrt__cl_pool_t *pool;
    int probing, running;
    uint64_t t0, cm0, in0, n;
} tl;

/* The thread seconds published with this node's probe iterations: those
 * at the node's speed over its probe and the run phase before it (the
 * last window's share), each window's added to half the earlier ones'
 * (window 0: the probe alone, so HetProbe is unchanged). HetProbe-I's
 * probes alone misjudged regular loops: 1-2 ms each, and node 0's ran
 * while its service thread answered the others' polls of the close and
 * exchange words (its home), so ep's node 0 measured 0.77 of node 1 in
 * every window while the run phases went at equal speeds (13 vs 16 ms
 * per window, 3-5 ms of waiting in each exchange); and one lost time
 * slice made a node of the irregular kernel look 20x slower. */
static double published_secs(hcrt__cl_hp_t *h, uint64_t iters)
{
    h->acc_it = 0.5 * h->acc_it + (double)iters + h->run_it;
    h->acc_s = 0.5 * h->acc_s + h->psecs + h->run_s;
    h->run_it = h->run_s = 0.0;
    if (iters == 0 || !(h->acc_it > 0.0) || !(h->acc_s > 0.0))
        return h->psecs;
    return (double)iters * h->acc_s / h->acc_it;
}

/* The measurement, once this node's probe chunks are done: published to
 * the other nodes, whose measurements are then received (posted). */
static void exchange_begin(hcrt__cl_pool_t *p)
{
    hcrt__cl_hp_t *h = p->hp;
    int win = h->win;
    hcrt_dsm_counters_t c1;
    hcrt__dsm_counters(&c1);
    /* the probe's page traffic: pages fetched, and pages written that
     * are homed on another host (each a diff at the release: a loop that
     * only writes them, as an initialisation does, fetches nothing and
     * showed "faults rare" while its write-back to the home cost more
     * than the loop - NPB MG's zero3 and FT's init_ui between hosts) */
    uint64_t tw = h->t0 ? c1.pages_twinned - h->c0.pages_twinned : 0;
    uint64_t tr = h->t0 ? (c1.pages_fetched - h->c0.pages_fetched) +
                              (c1.diff_pages - h->c0.diff_pages) + tw
                        : 0; /* no probe here: nothing measured */
    double el_us = h->t0 ? (double)(hcrt__now_ns() - h->t0) / 1e3 : 0;
    if (h->pchunks && !h->closed) /* done first: the others stop */
        hcrt__cl_close(p->x, win, (uint64_t)el_us);
    uint64_t it = hcrt__cl_hp_sub_off(p, h->pchunks);
    double secs = published_secs(h, it);
    if (win == 0 && it > 0 && secs > 0) {
        /* with the last call's run phase, the earliest part of the basis
         * (HetProbe-I's later windows halve it as they add theirs) */
        pthread_mutex_lock(&hcrt__cl_sched.cache_mu);
        hcrt__probecache_basis(hcrt__cl_sched.cache, h->loop_id, p->nn,
                               &h->acc_it, &h->acc_s);
        pthread_mutex_unlock(&hcrt__cl_sched.cache_mu);
        secs = (double)it * h->acc_s / h->acc_it;
    }
    /* the share of the probe's thread time the node's faults took */
    double fs = h->t0 && h->psecs > 0
                    ? (double)(c1.fault_ns - h->c0.fault_ns) / 1e9 / h->psecs
                    : 0.0;
    fs = fs > 1.0 ? 1.0 : fs;
    /* The pages written go home as diffs after the loop, at about what a
     * page cost this node to get: its speed is charged for them (zero3's
     * probe on node 1 between hosts: 256 pages written, 92 % of its time
     * in faults, 1.3x the head's speed, so the rest of the loop went to
     * node 1 and all of it home as diffs) */
    if (tw > 0 && secs > 0)
        secs *= 1.0 + fs * (double)tw / (double)tr;
    uint64_t v[7] = {it,
                     hcrt__cl_fbits(secs),
                     tr,
                     hcrt__cl_fbits(el_us),
                     hcrt__cl_pack_cmpki(h->cm_n ? h->cm_sum / h->cm_n : -1),
                     hcrt__cl_fbits(fs),
                     tw};
    hcrt__cl_publish(p->x, win, v);
    hcrt__cl_gather_post(p->x, win);
}

/* Adds [lo, hi) to the segments (index n onwards), merged with the last
 * one when it continues it. */
static void add_segment(hcrt__cl_hp_t *h, uint64_t lo, uint64_t hi, uint64_t *n)
{
    if (lo >= hi)
        return;
    int s = h->nseg - 1;
    if (s < 0 || h->sg_lo[s] + (*n - h->sg_v[s]) != lo)
        h->sg_lo[h->nseg] = lo, h->sg_v[h->nseg++] = *n;
    *n += hi - lo;
}

/* The rest of the exchange (one thread of the node, once every
 * measurement arrived or this node has nothing left to extend): the
 * nodes' extensions, the decision, the split of the window's rest.
 *
 * Extensions: a node done with its probe before the others' measurements
 * arrived runs iterations from the start of its zone of the window's rest
 * meanwhile (ext_mine of them), instead of idling: on the stencil's
 * column sweep, node 0 idled 25 ms of its first call waiting for node 1,
 * which had to fetch a 4096-page column for its one probe iteration. The
 * zones split the rest as the probe slices do, so no two nodes run an
 * iteration twice; the split afterwards covers what the extensions left
 * of each zone, with the probe leftovers, as segments. */
static void exchange_end(hcrt__cl_pool_t *p, uint64_t ext_mine)
{
    hcrt__cl_hp_t *h = p->hp;
    int nn = p->nn, win = h->win;
    hcrt__hetprobe_node_meas_t m[nn];
    uint64_t none[nn];

    hcrt__cl_gather_finish(p->x, win, m);
    /* no zones (every node resting or time-bounded out, or no rest): no
     * node could extend, and every node knows it */
    memset(none, 0, sizeof(none));
    uint8_t zoned[nn];
    for (int k = 0; k < nn; k++)
        zoned[k] = h->zb[2 * k + 1] > h->zb[2 * k];
    const uint64_t *ext =
        h->zopen >= 0 ? hcrt__cl_ext_exchange(p->x, win, ext_mine, zoned)
                      : none;
    hcrt__hetprobe_decision_t *d = &h->d;
    d->nnodes = nn, d->window = win, d->meas = m;
    hcrt__hetprobe_decide(&h->prm, nn, h->thr, m, d);
    uint64_t at = h->pos + h->probe_n, n = 0, base = 0;
    h->probed = 0;
    h->nseg = 0;
    int extended = 0;
    for (int k = 0; k < nn; k++) { /* probe iterations a node left undone */
        uint64_t lo = h->pos + h->pstart[k], hi = h->pos + h->pstart[k + 1];
        lo = m[k].iters < hi - lo ? lo + m[k].iters : hi;
        h->probed += lo - (h->pos + h->pstart[k]);
        add_segment(h, lo, hi, &n);
        extended |= ext[k] > 0;
    }
    if (extended && h->zopen >= 0) {
        /* the open-ended zone ran past a HetProbe-I window's end: the
         * window ends where it stopped (or, as start_window has it, at
         * the loop's end when too little would be left after it) */
        uint64_t e = h->zb[2 * h->zopen] + ext[h->zopen];
        if (e > h->run_end)
            h->run_end = hcrt__cl_hp_window_end(p, e);
    }
    if (h->nseg || extended) { /* split them with the window's rest: [lo,
                                  hi) index */
        for (int k = 0; h->zopen >= 0 && k < nn; k++) { /* zone order */
            if (k == h->zopen)
                continue;
            uint64_t zlo = h->zb[2 * k], zhi = h->zb[2 * k + 1];
            add_segment(h, ext[k] < zhi - zlo ? zlo + ext[k] : zhi, zhi, &n);
        }
        /* the open zone's rest up to the window's end (with the loop's
         * last iteration), or without zones the whole rest */
        uint64_t zlo = h->zopen >= 0 ? h->zb[2 * h->zopen] + ext[h->zopen] : at;
        add_segment(h, zlo, h->run_end, &n);
        h->sg_v[h->nseg] = n;
        if (h->nseg == 1 && h->sg_lo[0] + n == h->run_end)
            base = h->sg_lo[0], h->nseg = 0; /* one piece: contiguous */
    } else {
        base = at, n = h->run_end - at;
    }
    d->first = at, d->remaining = n;
    uint64_t start[nn + 1];
    if (d->kind == HCRT_HP_CROSS) {
        if (hcrt__sched_weighted_split(n, nn, d->csr, h->thr, start) != HCRT_OK)
            hcrt__sched_weighted_split(n, nn, NULL, h->thr, start);
        h->single = -1;
        h->crossed = 1;
        memcpy(h->weight, d->csr, sizeof(double) * (size_t)nn);
    } else {
        for (int k = 0; k <= nn; k++)
            start[k] = k <= d->node ? 0 : n;
        h->single = d->node;
        for (int k = 0; k < nn; k++)
            h->weight[k] = d->csr[k] > 0 ? d->csr[k] : PROBE_FLOOR;
        /* HetProbe-I re-probes for work whose cost moves; what the DSM's
         * faults make of a loop does not change within a call, so a loop
         * found fault-bound runs the rest of the call on its node without
         * more windows (each would probe the slow nodes again: spmv and
         * the stencil ran 10-40 % slower than HetProbe). Every node
         * decides the same from the same measurements. With
         * HCRT_SCHED_REPROBE_MIN_US=0 every window is taken regardless.
         * Not for a node found crawling after an earlier window of the
         * call split across nodes with it: a node measured near the
         * faulting floor crosses it with the noise of one short probe
         * (black-scholes' and k-means' workers with the hog: 0.14-0.30
         * of the head, window to window), and one such window sent the
         * rest of the call to the head alone. */
        if (p->kind == HCRT_CLP_HETPROBE_I &&
            hcrt__cl_sched.min_window_us > 0 &&
            (d->why == HCRT_HP_WHY_FAULTS_FREQUENT ||
             (d->why == HCRT_HP_WHY_CRAWLS && !h->crossed) ||
             d->why == HCRT_HP_WHY_UNMEASURED))
            h->maxwin = win + 1;
    }
    for (int k = 0; k < nn; k++)
        d->share[k] = start[k + 1] - start[k];
    double rate = 0; /* the cluster's iterations per µs in this window */
    for (int k = 0; k < nn; k++)
        rate += (m[k].iters > 0 ? m[k].speed : 0.0) * h->thr[k] / 1e6;
    if (rate > 0) { /* a jump in the loop's cost: deal from now on */
        h->rate_lo = h->rate_lo > 0 && h->rate_lo < rate ? h->rate_lo : rate;
        h->rate_hi = h->rate_hi > rate ? h->rate_hi : rate;
        h->dealing |= h->rate_hi >= h->prm.deal_spread * h->rate_lo;
    }
    pthread_mutex_lock(&hcrt__cl_sched.cache_mu);
    if (rate > 0) {
        /* this window at its rate, the rest of the loop at the same rate
         * until a later window says otherwise (also for a HetProbe-I loop
         * that ran as HetProbe: its work may have grown) */
        double rest = (double)(p->trip - h->run_end) / rate;
        h->work_us += (double)(h->run_end - h->pos) / rate;
        hcrt__probecache_set_work(hcrt__cl_sched.cache, h->loop_id, nn,
                                  h->work_us + rest);
    }
    if (win == 0)
        hcrt__probecache_update(hcrt__cl_sched.cache, h->loop_id, nn, m, 1);
    pthread_mutex_unlock(&hcrt__cl_sched.cache_mu);
    uint64_t ext_all = 0;
    for (int k = 0; k < nn; k++)
        ext_all += ext[k];
    hcrt__cl_record(p, d, 1, win == 0, ext_all,
                    d->kind == HCRT_HP_CROSS &&
                        p->kind == HCRT_CLP_HETPROBE_I && h->dealing);
    d->meas = NULL;
    pthread_mutex_lock(&p->mu);
    if (d->kind != HCRT_HP_CROSS || !hcrt__cl_hp_deal(p, base, n, d->csr))
        p->lo = base + start[p->me], p->hi = base + start[p->me + 1];
    h->win++;
    h->phase = PH_RUN;
    h->exchanging = 0;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* Closes the calling thread's probe chunk (its time is the measurement). */
static void close_probe(hcrt__cl_hp_t *h)
{
    uint64_t t = hcrt__now_ns(), cm, in;
    h->psecs += (double)(t - tl.t0) / 1e9;
    h->pdone++;
    if (hcrt__cl_perf_read(&cm, &in) && in > tl.in0) {
        h->cm_sum += 1000.0 * (double)(cm - tl.cm0) / (double)(in - tl.in0);
        h->cm_n++;
    }
    tl.probing = 0;
}

/* Maps a chunk just taken from the node's range to loop iterations: its
 * dealt piece (deal()) to the rest's positions, then a position of the
 * segment index (after a window closed early) to its segment's
 * iterations; cut where either mapping jumps, the rest going back to the
 * pool (the take had just moved p->lo past the chunk). */
static void unindex(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n)
{
    hcrt__cl_hp_t *h = p->hp;
    uint64_t f = *first, c = *n;
    if (h->ilv) {
        uint64_t r = h->il_q ? f / h->il_q : h->il_full, end, g;
        if (r < h->il_full) {
            end = (r + 1) * h->il_q;
            g = r * h->il_len + h->il_o + (f - r * h->il_q);
        } else {
            end = h->il_full * h->il_q + h->il_q2;
            g = h->il_full * h->il_len + h->il_o2 + (f - h->il_full * h->il_q);
        }
        c = c < end - f ? c : end - f;
        f = g + h->il_base;
    }
    if (h->nseg) {
        int s = 0;
        while (s + 1 < h->nseg && h->sg_v[s + 1] <= f)
            s++;
        uint64_t end = h->sg_v[s + 1];
        c = c < end - f ? c : end - f;
        f = h->sg_lo[s] + (f - h->sg_v[s]);
    }
    p->lo = *first + c;
    *first = f, *n = c;
}

/* Whether this node's probe is over (at a round's start, under p->mu):
 * another node closed the window and this node has probed at least as
 * long as that one did. Stopping at the close alone cut a node that
 * started late (the fork reaches it later) short in its first rounds,
 * whose sub-chunks of a few iterations weigh their overheads: ep's node
 * 1 measured 0.4 of node 0's speed on identical cores. A node slower
 * than that probe by more than a round stops after the round it runs. */
static int probe_over(hcrt__cl_pool_t *p)
{
    hcrt__cl_hp_t *h = p->hp;
    double el_us = (double)(hcrt__now_ns() - h->t0) / 1e3;
    if (el_us < h->quiet_us)
        return 0; /* start_window: quiet_us */
    uint64_t close_us = hcrt__cl_closed(p->x, h->win); /* kept once received */
    return close_us && el_us + 1.0 >= (double)close_us;
}

int hcrt__cl_hp_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n)
{
    hcrt__cl_hp_t *h = p->hp;

    pthread_mutex_lock(&p->mu);
    if (tl.probing && tl.pool == p)
        close_probe(h);
    if (tl.running && tl.pool == p) { /* a run-phase chunk's time */
        double dt = (double)(hcrt__now_ns() - tl.t0) / 1e9;
        h->run_s += dt, h->call_s += dt;
        h->run_it += (double)tl.n, h->call_it += (double)tl.n;
        tl.running = 0;
    }
    for (;;) {
        /* after every thread had a sub-chunk: stop once a node is done
         * (looked up at the start of each round: a DSM load, remote on
         * all nodes but the word's home) */
        if (h->phase == PH_PROBE && h->phanded < h->pchunks && !h->closed &&
            h->phanded >= p->local && h->phanded % p->local == 0 &&
            probe_over(p)) {
            h->closed = 1;
            h->pchunks = h->phanded;
            continue;
        }
        if (h->phase == PH_PROBE && h->phanded < h->pchunks) {
            int j = h->phanded++;
            uint64_t a = hcrt__cl_hp_sub_off(p, j),
                     b = hcrt__cl_hp_sub_off(p, j + 1);
            if (a == b) { /* fewer iterations than sub-chunks */
                h->pdone++;
                continue;
            }
            *first = h->plo + a, *n = b - a;
            if (!h->t0) {
                h->t0 = hcrt__now_ns();
                hcrt__dsm_counters(&h->c0);
            }
            tl.pool = p, tl.probing = 1;
            if (!hcrt__cl_perf_read(&tl.cm0, &tl.in0))
                tl.cm0 = tl.in0 = 0;
            tl.t0 = hcrt__now_ns();
            break;
        }
        if (h->phase == PH_PROBE) {
            if (h->exchanging || (!h->published && h->pdone < h->pchunks)) {
                pthread_cond_wait(&p->cv, &p->mu);
                continue;
            }
            if (!h->published) { /* the node's probe is done */
                h->exchanging = 1;
                pthread_mutex_unlock(&p->mu);
                exchange_begin(p);
                pthread_mutex_lock(&p->mu);
                h->published = 1;
                h->exchanging = 0;
                pthread_cond_broadcast(&p->cv);
                continue;
            }
            /* published: extend while the others' measurements are out */
            if (!h->ext_closed && h->zlo + h->ext < h->zhi &&
                !hcrt__cl_gather_test(p->x)) {
                uint64_t a = h->zlo + h->ext, c = h->zhi - a;
                c = c < h->ext_c ? c : h->ext_c;
                h->ext += c;
                *first = a, *n = c;
                if (p->kind == HCRT_CLP_HETPROBE_I) { /* published_secs */
                    tl.pool = p, tl.running = 1, tl.n = c;
                    tl.t0 = hcrt__now_ns();
                }
                break;
            }
            h->ext_closed = 1;
            h->exchanging = 1;
            uint64_t e = h->ext;
            pthread_mutex_unlock(&p->mu);
            exchange_end(p, e);
            pthread_mutex_lock(&p->mu);
            continue;
        }
        if (h->phase == PH_RUN && p->lo < p->hi) {
            /* guided among the node's threads; a node of one thread
             * takes its whole range (HetProbe: nothing to balance, and
             * each chunk costs a lock and two clock reads; LU's loops,
             * called thousands of times, took ~8 chunks each) */
            uint64_t minc =
                p->local == 1 && !h->max_c ? p->hi - p->lo : h->prm.min_chunk;
            *n = hcrt__cl_take(p, 1, minc, h->max_c, first);
            if (h->nseg || h->ilv)
                unindex(p, first, n);
            /* published_secs (HetProbe-I), the next call's basis */
            tl.pool = p, tl.running = 1, tl.n = *n;
            tl.t0 = hcrt__now_ns();
            break;
        }
        if (h->phase == PH_RUN && h->run_end < p->trip) {
            hcrt__cl_hp_start_window(p, h->run_end);
            pthread_cond_broadcast(&p->cv);
            continue;
        }
        h->phase = PH_DONE;
        pthread_mutex_unlock(&p->mu);
        return 0;
    }
    pthread_mutex_unlock(&p->mu);
    hcrt__cl_count_chunks(p->kind, 1, 0);
    return 1;
}
