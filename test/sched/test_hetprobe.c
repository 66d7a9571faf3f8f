/*
 * test_hetprobe.c - unit tests of the HetProbe / HetProbe-I scheduler core
 * (runtime/sched/hetprobe*.c): coverage by brute force, decisions on
 * synthetic measurements, the small-loop fallback and HetProbe-I's
 * re-splitting of the remainder. `test_hetprobe NAME` runs one test.
 */
#include <math.h>

#include "sched/hetprobe_int.h"
#include "sim.h"

static hcrt__hetprobe_params_t params(hcrt__hetprobe_mode_t mode)
{
    hcrt__hetprobe_params_t p;
    hcrt__hetprobe_params_default(&p);
    p.mode = mode;
    return p;
}

/* Creates the scheduler of a sim and runs it; returns sim_run's count. */
static int run(sim_t *s, const hcrt__hetprobe_params_t *p, const double *prior)
{
    hcrt_status_t rc = hcrt__hetprobe_create(p, s->trip, s->nnodes, s->threads,
                                             prior, NULL, &s->hp);
    CHECKF(rc == HCRT_OK, "create = %d", rc);
    return rc == HCRT_OK ? sim_run(s) : 1;
}

/* Every decision split exactly what was left when it was taken. */
static void check_decisions(const sim_t *s)
{
    int nd = hcrt__hetprobe_ndecisions(s->hp);
    uint64_t prev = 0;
    for (int i = 0; i < nd; i++) {
        const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s->hp, i);
        uint64_t sum = 0;
        for (int k = 0; k < d->nnodes; k++)
            sum += d->share[k];
        CHECKF(sum == d->remaining, "decision %d: shares %llu != remaining %llu",
              i, (unsigned long long)sum, (unsigned long long)d->remaining);
        CHECKF(d->first + d->remaining == s->trip,
              "decision %d: %llu before + %llu remaining != trip %llu", i,
              (unsigned long long)d->first, (unsigned long long)d->remaining,
              (unsigned long long)s->trip);
        CHECKF(i == 0 || d->first > prev, "decision %d did not advance", i);
        prev = d->first;
    }
}

/* ---- the weighted split and iteration spaces ---------------------------- */

static long double rounded(double w)
{
    long double r = llroundl((long double)w * 1048576.0L);
    return r == 0 && w > 0 ? 1 : r;
}

static void test_split(void)
{
    uint64_t st[65];
    int thr[64];
    double w[64];
    rng_t r = {12345};
    for (int iter = 0; iter < 2000; iter++) {
        int n = 1 + (int)rng_below(&r, 64);
        uint64_t trip = iter % 3 == 0 ? rng_below(&r, 100)
                                      : rng_next(&r) >> rng_below(&r, 64);
        double total = 0; /* 0: every node has weight or threads 0 */
        for (int k = 0; k < n; k++) {
            thr[k] = (int)rng_below(&r, 9);
            w[k] = rng_below(&r, 5) == 0 ? 0.0 : 0.01 + 10 * rng_unit(&r);
            total += w[k] * thr[k];
        }
        hcrt_status_t rc = hcrt__sched_weighted_split(trip, n, w, thr, st);
        if (total == 0) {
            CHECKF(rc == HCRT_ERR_INVALID, "all-zero weights accepted");
            continue;
        }
        REQUIRE(rc == HCRT_OK, "split = %d", rc);
        CHECKF(st[0] == 0 && st[n] == trip, "split does not cover [0, %llu)",
              (unsigned long long)trip);
        /* Expected shares with the weights as the split rounds them. */
        long double rtotal = 0;
        for (int k = 0; k < n; k++)
            rtotal += rounded(w[k]) * thr[k];
        for (int k = 0; k < n; k++) {
            long double want =
                (long double)trip * rounded(w[k]) * thr[k] / rtotal;
            double got = (double)(st[k + 1] - st[k]);
            CHECKF(st[k] <= st[k + 1], "node %d: negative share", k);
            CHECKF(fabsl(got - want) <= 1.0L + want * 1e-15L,
                  "node %d: share %.0f, expected %.3Lf", k, got, want);
            CHECKF(w[k] * thr[k] > 0 || got == 0, "node %d: weight 0 got %.0f",
                  k, got);
        }
        uint64_t again[65];
        hcrt__sched_weighted_split(trip, n, w, thr, again);
        CHECKF(memcmp(st, again, sizeof(uint64_t) * (size_t)(n + 1)) == 0,
              "split not deterministic");
    }
    /* Leftovers go to the largest remainder, then the lower id. */
    int t3[3] = {1, 1, 1};
    hcrt__sched_weighted_split(10, 3, NULL, t3, st);
    CHECKF(st[1] == 4 && st[2] == 7 && st[3] == 10, "10/3: %llu %llu",
          (unsigned long long)st[1], (unsigned long long)st[2]);
    double bad[2] = {1.0, -1.0};
    int t2[2] = {1, 1};
    CHECKF(hcrt__sched_weighted_split(5, 2, bad, t2, st) == HCRT_ERR_INVALID,
          "negative weight accepted");
    bad[1] = NAN;
    CHECKF(hcrt__sched_weighted_split(5, 2, bad, t2, st) == HCRT_ERR_INVALID,
          "NaN weight accepted");
}

