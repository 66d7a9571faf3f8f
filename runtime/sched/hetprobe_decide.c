/*
 * hetprobe_decide.c - HetProbe's decision rule, its parameters and the
 * one-line account of a decision printed by HCRT_STATS.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/hetprobe_int.h"

void hcrt__hetprobe_params_default(hcrt__hetprobe_params_t *p)
{
    p->mode = HCRT_HP_MODE_HETPROBE;
    p->probe_pct = 10.0;
    p->reprobe_pct = 10.0;
    p->min_probe_iters = 4;
    p->threshold_us = HCRT_HP_DEFAULT_THRESHOLD_US;
    p->speed_tie = 0.02;
    p->faulting_floor = HCRT_HP_FAULTING_FLOOR;
    p->faulting_margin = HCRT_HP_FAULTING_MARGIN;
    p->min_chunk = 1;
    p->fractions = 4;
    p->deal_spread = HCRT_HP_DEAL_SPREAD;
}

hcrt_status_t hcrt__hetprobe_params_check(const hcrt__hetprobe_params_t *p,
                                          char *err, size_t errlen)
{
    const char *why = NULL;
    if (p->mode != HCRT_HP_MODE_HETPROBE && p->mode != HCRT_HP_MODE_HETPROBE_I)
        why = "mode must be hetprobe or hetprobe_i";
    else if (!(p->probe_pct > 0.0 && p->probe_pct <= 50.0))
        why = "probe percentage must be in (0, 50]";
    else if (!(p->reprobe_pct > 0.0 && p->reprobe_pct <= 100.0))
        why = "re-probe percentage must be in (0, 100]";
    else if (p->min_probe_iters < 1)
        why = "minimum probe iterations per thread must be >= 1";
    else if (!(p->threshold_us > 0.0) || isinf(p->threshold_us))
        why = "fault-period threshold must be a positive number of us";
    else if (!(p->speed_tie >= 0.0 && p->speed_tie < 1.0))
        why = "speed tie tolerance must be in [0, 1)";
    else if (!(p->faulting_floor >= 0.0 && p->faulting_floor < 1.0))
        why = "faulting floor must be in [0, 1)";
    else if (!(p->faulting_margin >= 0.0) || isinf(p->faulting_margin))
        why = "faulting margin must be a number >= 0";
    else if (p->min_chunk < 1)
        why = "minimum chunk must be >= 1";
    else if (p->fractions < 1)
        why = "HetProbe-I fractions per window must be >= 1";
    else if (!(p->deal_spread >= 1.0))
        why = "HetProbe-I deal spread must be >= 1";
    if (why == NULL)
        return HCRT_OK;
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "hetprobe: %s", why);
    return HCRT_ERR_INVALID;
}

hcrt_status_t hcrt__hetprobe_params_for_loop(
    const hcrt__hetprobe_params_t *base, hcrt__hetprobe_mode_t mode, int pct,
    int64_t chunk, hcrt__hetprobe_params_t *out, char *err, size_t errlen)
{
    hcrt__hetprobe_params_t p = *base;
    p.mode = mode;
    if (pct > 0 && mode == HCRT_HP_MODE_HETPROBE)
        p.probe_pct = pct;
    else if (pct > 0)
        p.reprobe_pct = pct;
    if (chunk > 0)
        p.min_chunk = (uint64_t)chunk;
    hcrt_status_t rc = hcrt__hetprobe_params_check(&p, err, errlen);
    if (rc == HCRT_OK)
        *out = p;
    return rc;
}

/* ---- decision storage --------------------------------------------------- */

hcrt_status_t hcrt__hetprobe_decision_alloc(hcrt__hetprobe_decision_t *d,
                                            int nnodes, int with_meas)
{
    memset(d, 0, sizeof(*d));
    d->nnodes = nnodes;
    d->node = -1;
    d->passed_over = -1;
    d->csr = calloc((size_t)nnodes, sizeof(double));
    d->share = calloc((size_t)nnodes, sizeof(uint64_t));
    if (with_meas)
        d->meas = calloc((size_t)nnodes, sizeof(hcrt__hetprobe_node_meas_t));
    if (d->csr == NULL || d->share == NULL || (with_meas && d->meas == NULL)) {
        hcrt__hetprobe_decision_free(d);
        return HCRT_ERR_NOMEM;
    }
    return HCRT_OK;
}

void hcrt__hetprobe_decision_free(hcrt__hetprobe_decision_t *d)
{
    free(d->csr);
    free(d->share);
    free(d->meas);
    d->csr = NULL;
    d->share = NULL;
    d->meas = NULL;
}

