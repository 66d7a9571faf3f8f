/*
 * placement.c - region placement policy (placement.h, docs/placement.md).
 *
 * A region's calls run on its chosen placement; a *try* runs `try_calls`
 * calls on the other one. The first call of a try (and of the region) is a
 * transition: pages move between the nodes, so its cycle is charged as a
 * loss but not averaged; the later calls are steady samples. The head
 * alone is tried after the first call when the worst that try can lose
 * fits the budget (early_try), else after the second (a long region
 * called once or twice, such as an initialisation, is not worth a try).
 * The losses of the
 * tries of each placement stay under `budget` x max(elapsed, 1 s): a try
 * of all nodes starts only when its worst case fits (the measured gap plus
 * the call back); a try of the head alone (the one-node run of the call)
 * only while earlier ones did not overspend. One region tries at a time,
 * and a cycle that overlaps another region's try is left out of the
 * averages.
 *
 * Group tries: a region's try pays the page moves that its neighbours'
 * placements cause (a call on the head right after calls on all nodes
 * fetches what the workers wrote), so regions that share data can each
 * lose alone and all win together. Every GROUP_GAP calls of any region
 * (doubled while group tries move nothing), when at least two regions run
 * on all nodes and are called often (at least 3 times, at most GROUP_GAP
 * calls apart, the last time too) and no try is under way, those regions
 * run on the head at once until each has had `try_calls` calls there (the
 * first of each a transition), for (try_calls + 1) x GROUP_GAP calls at
 * most, and no longer than GROUP_GAP calls without a call of a member;
 * then each decides from its own samples as after a try.
 */
#include <stdlib.h>
#include <string.h>

#include "sched/placement.h"

#define HORIZON_NS 1e9      /* the budget's base for runs shorter than 1 s */
#define MAX_SPACING 65536.0 /* calls: every region is looked at again */
#define GROUP_GAP 64        /* calls of any region between group tries */
#define GROUP_GAP_MAX (1u << 20)
#define GROUP_SPAN_NS 2e9 /* a group try ends after this anyway */

void hcrt__place_params_default(hcrt__place_params_t *p, int nodes)
{
    *p = (hcrt__place_params_t){.enabled = 1,
                                .nodes = nodes > 1 ? nodes : 2,
                                .capacity = nodes > 1 ? nodes : 2,
                                .head_first = 1,
                                .budget = 0.03,
                                .allowance_ns = 0,

                                .tie = 0.02,
                                .drift = 0.5,
                                .try_calls = 3,
                                .recheck_min = 8,
                                .recheck_max = 1024};
}

int hcrt__place_init(hcrt__place_table_t *t, const hcrt__place_params_t *p,
                     uint32_t cap, uint64_t now_ns)
{
    memset(t, 0, sizeof(*t));
    t->p = *p;
    if (t->p.try_calls < 1)
        t->p.try_calls = 1;
    if (!(t->p.capacity >= 1))
        t->p.capacity = 1;
    if (t->p.recheck_min < 1)
        t->p.recheck_min = 1;
    if (t->p.recheck_max < t->p.recheck_min)
        t->p.recheck_max = t->p.recheck_min;
    t->slots = calloc(cap ? cap : 1, sizeof(*t->slots));
    if (!t->slots)
        return -1;
    t->cap = cap ? cap : 1;
    t->start_ns = now_ns;
    t->group_gap = t->group_next = GROUP_GAP;
    t->all_ratio = 2;
    return 0;
}

void hcrt__place_fini(hcrt__place_table_t *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
}

hcrt__place_region_t *hcrt__place_region(hcrt__place_table_t *t, uint64_t id)
{
    for (uint32_t i = 0; i < t->cap; i++) {
        hcrt__place_region_t *r = &t->slots[(id + i) % t->cap];
        if (r->used && r->id == id)
            return r;
        if (!r->used) {
            memset(r, 0, sizeof(*r));
            r->used = 1, r->id = id;
            r->interval = t->p.recheck_min;
            r->next_check = 2; /* after a cold and a steady call */
            return r;
        }
    }
    return NULL;
}