static void test_space(void)
{
    hcrt__hetprobe_space_t s;
    CHECKF(hcrt__hetprobe_space_s64(0, 9, 1, &s) == HCRT_OK && s.trip == 10,
          "0..9");
    CHECKF(hcrt__hetprobe_space_s64(10, 1, -3, &s) == HCRT_OK && s.trip == 4,
          "10..1 step -3: %llu", (unsigned long long)s.trip);
    CHECKF(hcrt__hetprobe_space_s64(1, 0, 1, &s) == HCRT_OK && s.trip == 0,
          "empty");
    CHECKF(hcrt__hetprobe_space_s64(0, 5, -1, &s) == HCRT_OK && s.trip == 0,
          "empty down");
    CHECKF(hcrt__hetprobe_space_s64(0, 5, 0, &s) == HCRT_ERR_INVALID, "step 0");
    CHECKF(hcrt__hetprobe_space_s64(INT64_MIN, INT64_MAX, 1, &s) ==
              HCRT_ERR_UNSUPPORTED,
          "2^64 iterations");
    CHECKF(hcrt__hetprobe_space_s64(INT64_MIN, INT64_MAX, 2, &s) == HCRT_OK &&
              s.trip == (1ull << 63),
          "full range step 2");
    CHECKF(hcrt__hetprobe_space_s64(INT64_MAX, INT64_MIN, INT64_MIN, &s) ==
                  HCRT_OK &&
              s.trip == 2 && (int64_t)hcrt__hetprobe_space_value(&s, 1) == -1,
          "step INT64_MIN: trip %llu", (unsigned long long)s.trip);
    CHECKF(hcrt__hetprobe_space_u64(UINT64_MAX - 10, UINT64_MAX, 3, &s) ==
                  HCRT_OK &&
              s.trip == 4 &&
              hcrt__hetprobe_space_value(&s, 3) == UINT64_MAX - 1,
          "unsigned near max");
    CHECKF(hcrt__hetprobe_space_u64(UINT64_MAX, 0, -1, &s) ==
              HCRT_ERR_UNSUPPORTED,
          "unsigned full range down");
    CHECKF(hcrt__hetprobe_space_u64(UINT64_MAX, 1, -1, &s) == HCRT_OK &&
              s.trip == UINT64_MAX,
          "unsigned almost full range down");
}

/* ---- coverage by brute force -------------------------------------------- */

static uint64_t cov_iters, cov_chunks, cov_decisions, cov_nodes;

static void random_case(rng_t *r, int i)
{
    static int thr[SIM_MAX_NODES];
    int n = i % 4 == 0 ? 1 + (int)rng_below(r, 64) : 1 + (int)rng_below(r, 6);
    int T = 0;
    for (int k = 0; k < n; k++)
        T += thr[k] = 1 + (int)rng_below(r, 8);
    hcrt__hetprobe_params_t p = params(rng_below(r, 2) ? HCRT_HP_MODE_HETPROBE_I
                                                       : HCRT_HP_MODE_HETPROBE);
    p.probe_pct = 1 + 49 * rng_unit(r);
    p.reprobe_pct =
        rng_below(r, 4) ? 1 + 29 * rng_unit(r) : 30 + 70 * rng_unit(r);
    p.min_probe_iters = 1 + rng_below(r, 8);
    p.fractions = 1 + (int)rng_below(r, 8);
    p.min_chunk = 1 + rng_below(r, 16);
    p.threshold_us = 10 + 300 * rng_unit(r);
    uint64_t small = 2 * (uint64_t)T * p.min_probe_iters;
    uint64_t trips[] = {0,
                        1,
                        2,
                        3,
                        small - 1,
                        small,
                        small + 1,
                        rng_below(r, 5000),
                        rng_below(r, 200000 / n),
                        rng_below(r, 200000 / n),
                        rng_below(r, 200000 / n),
                        small + rng_below(r, 50000 / n)};
    uint64_t trip = trips[rng_below(r, sizeof(trips) / sizeof(trips[0]))];
    sim_t s;
    sim_init(&s, n, thr, trip, (uint64_t)i + 1);
    s.random_counters = 1;
    s.switch_at = trip ? rng_below(r, trip) : 0;
    for (int k = 0; k < n; k++) {
        s.speed[k] = 1e5 * (0.2 + 5 * rng_unit(r));
        s.speed2[k] = 1e5 * (0.2 + 5 * rng_unit(r));
        s.cmpki[k] = rng_below(r, 3) ? 10 * rng_unit(r) : -1.0;
    }
    double prior[SIM_MAX_NODES];
    for (int k = 0; k < n; k++)
        prior[k] = 0.1 + 4 * rng_unit(r);
    int bad = run(&s, &p, rng_below(r, 2) ? prior : NULL);
    CHECKF(bad == 0,
          "case %d: %d nodes, %d threads, trip %llu, mode %d, probe %.1f%%, "
          "reprobe %.1f%%, min %llu, fractions %d, chunk %llu",
          i, n, T, (unsigned long long)trip, (int)p.mode, p.probe_pct,
          p.reprobe_pct, (unsigned long long)p.min_probe_iters, p.fractions,
          (unsigned long long)p.min_chunk);
    if (bad == 0)
        check_decisions(&s);
    cov_iters += trip;
    cov_chunks += s.nlog;
    cov_decisions += (uint64_t)hcrt__hetprobe_ndecisions(s.hp);
    cov_nodes += (uint64_t)n;
    sim_fini(&s);
}

static void test_coverage(void)
{
    /* HCRT_TEST_SEED explores other random cases; the default is fixed. */
    const char *seed = getenv("HCRT_TEST_SEED");
    rng_t r = {seed ? strtoull(seed, NULL, 0) | 1 : 0x9e3779b97f4a7c15ull};
    int i;
    for (i = 0; i < 1500 && check_failures == 0; i++)
        random_case(&r, i);
    fprintf(stderr,
            "  %d loops, %llu iterations, %llu chunks, %llu decisions, "
            "%.1f nodes on average\n",
            i, (unsigned long long)cov_iters, (unsigned long long)cov_chunks,
            (unsigned long long)cov_decisions, (double)cov_nodes / i);
}