hcrt_status_t hcrt__hetprobe_decision_copy(hcrt__hetprobe_decision_t *dst,
                                           const hcrt__hetprobe_decision_t *src)
{
    hcrt_status_t rc =
        hcrt__hetprobe_decision_alloc(dst, src->nnodes, src->meas != NULL);
    if (rc != HCRT_OK)
        return rc;
    double *csr = dst->csr;
    uint64_t *share = dst->share;
    hcrt__hetprobe_node_meas_t *meas = dst->meas;
    *dst = *src;
    dst->csr = csr;
    dst->share = share;
    dst->meas = meas;
    size_t n = (size_t)src->nnodes;
    memcpy(csr, src->csr, n * sizeof(*csr));
    memcpy(share, src->share, n * sizeof(*share));
    if (meas != NULL)
        memcpy(meas, src->meas, n * sizeof(*meas));
    return HCRT_OK;
}

/* ---- the rule ----------------------------------------------------------- */

static double usable_speed(const hcrt__hetprobe_node_meas_t *m)
{
    return (m->speed > 0.0 && isfinite(m->speed)) ? m->speed : 0.0;
}

/* A node that took no fault in the window has an infinite fault period:
 * the DSM's "elapsed time if no fault" would wrongly call a short, clean
 * probe "too many faults". */
static double period_of(const hcrt__hetprobe_node_meas_t *m)
{
    return m->faults == 0 ? INFINITY : m->period_us;
}

/* Faults too frequent to amortise: the period below the threshold. */
static int faults_often(const hcrt__hetprobe_params_t *p,
                        const hcrt__hetprobe_node_meas_t *m)
{
    return period_of(m) < p->threshold_us;
}

/* Whether node k is among those tied for the single-node choice: within
 * speed_tie of the best throughput, and (clean_only) not faulting often. */
static int in_tie(const hcrt__hetprobe_params_t *p, const int *threads,
                  const hcrt__hetprobe_node_meas_t *m, int k, double best,
                  int clean_only)
{
    return usable_speed(&m[k]) * threads[k] >= best * (1.0 - p->speed_tie) &&
           !(clean_only && faults_often(p, &m[k]));
}

/* Single-node choice: the highest throughput (per-thread speed x threads,
 * what the node would deliver running the rest alone); throughputs within
 * speed_tie of the best are a tie, broken by the fewest cache misses per
 * kilo-instruction when every tied node measured them, then by node id.
 * When that node's faults are too frequent (period below the threshold)
 * and a node whose are not comes within faulting_margin of it, only the
 * nodes whose are not compete (HCRT_HP_FAULTING_MARGIN says why). */
static void pick_single(const hcrt__hetprobe_params_t *p, int nnodes,
                        const int *threads, const hcrt__hetprobe_node_meas_t *m,
                        hcrt__hetprobe_decision_t *d)
{
    double best = 0.0, best_clean = 0.0;
    int fastest = -1;
    /* A node whose probe wrote pages homed elsewhere would send every page
     * of the rest home as a diff after the loop, while a node that wrote
     * none (their home) writes in place: the latter is chosen whenever one
     * measured a speed. The home's probe is the slower one when it takes
     * write faults to revoke the others' copies, which happens once
     * (between hosts NPB MG's zero3 went to node 1, measured 1.3x the
     * head, and all its pages then went home as diffs). */
    hcrt__hetprobe_node_meas_t mm[nnodes > 0 ? nnodes : 1];
    int owe_free = 0;
    for (int k = 0; k < nnodes; k++)
        owe_free |= m[k].written == 0 && usable_speed(&m[k]) > 0;
    if (owe_free) {
        for (int k = 0; k < nnodes; k++) {
            mm[k] = m[k];
            if (m[k].written > 0)
                mm[k].speed = 0.0;
        }
        m = mm;
    }
    for (int k = 0; k < nnodes; k++) {
        double r = usable_speed(&m[k]) * threads[k];
        if (r > best) {
            best = r;
            fastest = k;
        }
        if (!faults_often(p, &m[k]) && r > best_clean)
            best_clean = r;
    }
    int clean_only = fastest >= 0 && best_clean > 0.0 &&
                     faults_often(p, &m[fastest]) &&
                     best <= best_clean * (1.0 + p->faulting_margin);
    if (clean_only) {
        d->passed_over = fastest;
        d->passed_gain = best / best_clean;
        best = best_clean;
    }
    int first = -1, ntied = 0, cm_known = 1, cm_best = -1;
    for (int k = 0; k < nnodes; k++) {
        if (!in_tie(p, threads, m, k, best, clean_only))
            continue;
        if (first < 0)
            first = k;
        ntied++;
        if (!(m[k].cmpki >= 0.0))
            cm_known = 0;
        else if (cm_best < 0 || m[k].cmpki < m[cm_best].cmpki)
            cm_best = k;
    }
    if (first < 0) { /* nothing measured anywhere: the head */
        d->node = 0;
        d->tie = HCRT_HP_TIE_NODE_ID;
        return;
    }
    d->node = first;
    d->tie = HCRT_HP_TIE_NONE;
    if (ntied > 1 && cm_known) {
        int distinct = 0;
        for (int k = 0; k < nnodes; k++)
            if (k != cm_best && m[k].cmpki == m[cm_best].cmpki &&
                in_tie(p, threads, m, k, best, clean_only))
                distinct = -1; /* another tied node has as few misses */
        if (distinct == 0) {
            d->node = cm_best;
            d->tie = HCRT_HP_TIE_CMPKI;
            return;
        }
    }
    if (ntied > 1)
        d->tie = HCRT_HP_TIE_NODE_ID;
}