double hcrt__place_cost(const hcrt__place_region_t *r, hcrt_place_t where)
{
    if (r->avg[where] > 0)
        return r->avg[where];
    return r->runs[where] ? r->time_ns[where] / (double)r->runs[where] : 0;
}

/* The longest cycle of a placement so far: a region whose calls differ in
 * size (NPB MG's, one per grid level, coarse to fine) may be tried on its
 * longest ones, which its last steady cycles need not hold. */
static double worst_cost(const hcrt__place_region_t *r, hcrt_place_t w)
{
    double m = hcrt__place_cost(r, w);
    return r->peak[w] > m ? r->peak[w] : m;
}

/* What a try of the other placement may lose at worst, in ns. */
static double try_estimate(const hcrt__place_table_t *t,
                           const hcrt__place_region_t *r)
{
    hcrt_place_t alt = (hcrt_place_t)!r->choice;
    double ref = hcrt__place_cost(r, (hcrt_place_t)r->choice);
    double worst = worst_cost(r, (hcrt_place_t)r->choice);

    double gap, alt_cost = r->avg[alt];

    if (alt_cost > 0) /* its longest call: a try may meet the longest */
        gap = (alt == HCRT_PLACE_ALL ? worst_cost(r, alt) : alt_cost) - ref;
    else if (alt == HCRT_PLACE_HEAD) /* the head does all the nodes' work */
        gap = t->p.capacity * worst;
    else /* as much over the head as any call on all nodes has cost */
        gap = (t->all_ratio - 1) * worst;
    if (gap < t->p.tie * ref)
        gap = t->p.tie * ref;
    /* the call back on the choice moves the pages again */
    return gap * t->p.try_calls + worst;
}

/* What tries may have lost by now: budget x max(elapsed, 1 s), plus the
 * allowance; without the 1 s floor when `floor` is 0. */
static double budget_ns(const hcrt__place_table_t *t, uint64_t now_ns,
                        int floor)
{
    double elapsed = (double)(now_ns - t->start_ns);

    if (floor && elapsed < HORIZON_NS)
        elapsed = HORIZON_NS;
    return t->p.budget * elapsed + t->p.allowance_ns;
}

static int try_allowed(hcrt__place_table_t *t, const hcrt__place_region_t *r,
                       uint64_t now_ns)
{
    /* With no more cores on all nodes than on the head alone (capacity
     * 1), a try of all nodes wins only what page moves do not cost it:
     * it gets 3 % of the time elapsed, not of 1 s at least (NPB MG class
     * W, 0.19 s: tries lost 19 ms, 10 % of the run). */
    int floor = r->choice == HCRT_PLACE_ALL || t->p.capacity > 1;
    double budget = budget_ns(t, now_ns, floor);
    /* A call on the head alone is the program's one-node run of it: such
     * a try waits only while earlier tries overspent. A call on all nodes
     * may lose without bound: its worst case must fit. */
    double est = r->choice == HCRT_PLACE_ALL ? 0 : try_estimate(t, r);
    /* With more cores on all nodes, a try of them is worth its worst case
     * only if the most they can win - the nodes' share of the head's call,
     * over as many calls again as the region had - could pay it back: NPB
     * CG class W's 66 us region lost 30-75 ms to a try between 2 hosts,
     * more than it could ever win in its 15 calls. */
    if (r->choice == HCRT_PLACE_HEAD && t->p.capacity > 1) {
        double head = hcrt__place_cost(r, HCRT_PLACE_HEAD);
        double gain = head * (1 - 1 / t->p.capacity) * (double)r->calls;
        if (gain < est) {
            t->budget_refused++;
            return 0;
        }
    }
    if (t->lost_ns + est <= budget)
        return 1;
    t->budget_refused++;
    return 0;
}