/* The chunks, mapped to loop values, are exactly the loop's values. */
static void check_values(int64_t lb, int64_t ub, int64_t st, int is_unsigned)
{
    hcrt__hetprobe_space_t sp;
    hcrt_status_t rc =
        is_unsigned
            ? hcrt__hetprobe_space_u64((uint64_t)lb, (uint64_t)ub, st, &sp)
            : hcrt__hetprobe_space_s64(lb, ub, st, &sp);
    REQUIRE(rc == HCRT_OK, "space = %d", rc);
    /* The loop as written, in its own type. */
    uint64_t n = 0, *want = malloc(sizeof(uint64_t) * (sp.trip + 1));
    if (is_unsigned) {
        for (uint64_t v = (uint64_t)lb;; v += (uint64_t)st) {
            if (st > 0 ? v > (uint64_t)ub : v < (uint64_t)ub)
                break;
            want[n++] = v;
            if (st > 0 ? (uint64_t)ub - v < (uint64_t)st
                       : v - (uint64_t)ub < (uint64_t)-st)
                break; /* the next step would wrap */
        }
    } else {
        for (int64_t v = lb;; v += st) {
            if (st > 0 ? v > ub : v < ub)
                break;
            want[n++] = (uint64_t)v;
            if (st > 0 ? (uint64_t)ub - (uint64_t)v < (uint64_t)st
                       : (uint64_t)v - (uint64_t)ub < (uint64_t)-st)
                break;
        }
    }
    CHECKF(n == sp.trip, "trip %llu, loop ran %llu", (unsigned long long)sp.trip,
          (unsigned long long)n);
    int thr[3] = {2, 1, 3};
    sim_t s;
    sim_init(&s, 3, thr, sp.trip, 7);
    s.random_counters = 1;
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE_I);
    p.min_probe_iters = 1;
    p.reprobe_pct = 20;
    CHECKF(run(&s, &p, NULL) == 0, "sim failed");
    unsigned char *hit = calloc(n + 1, 1);
    for (size_t c = 0; c < s.nlog; c++)
        for (uint64_t i = s.log[c].begin; i < s.log[c].end; i++) {
            uint64_t v = hcrt__hetprobe_space_value(&sp, i);
            CHECKF(i < n && v == want[i],
                  "iteration %llu: value %llx, want %llx",
                  (unsigned long long)i, (unsigned long long)v,
                  (unsigned long long)(i < n ? want[i] : 0));
            hit[i]++;
        }
    for (uint64_t i = 0; i < n; i++)
        CHECKF(hit[i] == 1, "value %llu ran %d times", (unsigned long long)i,
              hit[i]);
    free(hit);
    free(want);
    sim_fini(&s);
}

static void test_values(void)
{
    check_values(0, 999, 1, 0);
    check_values(1000, -1000, -7, 0);
    check_values(INT64_MAX - 500, INT64_MAX, 3, 0);
    check_values(INT64_MIN + 400, INT64_MIN, -1, 0);
    check_values(-5, 5, 11, 0);
    check_values((int64_t)(UINT64_MAX - 600), (int64_t)UINT64_MAX, 1, 1);
    check_values((int64_t)(UINT64_MAX - 1), (int64_t)(UINT64_MAX - 900), -2, 1);
    check_values(700, 3, -5, 1);
}

/* ---- decisions on synthetic measurements ----------------------------------
 */

/* Run chunks (not probe) of `node` after decision 0: their count and the
 * span from the first to the last, equal iff the node's range is one piece. */
static void run_span(const sim_t *s, int node, int window, uint64_t *count,
                     uint64_t *span)
{
    uint64_t lo = UINT64_MAX, hi = 0, n = 0;
    for (size_t c = 0; c < s->nlog; c++) {
        const hcrt__hetprobe_chunk_t *k = &s->log[c];
        if (s->log_node[c] != node || k->probe || k->window != window)
            continue;
        lo = k->begin < lo ? k->begin : lo;
        hi = k->end > hi ? k->end : hi;
        n += k->end - k->begin;
    }
    *count = n;
    *span = n ? hi - lo : 0;
}

/* Rare faults, node 0 twice as fast per thread: the rest is split into
 * contiguous node ranges proportional to CSR x threads. */
static void cross_case(int t0, int t1, double want_ratio)
{
    int thr[2] = {t0, t1};
    sim_t s;
    sim_init(&s, 2, thr, 100000, 3);
    s.speed[0] = s.speed2[0] = 2e6;
    s.speed[1] = s.speed2[1] = 1e6;
    s.faults[0] = 0;
    s.faults[1] = 40;
    s.period_us[1] = 450.0;
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    REQUIRE(run(&s, &p, NULL) == 0, "sim failed");
    REQUIRE(hcrt__hetprobe_ndecisions(s.hp) == 1, "decisions: %d",
            hcrt__hetprobe_ndecisions(s.hp));
    const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, 0);
    char buf[512];
    hcrt__hetprobe_decision_format(d, buf, sizeof(buf));
    fprintf(stderr, "  %s\n", buf);
    CHECKF(d->kind == HCRT_HP_CROSS && d->why == HCRT_HP_WHY_FAULTS_RARE,
          "kind %d why %d", d->kind, d->why);
    CHECKF(fabs(d->csr[0] - 1.0) < 1e-9 && fabs(d->csr[1] - 0.5) < 1e-9,
          "CSR %.4f:%.4f", d->csr[0], d->csr[1]);
    CHECKF(fabs((double)d->share[0] - want_ratio * (double)d->share[1]) <= 2,
          "shares %llu:%llu, want ratio %.3f", (unsigned long long)d->share[0],
          (unsigned long long)d->share[1], want_ratio);
    CHECKF(d->min_period_us == 450.0, "min period %.1f", d->min_period_us);
    char *txt = NULL;
    size_t txtlen = 0;
    FILE *mem = open_memstream(&txt, &txtlen);
    hcrt__hetprobe_decision_print(mem, "  ", d);
    fclose(mem);
    fputs(txt, stderr);
    CHECKF(strstr(txt, "node 1: 1e+06 it/s/thread") != NULL &&
              strstr(txt, "40 faults every 450.0us") != NULL,
          "stats text: %s", txt);
    free(txt);
    CHECKF(strstr(buf, "cross-node") && strstr(buf, "450.0us") &&
              strstr(buf, "100.0us"),
          "account: %s", buf);
    for (int k = 0; k < 2; k++) {
        uint64_t n, span;
        run_span(&s, k, 0, &n, &span);
        CHECKF(n == d->share[k] && span == n,
              "node %d: %llu run iterations over a span of %llu (share %llu)",
              k, (unsigned long long)n, (unsigned long long)span,
              (unsigned long long)d->share[k]);
    }
    sim_fini(&s);
}