/* Eligible for a cross-node split: faults rare enough to amortise and a
 * measured speed, unless the node ran below p->faulting_floor of the
 * fastest while taking faults. A probe cut short after a page transfer or
 * two (one iteration of a loop whose rows are thousands of pages away)
 * says little about the fault period, which is then about one fetch's
 * latency and may land either side of the threshold; what it does say is
 * that the faults keep the node from contributing. A node as slow without
 * faults is slow for another reason and keeps its (small) share. */
static int eligible(const hcrt__hetprobe_params_t *p,
                    const hcrt__hetprobe_node_meas_t *m, double fastest)
{
    double s = usable_speed(m);
    return period_of(m) >= p->threshold_us && s > 0.0 &&
           !hcrt__hetprobe_crawls(m, fastest, p->faulting_floor);
}

void hcrt__hetprobe_decide(const hcrt__hetprobe_params_t *p, int nnodes,
                           const int *threads,
                           const hcrt__hetprobe_node_meas_t *m,
                           hcrt__hetprobe_decision_t *d)
{
    double fastest = 0.0, fastest_elig = 0.0, minp = INFINITY;
    int nelig = 0;
    for (int k = 0; k < nnodes; k++) {
        double s = usable_speed(&m[k]), per = period_of(&m[k]);
        fastest = s > fastest ? s : fastest;
        minp = per < minp ? per : minp;
    }
    for (int k = 0; k < nnodes; k++) {
        double s = usable_speed(&m[k]);
        if (eligible(p, &m[k], fastest)) {
            nelig++;
            fastest_elig = s > fastest_elig ? s : fastest_elig;
        }
    }
    d->threshold_us = p->threshold_us;
    d->min_period_us = minp;
    d->tie = HCRT_HP_TIE_NONE;
    d->node = -1;
    d->passed_over = -1;
    d->passed_gain = 0.0;
    if (nnodes > 1 && nelig >= 2) {
        d->kind = HCRT_HP_CROSS;
        d->why = nelig == nnodes ? HCRT_HP_WHY_FAULTS_RARE
                                 : HCRT_HP_WHY_FAULTS_SUBSET;
        for (int k = 0; k < nnodes; k++)
            d->csr[k] = eligible(p, &m[k], fastest)
                            ? usable_speed(&m[k]) / fastest_elig
                            : 0.0;
        return;
    }
    d->kind = HCRT_HP_SINGLE;
    int above = 0, unmeasured = 0;
    for (int k = 0; k < nnodes; k++) {
        above += period_of(&m[k]) >= p->threshold_us && usable_speed(&m[k]) > 0;
        unmeasured += !(usable_speed(&m[k]) > 0);
    }
    d->why = nnodes == 1  ? HCRT_HP_WHY_ONE_NODE
             : above >= 2 ? HCRT_HP_WHY_CRAWLS
             : unmeasured && above + unmeasured >= 2
                 ? HCRT_HP_WHY_UNMEASURED
                 : HCRT_HP_WHY_FAULTS_FREQUENT;
    d->floor = p->faulting_floor;
    for (int k = 0; k < nnodes; k++)
        d->csr[k] = fastest > 0.0 ? usable_speed(&m[k]) / fastest : 0.0;
    pick_single(p, nnodes, threads, m, d);
}

/* ---- the account -------------------------------------------------------- */

#define LIST_MAX 16 /* per-node values printed before "..." */

static size_t put(char *buf, size_t len, size_t at, const char *fmt, double v)
{
    if (at >= len)
        return at;
    int k = snprintf(buf + at, len - at, fmt, v);
    return k > 0 ? at + (size_t)k : at;
}

static size_t put_list(char *buf, size_t len, size_t at, const char *title,
                       const hcrt__hetprobe_decision_t *d, int shares)
{
    at = put(buf, len, at, title, 0.0);
    for (int k = 0; k < d->nnodes && k < LIST_MAX; k++) {
        if (k > 0)
            at = put(buf, len, at, ":", 0.0);
        at = shares ? put(buf, len, at, "%.0f", (double)d->share[k])
                    : put(buf, len, at, "%.3f", d->csr[k]);
    }
    if (d->nnodes > LIST_MAX)
        at = put(buf, len, at, ":...", 0.0);
    return at;
}