static void decide(hcrt__place_table_t *t, hcrt__place_region_t *r);

static void end_try(hcrt__place_table_t *t)
{
    hcrt__place_region_t *b = t->busy;

    if (b->trying) { /* left unfinished: its region is not called now */
        b->trying = 0;
        decide(t, b); /* from the calls it had */
    }
    t->busy = NULL;
    t->epoch++;
}

/* A try whose region has not come back for 16 of its cycles (or 1 s), or
 * for twice as many calls of other regions as came between its last two
 * calls (at least 8), no longer holds the others back: a region called
 * twice, such as an initialisation, whose try began at its second call
 * kept every other region from trying for a second (NPB FT class A: its
 * FFT regions were never tried). */
static int stale(const hcrt__place_table_t *t, uint64_t now_ns)
{
    const hcrt__place_region_t *b = t->busy;
    double c = b->avg[0] > b->avg[1] ? b->avg[0] : b->avg[1];
    uint64_t gap = b->gap > 4 ? b->gap : 4;

    if (t->calls - b->last_at > 2 * gap)
        return 1;
    return (double)(now_ns - t->busy_t0) > (16 * c > 1e9 ? 16 * c : 1e9);
}

/* ---- group tries ---------------------------------------------------- */

/* A region a group try moves: on all nodes, called at least 3 times, often
 * and lately. */
static int group_member(const hcrt__place_table_t *t,
                        const hcrt__place_region_t *r)
{
    return r->used && r->choice == HCRT_PLACE_ALL && r->calls >= 3 &&
           r->trying == 0 && r->gap <= GROUP_GAP &&
           t->calls - r->last_at <= GROUP_GAP;
}

static void start_group(hcrt__place_table_t *t, uint64_t now_ns)
{
    for (uint32_t i = 0; i < t->cap; i++) {
        hcrt__place_region_t *r = &t->slots[i];
        if (!group_member(t, r))
            continue;
        r->in_group = 1, r->group_calls = 0, r->tries++;
        /* samples of the head taken beside calls on all nodes paid
         * their neighbours' moves: the group's replace them */
        r->nring[HCRT_PLACE_HEAD] = r->rpos[HCRT_PLACE_HEAD] = 0;
        r->avg[HCRT_PLACE_HEAD] = 0;
        t->group_left++;
    }
    t->group_on = 1, t->group_t0 = now_ns;
    t->group_start = t->group_moved = t->calls;
    t->groups++;
    t->epoch++;
}

static void end_group(hcrt__place_table_t *t)
{
    uint32_t moved = 0;

    for (uint32_t i = 0; i < t->cap; i++) {
        hcrt__place_region_t *r = &t->slots[i];
        if (!r->used || !r->in_group)
            continue;
        uint8_t before = r->choice;
        r->in_group = 0;
        decide(t, r);
        moved += r->choice != before;
    }
    t->group_on = 0, t->group_left = 0;
    t->group_switches += moved;
    if (moved)
        t->group_gap = GROUP_GAP;
    else if (t->group_gap < GROUP_GAP_MAX)
        t->group_gap *= 2;
    t->group_next = t->calls + t->group_gap;
    t->epoch++;
}

/* Before a call: end a group try that ran its course (or whose members
 * are no longer called), start one when due. A group try is the head's
 * one-node run of its calls: like a try of the head alone it waits only
 * while earlier tries overspent. */
static void group_check(hcrt__place_table_t *t, uint64_t now_ns)
{
    if (t->group_on) {
        if ((double)(now_ns - t->group_t0) > GROUP_SPAN_NS ||
            t->calls - t->group_start > (t->p.try_calls + 1) * GROUP_GAP ||
            t->calls - t->group_moved > GROUP_GAP)
            end_group(t);
        return;
    }
    if (t->calls < t->group_next || t->busy)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->cap && n < 2; i++)
        n += group_member(t, &t->slots[i]);
    if (n < 2 || t->lost_ns > budget_ns(t, now_ns, 1)) {
        t->group_next = t->calls + t->group_gap;
        return;
    }
    start_group(t, now_ns);
}