static void test_cross(void)
{
    cross_case(4, 4, 2.0);
    cross_case(2, 6, 2.0 / 3.0);
}

/* Frequent faults: everything left goes to the node with the highest
 * throughput, even if it is the one that faulted; the others are DONE. */
static void test_single(void)
{
    int thr[3] = {4, 4, 2};
    sim_t s;
    sim_init(&s, 3, thr, 50000, 4);
    s.speed[0] = s.speed2[0] = 1e6;
    s.speed[1] = s.speed2[1] = 3e6;
    s.speed[2] = s.speed2[2] = 4e6; /* faster per thread, fewer threads */
    s.faults[1] = s.faults[2] = 500;
    s.period_us[1] = 20.0;
    s.period_us[2] = 99.0;
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    REQUIRE(run(&s, &p, NULL) == 0, "sim failed");
    const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, 0);
    REQUIRE(d != NULL, "no decision");
    CHECKF(d->kind == HCRT_HP_SINGLE && d->node == 1 &&
              d->why == HCRT_HP_WHY_FAULTS_FREQUENT &&
              d->tie == HCRT_HP_TIE_NONE,
          "kind %d node %d why %d tie %d", d->kind, d->node, d->why, d->tie);
    CHECKF(d->share[1] == d->remaining && d->share[0] == 0 && d->share[2] == 0,
          "shares %llu:%llu:%llu", (unsigned long long)d->share[0],
          (unsigned long long)d->share[1], (unsigned long long)d->share[2]);
    CHECKF(d->min_period_us == 20.0, "min period %.1f", d->min_period_us);
    uint64_t n, span;
    run_span(&s, 0, 0, &n, &span);
    CHECKF(n == 0, "node 0 ran %llu iterations after the probe",
          (unsigned long long)n);
    sim_fini(&s);
}

static void decide(const int *thr, int n, const double *speed,
                   const double *cmpki, hcrt__hetprobe_decision_t *d)
{
    hcrt__hetprobe_node_meas_t m[4];
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    memset(m, 0, sizeof(m)); /* fault share and pages written unknown */
    for (int k = 0; k < n; k++) {
        m[k].speed = speed[k];
        m[k].iters = 100;
        m[k].faults = 1000;
        m[k].period_us = 5.0;
        m[k].cmpki = cmpki ? cmpki[k] : -1.0;
    }
    hcrt__hetprobe_decide(&p, n, thr, m, d);
}

static void test_ties(void)
{
    hcrt__hetprobe_decision_t d;
    REQUIRE(hcrt__hetprobe_decision_alloc(&d, 4, 0) == HCRT_OK, "alloc");
    int thr[4] = {2, 2, 2, 1};
    double sp[4] = {1e6, 1.01e6, 1.0e6, 2e6}; /* node 3: 2e6 x 1 thread */
    double cm[4] = {5.0, 2.0, 1.0, 9.0};
    decide(thr, 4, sp, cm, &d); /* all four within 2%: fewest misses */
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 2 && d.tie == HCRT_HP_TIE_CMPKI,
          "cmpki: node %d tie %d", d.node, d.tie);
    decide(thr, 4, sp, NULL, &d); /* misses unknown: lowest id */
    CHECKF(d.node == 0 && d.tie == HCRT_HP_TIE_NODE_ID, "id: node %d tie %d",
          d.node, d.tie);
    double same[4] = {3.0, 3.0, 3.0, 3.0};
    decide(thr, 4, sp, same, &d); /* equal misses: lowest id */
    CHECKF(d.node == 0 && d.tie == HCRT_HP_TIE_NODE_ID, "equal: node %d tie %d",
          d.node, d.tie);
    double clear[4] = {1e6, 1.5e6, 1e6, 1e6};
    decide(thr, 4, clear, cm, &d); /* a clear winner ignores misses */
    CHECKF(d.node == 1 && d.tie == HCRT_HP_TIE_NONE, "clear: node %d tie %d",
          d.node, d.tie);
    double part[4] = {1e6, 1e6, 0.5e6, 0.5e6};
    double cm2[4] = {4.0, -1.0, 0.1, 0.1};
    decide(thr, 4, part, cm2, &d); /* a tied node without counters: id */
    CHECKF(d.node == 0 && d.tie == HCRT_HP_TIE_NODE_ID, "partial: node %d",
          d.node);
    hcrt__hetprobe_decision_free(&d);
}

/* Single node: the fastest node faults too often and a node that does not
 * is within HCRT_SCHED_FAULTING_MARGIN of it: the clean node runs the rest. */