static const char *why_text(hcrt__hetprobe_why_t why)
{
    switch (why) {
    case HCRT_HP_WHY_FAULTS_RARE:
        return "faults rare on every node";
    case HCRT_HP_WHY_FAULTS_SUBSET:
        return "faults rare on some nodes only";
    case HCRT_HP_WHY_FAULTS_FREQUENT:
        return "faults too frequent";
    case HCRT_HP_WHY_ONE_NODE:
        return "one-node cluster";
    case HCRT_HP_WHY_SMALL_LOOP:
        return "too few iterations to probe";
    case HCRT_HP_WHY_CACHED:
        return "stable loop, decision from the probe cache";
    case HCRT_HP_WHY_REMAINDER_SMALL:
        return "remainder too small to re-probe";
    case HCRT_HP_WHY_CRAWLS:
        return "the others too slow while faulting";
    case HCRT_HP_WHY_UNMEASURED:
        return "the others measured nothing (resting after crawling, or "
               "one iteration outlasts the probe)";
    }
    return "?";
}

/* How many nodes had a fault period at or above the threshold. */
static int nodes_above(const hcrt__hetprobe_decision_t *d)
{
    int n = 0;
    for (int k = 0; k < d->nnodes; k++)
        n += period_of(&d->meas[k]) >= d->threshold_us;
    return n;
}

int hcrt__hetprobe_decision_format(const hcrt__hetprobe_decision_t *d,
                                   char *buf, size_t len)
{
    size_t at = 0;
    const char *kind = d->kind == HCRT_HP_CROSS    ? "cross-node"
                       : d->kind == HCRT_HP_SINGLE ? "single node"
                                                   : "static split";
    if (len == 0)
        return 0;
    buf[0] = '\0';
    at = put(buf, len, at, d->window ? "re-probe %.0f: " : "", d->window);
    at = put(buf, len, at, kind, 0.0);
    if (d->kind == HCRT_HP_SINGLE)
        at = put(buf, len, at, " %.0f", d->node);
    at = put(buf, len, at, ": ", 0.0);
    at = put(buf, len, at, why_text(d->why), 0.0);
    if (d->meas != NULL && d->why != HCRT_HP_WHY_ONE_NODE) {
        at = put(buf, len, at, " (fault period >= %.1fus on ", d->threshold_us);
        at = put(buf, len, at, "%.0f", nodes_above(d));
        at = put(buf, len, at, " of %.0f nodes, ", d->nnodes);
        at = put(buf, len, at, "min %.1fus)", d->min_period_us);
    }
    if (d->why == HCRT_HP_WHY_CRAWLS)
        at = put(buf, len, at, " (below %.2f of the fastest)", d->floor);
    if (d->tie == HCRT_HP_TIE_CMPKI)
        at = put(buf, len, at, "; speed tie broken by cache misses", 0.0);
    else if (d->tie == HCRT_HP_TIE_NODE_ID)
        at = put(buf, len, at, "; speed tie broken by node id", 0.0);
    if (d->kind == HCRT_HP_SINGLE && d->passed_over >= 0) {
        at = put(buf, len, at, "; preferred to node %.0f", d->passed_over);
        at = put(buf, len, at,
                 " (%.2fx its throughput, but its faults too "
                 "frequent)",
                 d->passed_gain);
    }
    at = put_list(buf, len, at, "; CSR ", d, 0);
    at = put_list(buf, len, at, "; shares ", d, 1);
    return (int)at;
}

void hcrt__hetprobe_decision_print(FILE *out, const char *indent,
                                   const hcrt__hetprobe_decision_t *d)
{
    char line[1024];
    hcrt__hetprobe_decision_format(d, line, sizeof(line));
    fprintf(out, "%s%s\n", indent, line);
    for (int k = 0; d->meas != NULL && k < d->nnodes; k++) {
        const hcrt__hetprobe_node_meas_t *m = &d->meas[k];
        fprintf(out,
                "%s  node %d: %.4g it/s/thread, %llu it probed, %llu faults",
                indent, k, m->speed, (unsigned long long)m->iters,
                (unsigned long long)m->faults);
        if (m->faults > 0)
            fprintf(out, " every %.1fus", m->period_us);
        if (m->faults > 0 && m->fault_share > 0.0)
            fprintf(out, " (%.0f%% of its time)", 100.0 * m->fault_share);
        if (m->cmpki >= 0.0)
            fprintf(out, ", %.2f cache misses/kinstr", m->cmpki);
        fprintf(out, " -> CSR %.3f, %llu it\n", d->csr[k],
                (unsigned long long)d->share[k]);
    }
}