/* A region's first call: on all nodes, unless a call on the head alone has
 * as many cores (capacity 1: every rank on the head's host). Then the head
 * alone runs it, as one node would, and all nodes are tried after
 * recheck_min calls like any other choice: a call on all nodes can only
 * win there by what the DSM's page moves cost it, and starting every
 * region on all nodes left mixed placements whose page moves each
 * region's try paid (NPB MG class A: 39 tries refused by the budget, three
 * regions on all nodes and three on the head).
 *
 * With more cores on all nodes (ranks on several hosts) the head alone
 * also runs the first call of a region when the last long first call of
 * another region on all nodes kept the head waiting for the other nodes
 * through most of it (first_waited): the program's regions share its
 * arrays, and a region that finds them homed on the head pays every page
 * over the network on its first call, which no later call gives back when
 * it is called once or twice. Between 2 hosts NPB IS class W lost 112 ms
 * that way in four regions called once (the whole program takes 78 ms on
 * one node), after a first call of `create_seq` in which the head waited
 * for the worker's page fetches; CG's `conj_grad`, after `makea`'s region,
 * took 116-850 ms on its first call against 9.5 ms on the head alone. A
 * first call that waited little (compute, NPB EP) keeps first calls on all
 * nodes; short ones (under FIRST_LONG_NS) say nothing, their waits being
 * the fork's and barriers' round trips.
 *
 * And a region the compiler did not find working on its own data
 * (shared_data: it reads or writes shared arrays) starts on the head alone
 * whatever came before: the head's sequential code wrote those arrays, and
 * a first call on all nodes fetches the other nodes' share of them over the
 * network. Between 2 simulated hosts NPB class A lost 0.4-1.9 s that way
 * (FT's init_ui and compute_initial_conditions, CG's makea, IS's
 * create_seq: 2.0-3.2x the one-node time, 1.2-1.4x when they started on
 * the head). A region that works on its own data (NPB EP's Monte-Carlo
 * loop, called once: it must start on all nodes to gain) keeps the rule
 * above. */
#define FIRST_LONG_NS 5e6
#define FIRST_WAITED 0.5 /* of the region's time */

static hcrt_place_t first_place(hcrt__place_table_t *t, hcrt__place_region_t *r)
{
    int head = t->p.head_first &&
               (t->p.capacity <= 1 || t->first_waited || r->shared_data);
    if (!head) {
        r->choice = HCRT_PLACE_ALL;
        return HCRT_PLACE_ALL;
    }
    if (t->p.capacity > 1 && r->shared_data)
        t->first_shared++;
    else if (t->p.capacity > 1)
        t->first_head++;
    r->choice = HCRT_PLACE_HEAD;
    r->next_check = t->p.recheck_min;
    return HCRT_PLACE_HEAD;
}

/* The head's own share of the last call on all nodes (ns), of `region`:
 * what its main thread neither waited for the other nodes (wait_ns) nor
 * lost off the CPU - its CPU time, when measured, bounds it too (a thread
 * preempted or blocked outside the waits, e.g. hosts that share cores).
 * Busy waits burn CPU, so the bound is loose, never too small. */
static double own_share(const hcrt__place_region_t *r, double region)
{
    double own = region - r->wait_ns;
    if (r->cpu_ns > 0 && r->cpu_ns < own)
        own = r->cpu_ns;
    return own > 0 ? own : 0;
}

/* A call on all nodes that cost `all` where the head alone takes `head`
 * (ns): the ratio that estimates tries of all nodes never measured
 * (try_estimate). Between hosts, where a call on all nodes pays its pages
 * over the network, it is no bounded multiple of the head's time: NPB MG
 * class W's first zero3 took 5.6x the head's share of it, a try of comm3
 * 40x, and a try of interp, estimated at 2x its 1.8 ms on the head, took
 * 95-214 ms. */