/* A node whose probe wrote pages homed elsewhere (each a diff after the
 * loop) is not chosen to run the rest alone while a node that wrote none
 * measured a speed, however much faster it probed; a node faster while
 * only fetching still is (beyond the margin), and with every node writing
 * the fastest is. */
static void test_written(void)
{
    hcrt__hetprobe_decision_t d;
    REQUIRE(hcrt__hetprobe_decision_alloc(&d, 2, 0) == HCRT_OK, "alloc");
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    int thr[2] = {1, 1};
    hcrt__hetprobe_node_meas_t m[2] = {
        {.speed = 1.0e6, .iters = 100, .faults = 0, .cmpki = -1.0},
        {.speed = 2.5e6, .iters = 100, .faults = 256, .period_us = 10.0,
         .cmpki = -1.0, .fault_share = 0.9, .written = 256}};
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 0,
           "a writer 2.5x faster: kind %d node %d", d.kind, d.node);
    m[1].written = 0; /* the same faults, all fetches */
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 1,
           "a fetcher 2.5x faster: node %d", d.node);
    m[1].written = 256;
    m[0].faults = 256, m[0].period_us = 10.0, m[0].written = 256;
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 1,
           "both writing: the faster, node %d", d.node);
    hcrt__hetprobe_decision_free(&d);
}

static void test_clean(void)
{
    hcrt__hetprobe_decision_t d;
    REQUIRE(hcrt__hetprobe_decision_alloc(&d, 3, 0) == HCRT_OK, "alloc");
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    int thr[3] = {2, 2, 2};
    hcrt__hetprobe_node_meas_t m[3] = {
        {.speed = 1.0e6, .iters = 100, .faults = 0, .cmpki = -1.0},
        {.speed = 1.1e6, .iters = 100, .faults = 500, .period_us = 20.0,
         .cmpki = -1.0},
        {.speed = 0.5e6, .iters = 100, .faults = 500, .period_us = 30.0,
         .cmpki = -1.0}};
    hcrt__hetprobe_decide(&p, 3, thr, m, &d); /* 10 % faster, faulting */
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 0 && d.passed_over == 1 &&
              d.passed_gain > 1.09 && d.passed_gain < 1.11,
          "within the margin: node %d passed over %d (%.3f)", d.node,
          d.passed_over, d.passed_gain);
    char line[512];
    hcrt__hetprobe_decision_format(&d, line, sizeof(line));
    CHECKF(strstr(line, "preferred to node 1 (1.10x") != NULL, "account: %s",
          line);
    m[1].speed = 1.3e6; /* 30 % faster: worth its faults */
    hcrt__hetprobe_decide(&p, 3, thr, m, &d);
    CHECKF(d.node == 1 && d.passed_over == -1, "beyond: node %d passed %d",
          d.node, d.passed_over);
    hcrt__hetprobe_decision_format(&d, line, sizeof(line));
    CHECKF(strstr(line, "preferred") == NULL, "account: %s", line);
    m[1].speed = 1.1e6;
    p.faulting_margin = 0.0; /* the paper's rule: throughput alone */
    hcrt__hetprobe_decide(&p, 3, thr, m, &d);
    CHECKF(d.node == 1 && d.passed_over == -1, "margin 0: node %d", d.node);
    p.faulting_margin = 0.25;
    m[0].faults = 10; /* every node faults too often: throughput alone */
    m[0].period_us = 50.0;
    hcrt__hetprobe_decide(&p, 3, thr, m, &d);
    CHECKF(d.node == 1 && d.passed_over == -1, "all faulting: node %d",
          d.node);
    m[0].faults = 0; /* a clean node 2 % slower than a clean node 0 ties */
    m[2].faults = 0;
    m[2].speed = 0.99e6;
    m[0].cmpki = 5.0;
    m[2].cmpki = 1.0;
    m[1].cmpki = 0.5;
    hcrt__hetprobe_decide(&p, 3, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_CROSS, "two clean nodes: kind %d", d.kind);
    p.faulting_margin = -1.0;
    char err[128];
    CHECKF(hcrt__hetprobe_params_check(&p, err, sizeof(err)) != HCRT_OK &&
              strstr(err, "faulting margin") != NULL,
          "negative margin accepted: %s", err);
    hcrt__hetprobe_decision_free(&d);
}

/* One node faults too often: the others share the work, it gets none. */
static void test_subset(void)
{
    int thr[3] = {2, 2, 2};
    sim_t s;
    sim_init(&s, 3, thr, 60000, 5);
    s.faults[0] = 0;
    s.faults[1] = 10;
    s.period_us[1] = 1000.0;
    s.faults[2] = 10000;
    s.period_us[2] = 3.0;
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    REQUIRE(run(&s, &p, NULL) == 0, "sim failed");
    const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, 0);
    CHECKF(d->kind == HCRT_HP_CROSS && d->why == HCRT_HP_WHY_FAULTS_SUBSET &&
              d->share[2] == 0 && d->share[0] > 0 && d->share[1] > 0 &&
              llabs((long long)d->share[0] - (long long)d->share[1]) <= 1,
          "kind %d why %d shares %llu:%llu:%llu", d->kind, d->why,
          (unsigned long long)d->share[0], (unsigned long long)d->share[1],
          (unsigned long long)d->share[2]);
    sim_fini(&s);
}

/* A node crawling while it takes faults (one iteration of a loop whose
 * rows are thousands of pages away) is left out of a cross-node split
 * whatever its fault period, which a probe cut short measures badly; a
 * node as slow without faults keeps its small share. */
static void test_crawl(void)
{
    hcrt__hetprobe_decision_t d;
    REQUIRE(hcrt__hetprobe_decision_alloc(&d, 3, 0) == HCRT_OK, "alloc");
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    int thr[3] = {1, 1, 1};
    hcrt__hetprobe_node_meas_t m[3] = {
        {.speed = 1e5, .iters = 400, .faults = 0, .cmpki = -1},
        {.speed = 250, .iters = 1, .faults = 15, .period_us = 270.0,
         .cmpki = -1},
        {.speed = 1e5, .iters = 400, .faults = 0, .cmpki = -1}};
    hcrt__hetprobe_decide(&p, 2, thr, m, &d); /* periods all >= 100 us */
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 0 &&
              d.why == HCRT_HP_WHY_CRAWLS,
          "2 nodes: kind %d node %d why %d", d.kind, d.node, d.why);
    hcrt__hetprobe_decide(&p, 3, thr, m, &d); /* the other two share */
    CHECKF(d.kind == HCRT_HP_CROSS && d.why == HCRT_HP_WHY_FAULTS_SUBSET &&
              d.csr[1] == 0.0 && d.csr[0] == 1.0 && d.csr[2] == 1.0,
          "3 nodes: kind %d why %d csr %.3f:%.3f:%.3f", d.kind, d.why,
          d.csr[0], d.csr[1], d.csr[2]);
    m[1].faults = 0; /* slow without faults: not the DSM's doing */
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_CROSS && d.csr[1] > 0.0,
          "no faults: kind %d csr %.4f", d.kind, d.csr[1]);
    m[1].faults = 15;
    m[1].speed = 1.0e4; /* 10 % of the fastest while faulting: left out */
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_SINGLE && d.why == HCRT_HP_WHY_CRAWLS,
          "10%%: kind %d why %d", d.kind, d.why);
    m[1].speed = 1.5e4; /* 15 %: worth its share */
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_CROSS, "15%%: kind %d", d.kind);
    /* a slow node whose faults took little of its time is slow for
     * another reason and keeps its share; one whose faults took most of
     * it crawls */
    m[1].speed = 1.0e4;
    m[1].fault_share = 0.2;
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_CROSS && d.csr[1] > 0.0,
          "20%% of its time in faults: kind %d", d.kind);
    m[1].fault_share = 0.9;
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_SINGLE && d.why == HCRT_HP_WHY_CRAWLS,
          "90%% of its time in faults: kind %d why %d", d.kind, d.why);
    d.meas = m;
    char *txt = NULL;
    size_t txtlen = 0;
    FILE *mem = open_memstream(&txt, &txtlen);
    hcrt__hetprobe_decision_print(mem, "  ", &d);
    fclose(mem);
    CHECKF(strstr(txt, "15 faults every 270.0us (90% of its time)") != NULL,
          "stats text: %s", txt);
    free(txt);
    d.meas = NULL;
    m[1].fault_share = 0.0;
    p.faulting_floor = 0.05; /* HCRT_SCHED_FAULTING_FLOOR */
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_CROSS, "floor 0.05, 10%%: kind %d", d.kind);
    /* a node that probed nothing (resting after it crawled, or held to no
     * slice by the time bound): single, and the account says why */
    m[1] = (hcrt__hetprobe_node_meas_t){.cmpki = -1};
    hcrt__hetprobe_decide(&p, 2, thr, m, &d);
    CHECKF(d.kind == HCRT_HP_SINGLE && d.node == 0 &&
              d.why == HCRT_HP_WHY_UNMEASURED,
          "unmeasured: kind %d node %d why %d", d.kind, d.node, d.why);
    hcrt__hetprobe_decision_free(&d);
}

/* Too few iterations for every thread to get min_probe_iters twice over:
 * no probe, a static split by the prior CSR, identical for equal trips. */
static void test_small(void)
{
    int thr[2] = {2, 2};
    double prior[2] = {3.0, 1.0};
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    for (uint64_t trip = 0; trip < 40; trip++) {
        sim_t s;
        sim_init(&s, 2, thr, trip, trip);
        REQUIRE(run(&s, &p, prior) == 0, "sim failed, trip %llu",
                (unsigned long long)trip);
        const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, 0);
        if (trip == 0) {
            CHECKF(d == NULL, "decision for an empty loop");
        } else if (trip < 32) { /* 2 x 4 threads x 4 per thread */
            uint64_t st[3];
            hcrt__sched_weighted_split(trip, 2, prior, thr, st);
            REQUIRE(d != NULL, "no decision");
            CHECKF(
                d->kind == HCRT_HP_STATIC && d->why == HCRT_HP_WHY_SMALL_LOOP &&
                    d->share[0] == st[1] && d->share[1] == st[2] - st[1],
                "trip %llu: kind %d shares %llu:%llu", (unsigned long long)trip,
                d->kind, (unsigned long long)d->share[0],
                (unsigned long long)d->share[1]);
            for (int k = 0; k < 2; k++) {
                uint64_t n, span;
                run_span(&s, k, -1, &n, &span);
                CHECKF(n == d->share[k] && span == n,
                      "trip %llu node %d: not its static range",
                      (unsigned long long)trip, k);
            }
        } else {
            CHECKF(d != NULL && d->kind != HCRT_HP_STATIC && d->meas != NULL,
                  "trip %llu was not probed", (unsigned long long)trip);
        }
        sim_fini(&s);
    }
    int one[1] = {4};
    sim_t s;
    sim_init(&s, 1, one, 1000, 1);
    REQUIRE(run(&s, &p, NULL) == 0, "one node");
    const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, 0);
    CHECKF(d->kind == HCRT_HP_SINGLE && d->why == HCRT_HP_WHY_ONE_NODE &&
              hcrt__hetprobe_ndecisions(s.hp) == 1,
          "one node: kind %d why %d", d->kind, d->why);
    sim_fini(&s);
}