static void note_ratio(hcrt__place_table_t *t, double all, double head)
{
    if (head < 1e3) /* a call of under 1 us on the head says nothing */
        head = 1e3;
    if (all / head > t->all_ratio)
        t->all_ratio = all / head;
}

/* After a first call on all nodes: whether the head waited through most
 * of it (first_place). */
static void note_first(hcrt__place_table_t *t, const hcrt__place_region_t *r)
{
    if (r->region_ns < FIRST_LONG_NS)
        return;
    double own = own_share(r, r->region_ns);
    t->first_waited = own < (1 - FIRST_WAITED) * r->region_ns;
    /* the head alone would have taken capacity x its own share */
    note_ratio(t, r->region_ns, t->p.capacity * own);
}

hcrt_place_t hcrt__place_choose(hcrt__place_table_t *t, hcrt__place_region_t *r,
                                uint64_t now_ns)
{
    hcrt_place_t where = (hcrt_place_t)r->choice;

    if (t->busy && t->busy != r && stale(t, now_ns))
        end_try(t);
    if (t->p.enabled)
        group_check(t, now_ns);
    if (r->calls)
        r->gap = t->calls - r->last_at;
    r->last_at = t->calls++;
    if (!t->p.enabled) {
        where = HCRT_PLACE_ALL;
    } else if (r->calls == 0) {
        where = first_place(t, r); /* a region called once never re-runs */
    } else if (r->in_group) {
        where = HCRT_PLACE_HEAD;
    } else if (r->trying > 0) {
        r->trying--;
        where = (hcrt_place_t)!r->choice;
    } else if (r->calls >= r->next_check && !t->group_on &&
               (!t->busy || t->busy == r)) {
        if (try_allowed(t, r, now_ns)) {
            r->trying = t->p.try_calls - 1;
            r->tries++;
            where = (hcrt_place_t)!r->choice;
            t->busy = r, t->busy_t0 = now_ns;
            t->epoch++;
        } else {
            r->next_check = r->calls + t->p.recheck_min;
        }
    }
    r->transition = r->calls == 0 || where != r->last;
    r->epoch_at = t->epoch;
    r->quiet = !t->busy || t->busy == r;
    r->last = (uint8_t)where;
    r->fork_ns = now_ns;
    r->pending = 1;
    r->calls++;
    return where;
}

/* Whether calls on all nodes have cost far more than the head's in this
 * run (more than twice the capacity: pages over the network). */
static int all_costly(const hcrt__place_table_t *t)
{
    return t->all_ratio > 2 * t->p.capacity;
}

/* What decide() weighs for placement w: the median of its steady calls;
 * but where calls on all nodes have cost far more than the head's
 * (all_costly), all nodes by their longest steady call. A call there may lose
 * without bound, one on the head at most the capacity times, and a region's
 * calls may differ in size: NPB MG's comm3 between hosts, one call per grid
 * level, tried on coarse levels, moved to all nodes and took 35 ms a call
 * against 1.9 ms on the head, and a median of mostly small calls never showed
 * it. */
static double judged(const hcrt__place_table_t *t,
                     const hcrt__place_region_t *r, hcrt_place_t w)
{
    double v = w == r->choice ? hcrt__place_cost(r, w) : r->avg[w];
    if (w == HCRT_PLACE_ALL && all_costly(t))
        for (int i = 0; i < r->nring[w]; i++)
            if (r->ring[w][i] > v)
                v = r->ring[w][i];
    return v;
}