/* ---- HetProbe-I --------------------------------------------------------- */

/* Node 0 is fast on the first half of the loop, node 1 on the second. */
static void irregular(sim_t *s, const int *thr, hcrt__hetprobe_mode_t mode)
{
    sim_init(s, 2, thr, 200000, 11);
    s->speed[0] = 2e6;
    s->speed2[0] = 0.5e6;
    s->speed[1] = 0.5e6;
    s->speed2[1] = 2e6;
    s->switch_at = 100000;
    s->faults[0] = s->faults[1] = 3;
    s->period_us[0] = s->period_us[1] = 800.0;
    hcrt__hetprobe_params_t p = params(mode);
    CHECKF(run(s, &p, NULL) == 0, "sim failed (mode %d)", (int)mode);
    check_decisions(s);
}

/* The slowest node's busy time per thread: the loop's time if nobody waited. */
static double makespan(const sim_t *s)
{
    double m = 0;
    for (int k = 0; k < s->nnodes; k++) {
        double t = s->busy[k] / s->threads[k];
        m = t > m ? t : m;
    }
    return m;
}

static void test_reprobe(void)
{
    int thr[2] = {4, 4};
    sim_t a, b;
    irregular(&a, thr, HCRT_HP_MODE_HETPROBE);
    irregular(&b, thr, HCRT_HP_MODE_HETPROBE_I);
    int na = hcrt__hetprobe_ndecisions(a.hp),
        nb = hcrt__hetprobe_ndecisions(b.hp);
    CHECKF(na == 1, "HetProbe took %d decisions", na);
    /* 10% windows: a re-probe per window while the remainder is >= one. */
    CHECKF(nb >= 6 && nb <= 11, "HetProbe-I took %d decisions", nb);
    const hcrt__hetprobe_decision_t *first = hcrt__hetprobe_decision(b.hp, 0);
    const hcrt__hetprobe_decision_t *last =
        hcrt__hetprobe_decision(b.hp, nb - 1);
    char buf[512];
    for (int i = 0; i < nb; i++) {
        hcrt__hetprobe_decision_format(hcrt__hetprobe_decision(b.hp, i), buf,
                                       sizeof(buf));
        fprintf(stderr, "  %s\n", buf);
    }
    CHECKF(first->csr[0] > first->csr[1], "first CSR %.3f:%.3f", first->csr[0],
          first->csr[1]);
    CHECKF(last->csr[1] > last->csr[0], "last CSR %.3f:%.3f", last->csr[0],
          last->csr[1]);
    CHECKF(last->window == nb - 1 && strstr(buf, "re-probe") != NULL,
          "last window %d: %s", last->window, buf);
    double ma = makespan(&a), mb = makespan(&b);
    fprintf(stderr, "  modelled time: HetProbe %.4fs, HetProbe-I %.4fs\n", ma,
            mb);
    CHECKF(mb < 0.85 * ma, "HetProbe-I %.4fs not 15%% faster than %.4fs", mb,
          ma);
    /* Each re-probe split only what was left: probes happen inside the
     * remainder, after everything handed out before the window. */
    for (int i = 1; i < nb; i++) {
        const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(b.hp, i);
        const hcrt__hetprobe_decision_t *prev =
            hcrt__hetprobe_decision(b.hp, i - 1);
        CHECKF(d->remaining < prev->remaining, "decision %d: %llu not < %llu", i,
              (unsigned long long)d->remaining,
              (unsigned long long)prev->remaining);
    }
    sim_fini(&a);
    sim_fini(&b);
}

/* A regular loop: HetProbe-I keeps deciding the same and its re-probes
 * cost little modelled time. */
static void test_regular(void)
{
    int thr[2] = {2, 4};
    sim_t a, b;
    for (int m = 0; m < 2; m++) {
        sim_t *s = m ? &b : &a;
        sim_init(s, 2, thr, 100000, 13);
        s->speed[0] = s->speed2[0] = 3e6;
        s->speed[1] = s->speed2[1] = 1e6;
        hcrt__hetprobe_params_t p =
            params(m ? HCRT_HP_MODE_HETPROBE_I : HCRT_HP_MODE_HETPROBE);
        CHECKF(run(s, &p, NULL) == 0, "sim failed (mode %d)", m);
    }
    int nb = hcrt__hetprobe_ndecisions(b.hp);
    for (int i = 0; i < nb; i++) {
        const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(b.hp, i);
        CHECKF(d->kind == HCRT_HP_CROSS && fabs(d->csr[1] - 1.0 / 3) < 1e-9,
              "decision %d: kind %d CSR %.3f", i, d->kind, d->csr[1]);
    }
    double ma = makespan(&a), mb = makespan(&b);
    CHECKF(mb < 1.05 * ma, "HetProbe-I %.4fs vs HetProbe %.4fs", mb, ma);
    sim_fini(&a);
    sim_fini(&b);
}

/* Several nodes, single-node decisions in between: idle nodes wait and are
 * brought back by the re-probe; node queues after a re-split have jumps. */
static void test_jumps(void)
{
    int thr[4] = {1, 3, 2, 2};
    sim_t s;
    sim_init(&s, 4, thr, 120000, 17);
    s.random_counters = 1; /* flips between single and cross */
    for (int k = 0; k < 4; k++) {
        s.speed[k] = 1e6 * (1 + k);
        s.speed2[k] = 1e6 * (4 - k);
    }
    s.switch_at = 50000;
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE_I);
    p.threshold_us = 200.0;
    REQUIRE(run(&s, &p, NULL) == 0, "sim failed");
    check_decisions(&s);
    int nd = hcrt__hetprobe_ndecisions(s.hp), single = 0, cross = 0, jumps = 0;
    for (int i = 0; i < nd; i++) {
        const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, i);
        single += d->kind == HCRT_HP_SINGLE;
        cross += d->kind == HCRT_HP_CROSS;
        for (int k = 0; k < 4; k++) {
            uint64_t n, span;
            run_span(&s, k, d->window, &n, &span);
            jumps += span > n;
        }
    }
    CHECKF(single > 0 && cross > 0, "%d single, %d cross decisions", single,
          cross);
    CHECKF(jumps > 0, "no node range had a jump in %d decisions", nd);
    sim_fini(&s);
}

/* ---- interface checks --------------------------------------------------- */

static void test_bad_input(void)
{
    hcrt__hetprobe_params_t p = params(HCRT_HP_MODE_HETPROBE);
    char err[200] = "";
    int thr[2] = {1, 1}, zero[2] = {1, 0};
    hcrt__hetprobe_t *hp = NULL;
    p.probe_pct = 60;
    CHECKF(hcrt__hetprobe_params_check(&p, err, sizeof(err)) ==
                  HCRT_ERR_INVALID &&
              strstr(err, "(0, 50]") != NULL,
          "probe 60%%: %s", err);
    CHECKF(hcrt__hetprobe_create(&p, 10, 2, thr, NULL, NULL, &hp) ==
              HCRT_ERR_INVALID,
          "bad params accepted");
    p = params(HCRT_HP_MODE_HETPROBE);
    p.threshold_us = 0;
    CHECKF(hcrt__hetprobe_params_check(&p, err, sizeof(err)) != HCRT_OK,
          "threshold 0 accepted");
    p = params(HCRT_HP_MODE_HETPROBE);
    CHECKF(hcrt__hetprobe_create(&p, 10, 2, zero, NULL, NULL, &hp) ==
              HCRT_ERR_INVALID,
          "a node without threads accepted");
    CHECKF(hcrt__hetprobe_create(&p, 10, 0, thr, NULL, NULL, &hp) ==
              HCRT_ERR_INVALID,
          "zero nodes accepted");
    double prior[2] = {1.0, 0.0};
    CHECKF(hcrt__hetprobe_create(&p, 10, 2, thr, prior, NULL, &hp) ==
              HCRT_ERR_INVALID,
          "prior 0 accepted");
    REQUIRE(hcrt__hetprobe_create(&p, 1000, 2, thr, NULL, NULL, &hp) == HCRT_OK,
            "create");
    hcrt__hetprobe_chunk_t c;
    hcrt__hetprobe_next_t w;
    CHECKF(hcrt__hetprobe_next(hp, 2, 0, &c, &w) == HCRT_ERR_INVALID,
          "node 2 of 2 accepted");
    CHECKF(hcrt__hetprobe_next(hp, 0, 1, &c, &w) == HCRT_ERR_INVALID,
          "thread 1 of 1 accepted");
    CHECKF(hcrt__hetprobe_complete(hp, 0, 0, &c, 1.0) == HCRT_ERR_INVALID,
          "completion of a chunk never handed out accepted");
    REQUIRE(hcrt__hetprobe_next(hp, 0, 0, &c, &w) == HCRT_OK &&
                w == HCRT_HP_NEXT_CHUNK && c.probe,
            "first probe chunk");
    CHECKF(hcrt__hetprobe_next(hp, 0, 0, &c, &w) == HCRT_OK &&
              w == HCRT_HP_NEXT_WAIT,
          "second call in the probe period: %d", (int)w);
    CHECKF(hcrt__hetprobe_counters(hp, 0, 3, NAN, -1) == HCRT_ERR_INVALID,
          "NaN fault period accepted");
    hcrt__hetprobe_destroy(hp);
    /* The schedule clause's percentage and chunk. */
    hcrt__hetprobe_params_t base = params(HCRT_HP_MODE_HETPROBE), q;
    CHECKF(hcrt__hetprobe_params_for_loop(&base, HCRT_HP_MODE_HETPROBE, 20, 0,
                                         &q, err, sizeof(err)) == HCRT_OK &&
              q.probe_pct == 20 && q.reprobe_pct == 10 && q.min_chunk == 1,
          "hetprobe, 20");
    CHECKF(hcrt__hetprobe_params_for_loop(&base, HCRT_HP_MODE_HETPROBE_I, 5, 8,
                                         &q, err, sizeof(err)) == HCRT_OK &&
              q.mode == HCRT_HP_MODE_HETPROBE_I && q.probe_pct == 10 &&
              q.reprobe_pct == 5 && q.min_chunk == 8,
          "hetprobe_i, 5, chunk 8");
    CHECKF(hcrt__hetprobe_params_for_loop(&base, HCRT_HP_MODE_HETPROBE, 75, 0,
                                         &q, err,
                                         sizeof(err)) == HCRT_ERR_INVALID &&
              strstr(err, "probe percentage"),
          "hetprobe, 75: %s", err);
}

int main(int argc, char **argv)
{
    static const check_case_t tests[] = {
        {"split", test_split},         {"space", test_space},
        {"coverage", test_coverage},   {"values", test_values},
        {"cross", test_cross},         {"single", test_single},
        {"ties", test_ties},           {"clean", test_clean},
        {"written", test_written},
        {"subset", test_subset},
        {"crawl", test_crawl},
        {"small", test_small},         {"reprobe", test_reprobe},
        {"regular", test_regular},     {"jumps", test_jumps},
        {"bad_input", test_bad_input}, {NULL, NULL}};
    return check_run(argc, argv, tests);
}