/* After the last call of a try: keep or switch, and when to look again. */
static void decide(hcrt__place_table_t *t, hcrt__place_region_t *r)
{
    hcrt_place_t alt = (hcrt_place_t)!r->choice;
    double a = r->avg[alt] > 0 ? judged(t, r, alt) : 0;
    double c = judged(t, r, (hcrt_place_t)r->choice);
    int better;

    if (a <= 0) /* the try had only its transition call: kept, unless
                 * the choice had none but its first call either - then
                 * cold call against cold call (a try of the head right
                 * after a first call on all nodes, cut short because the
                 * region was not called again soon: NPB MG's zero3 between
                 * hosts, 56 ms on all nodes, 25 ms on the head) */
        better =
            r->avg[r->choice] <= 0 && r->runs[alt] > 0 &&
            hcrt__place_cost(r, alt) <
                hcrt__place_cost(r, (hcrt_place_t)r->choice) * (1 - t->p.tie);
    else if (alt == HCRT_PLACE_HEAD)
        better = a <= c * (1 + t->p.tie);
    else
        better = a < c * (1 - t->p.tie);
    if (better) {
        r->choice = (uint8_t)alt;
        r->switches++;
        r->interval = t->p.recheck_min;
    } else if (r->interval < t->p.recheck_max) {
        r->interval *= 2;
        if (r->interval > t->p.recheck_max)
            r->interval = t->p.recheck_max;
    }
    /* and no sooner than the calls on the choice that pay for the next
     * try within the budget */
    double c_new = hcrt__place_cost(r, (hcrt_place_t)r->choice);
    double pay = c_new > 0 ? try_estimate(t, r) / (t->p.budget * c_new) : 0;
    if (pay > MAX_SPACING)
        pay = MAX_SPACING;
    if (r->avg[!r->choice] <= 0) /* compared with a cold call: look again */
        pay = 0, r->interval = t->p.recheck_min;
    r->next_check =
        r->calls + (pay > r->interval ? (uint64_t)pay : r->interval);
}

/* The median of a placement's last RING steady cycles: one call slowed by
 * the machine (a descheduled node, a page storm) does not move it. */
static void ring_add(hcrt__place_region_t *r, hcrt_place_t w, double cycle)
{
    double v[HCRT_PLACE_RING];
    int n;

    r->ring[w][r->rpos[w]] = cycle;
    r->rpos[w] = (uint8_t)((r->rpos[w] + 1) % HCRT_PLACE_RING);
    if (r->nring[w] < HCRT_PLACE_RING)
        r->nring[w]++;
    n = r->nring[w];
    memcpy(v, r->ring[w], sizeof(double) * (size_t)n);
    for (int i = 1; i < n; i++) /* insertion sort of at most 5 */
        for (int k = i; k > 0 && v[k - 1] > v[k]; k--) {
            double x = v[k];
            v[k] = v[k - 1], v[k - 1] = x;
        }
    r->avg[w] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A steady call joins its placement's samples. DRIFT_CALLS calls in a row
 * on the choice slower than the drift band restart the samples from the
 * last (the old ones describe a call that is gone) and bring the try of
 * the other placement forward. */
#define DRIFT_CALLS 3
static void steady_sample(hcrt__place_table_t *t, hcrt__place_region_t *r,
                          hcrt_place_t where, double cycle)
{
    /* a call on all nodes longer than any on the head, where calls on
     * all nodes have cost far more than the head's (judged): the head is
     * tried again at once, not after the calls a median of small calls
     * spaced its try by (one big call in five never drifts) */
    if (where == HCRT_PLACE_ALL && where == r->choice && r->trying == 0 &&
        all_costly(t) && r->peak[HCRT_PLACE_HEAD] > 0 &&
        cycle > r->peak[HCRT_PLACE_HEAD] * (1 + t->p.drift) &&
        r->next_check > r->calls)
        r->next_check = r->calls;
    if (where == r->choice && r->trying == 0 && r->nring[where] &&
        cycle > r->avg[where] * (1 + t->p.drift)) {
        if (++r->slow >= DRIFT_CALLS) {
            r->slow = 0;
            r->nring[where] = 0, r->rpos[where] = 0;
            if (r->next_check > r->calls)
                r->next_check = r->calls;
        }
    } else {
        r->slow = 0;
    }
    ring_add(r, where, cycle);
}

/* After a region's first call (on all nodes, cold): the head alone is
 * tried at once, not after a second call on all nodes, when the worst such
 * a try can lose fits the budget, for try_calls calls: the head doing on
 * its own cores the share of that cold call that the other nodes' cores
 * did. The head's own share is the part of the region it did not spend
 * waiting for the other nodes (own_share), so the head alone would take
 * about capacity times that, plus the cycle's time outside the region;
 * what this exceeds the cycle by is the loss.
 * A short DSM-hostile region then pays one call on all nodes instead of
 * two: between hosts the first call of NPB CG's conj_grad (class W, 2
 * hosts) took 600 ms of which the head waited ~590 ms for a worker
 * fetching pages over TCP, against 9.5 ms on the head alone. A long
 * compute-bound one, such as an initialisation called twice, in which the
 * head waits little, still runs both calls on all nodes. */
static void early_try(hcrt__place_table_t *t, hcrt__place_region_t *r,
                      double cycle, uint64_t now_ns)
{
    double region =
        r->region_ns > 0 && r->region_ns <= cycle ? r->region_ns : cycle;
    double alone = t->p.capacity * own_share(r, region) + (cycle - region);
    double worst = (alone > cycle ? alone - cycle : 0) * t->p.try_calls;

    if (t->lost_ns + worst <= budget_ns(t, now_ns, 1))
        r->next_check = 1;
}

void hcrt__place_record(hcrt__place_table_t *t, hcrt__place_region_t *r,
                        uint64_t cycle_ns)
{
    hcrt_place_t where = (hcrt_place_t)r->last;
    double cycle = (double)cycle_ns;

    if (!r->pending)
        return;
    r->pending = 0;
    r->runs[where]++;
    r->time_ns[where] += cycle;
    if (cycle > r->peak[where])
        r->peak[where] = cycle;
    if (r->calls == 1 && where == HCRT_PLACE_ALL && t->p.enabled) {
        note_first(t, r);
        early_try(t, r, cycle, r->fork_ns + cycle_ns);
    }
    /* a try, or the call back after one: what it lost against the choice */
    if (where != r->choice || (r->transition && r->runs[where] > 1)) {
        double ref = hcrt__place_cost(r, (hcrt_place_t)r->choice);
        if (ref > 0 && cycle > ref) {
            r->lost_ns += cycle - ref;
            t->lost_ns += cycle - ref;
        }
    }
    if (where == HCRT_PLACE_ALL && r->choice == HCRT_PLACE_HEAD)
        note_ratio(t, cycle, worst_cost(r, HCRT_PLACE_HEAD));
    /* A try of all nodes that has overspent the budget ends now: its
     * estimate came from the head's calls, and a call on all nodes may
     * cost far more (between hosts NPB MG's comm3, 0.3 ms on the head,
     * took ~45 ms a call on all nodes: each try lost 47-118 ms of a 0.8 s
     * run). */
    if (where == HCRT_PLACE_ALL && r->choice == HCRT_PLACE_HEAD &&
        r->trying > 0 && !r->in_group &&
        t->lost_ns > budget_ns(t, r->fork_ns + cycle_ns, t->p.capacity > 1)) {
        r->trying = 0;
        t->try_cut++;
    }
    if (!r->transition && r->quiet && r->epoch_at == t->epoch)
        steady_sample(t, r, where, cycle);
    if (r->in_group) {
        t->group_moved = t->calls;
        if (where == HCRT_PLACE_HEAD && ++r->group_calls == t->p.try_calls &&
            --t->group_left == 0)
            end_group(t);
        return;
    }
    if (where != r->choice && r->trying == 0) {
        decide(t, r);
        if (t->busy == r)
            end_try(t);
    }
}
