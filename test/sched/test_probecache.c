/*
 * test_probecache.c - the probe cache (runtime/sched/hetprobe_cache.c):
 * EWMA smoothing, stability after K consistent runs, drift, refresh, and
 * loops run again and again through the scheduler with the cache deciding
 * whether to probe. `test_probecache NAME` runs one test.
 */
#include <math.h>

#include "sched/hetprobe.h"
#include "sim.h"

static hcrt__probecache_t *cache(int stable, int refresh)
{
    hcrt__probecache_params_t cp;
    hcrt__hetprobe_params_t hp;
    hcrt__probecache_params_default(&cp);
    hcrt__hetprobe_params_default(&hp);
    cp.stable_runs = stable;
    cp.refresh_runs = refresh;
    hcrt__probecache_t *pc = NULL;
    CHECKF(hcrt__probecache_create(&cp, &hp, &pc) == HCRT_OK, "create");
    return pc;
}

static void meas2(hcrt__hetprobe_node_meas_t *m, double s0, double s1,
                  double per)
{
    memset(m, 0, 2 * sizeof(*m));
    m[0].speed = s0;
    m[1].speed = s1;
    m[0].iters = m[1].iters = 1000;
    m[1].faults = per > 0 ? 10 : 0;
    m[1].period_us = per;
    m[0].cmpki = m[1].cmpki = -1;
}

static void test_ewma(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    hcrt__hetprobe_node_meas_t m[2];
    meas2(m, 2e6, 1e6, 500.0);
    REQUIRE(hcrt__probecache_update(pc, 42, 2, m, 1) == HCRT_OK, "update");
    meas2(m, 2.4e6, 1e6, 250.0);
    REQUIRE(hcrt__probecache_update(pc, 42, 2, m, 1) == HCRT_OK, "update");
    const double *sp = hcrt__probecache_speeds(pc, 42);
    REQUIRE(sp != NULL, "no entry");
    CHECKF(fabs(sp[0] - 2.2e6) < 1e-3 && fabs(sp[1] - 1e6) < 1e-3,
          "speeds %.0f %.0f", sp[0], sp[1]);
    hcrt__probecache_info_t info;
    REQUIRE(hcrt__probecache_info(pc, 42, &info) == HCRT_OK, "info");
    /* rates 1/500 and 1/250 average to 3/1000 per us */
    CHECKF(fabs(info.period_us - 1000.0 / 3) < 1e-6 && info.runs == 2 &&
              info.probes == 2,
          "period %.3f runs %llu", info.period_us,
          (unsigned long long)info.runs);
    /* A run without faults pulls the rate towards 0, never to infinity. */
    meas2(m, 2.2e6, 1e6, 0);
    hcrt__probecache_update(pc, 42, 2, m, 1);
    hcrt__probecache_info(pc, 42, &info);
    CHECKF(fabs(info.period_us - 2000.0 / 3) < 1e-6, "period %.3f",
          info.period_us);
    CHECKF(hcrt__probecache_info(pc, 43, &info) == HCRT_ERR_NOT_FOUND,
          "unknown loop found");
    hcrt__probecache_destroy(pc);
}

static void test_stable(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    hcrt__hetprobe_node_meas_t m[2];
    int thr[2] = {4, 4};
    const hcrt__hetprobe_decision_t *reuse;
    const double *prior;
    REQUIRE(hcrt__probecache_lookup(pc, 7, 2, thr, &reuse, &prior) == HCRT_OK,
            "lookup");
    CHECKF(reuse == NULL && prior == NULL, "advice for an unknown loop");
    for (int run = 1; run <= 3; run++) {
        meas2(m, 2e6 * (1 + 0.05 * run), 1e6, 400.0);
        hcrt__probecache_update(pc, 7, 2, m, 1);
        hcrt__probecache_lookup(pc, 7, 2, thr, &reuse, &prior);
        CHECKF(prior != NULL && fabs(prior[1] - 1e6 / 2.1e6) < 0.1,
              "run %d: prior", run);
        CHECKF((reuse != NULL) == (run == 3), "run %d: reuse %p", run,
              (const void *)reuse);
    }
    REQUIRE(reuse != NULL, "not stable after 3 runs");
    CHECKF(reuse->kind == HCRT_HP_CROSS && reuse->why == HCRT_HP_WHY_CACHED &&
              reuse->csr[0] == 1.0 && reuse->csr[1] > 0.4 &&
              reuse->csr[1] < 0.5,
          "cached: kind %d why %d CSR %.3f", reuse->kind, reuse->why,
          reuse->csr[1]);
    /* the decision is made once per state of the averages: a run in the
     * band moves the CSR the next lookup hands out */
    double csr1 = reuse->csr[1];
    meas2(m, 2.15e6, 1.2e6, 400.0);
    hcrt__probecache_update(pc, 7, 2, m, 1);
    hcrt__probecache_lookup(pc, 7, 2, thr, &reuse, &prior);
    REQUIRE(reuse != NULL, "not stable after a run in the band");
    CHECKF(reuse->csr[1] > csr1 + 0.02, "CSR %.3f after a faster run (was %.3f)",
          reuse->csr[1], csr1);
    /* stable_runs 0: never stops probing */
    hcrt__probecache_t *never = cache(0, 0);
    for (int run = 0; run < 10; run++)
        hcrt__probecache_update(never, 7, 2, m, 1);
    hcrt__probecache_lookup(never, 7, 2, thr, &reuse, &prior);
    CHECKF(reuse == NULL, "stable_runs 0 stopped probing");
    hcrt__probecache_destroy(never);
    hcrt__probecache_destroy(pc);
}

static void test_drift(void)
{
    hcrt__probecache_t *pc = cache(2, 0);
    hcrt__hetprobe_node_meas_t m[2];
    int thr[2] = {2, 2};
    const hcrt__hetprobe_decision_t *reuse;
    hcrt__probecache_info_t info;
    for (int run = 0; run < 2; run++) {
        meas2(m, 1e6, 1e6, 300.0);
        hcrt__probecache_update(pc, 9, 2, m, 1);
    }
    hcrt__probecache_lookup(pc, 9, 2, thr, &reuse, NULL);
    REQUIRE(reuse != NULL, "not stable");
    /* An unprobed run (the cached decision) measures speeds only: inside
     * the band it stays stable, outside it drifts. */
    meas2(m, 1.2e6, 0.9e6, 0);
    hcrt__probecache_update(pc, 9, 2, m, 0);
    hcrt__probecache_lookup(pc, 9, 2, thr, &reuse, NULL);
    CHECKF(reuse != NULL, "20%% change left the band");
    meas2(m, 1.1e6, 0.4e6, 0);
    hcrt__probecache_update(pc, 9, 2, m, 0);
    hcrt__probecache_lookup(pc, 9, 2, thr, &reuse, NULL);
    hcrt__probecache_info(pc, 9, &info);
    CHECKF(reuse == NULL && info.drifts == 1 && !info.stable,
          "speed halved: reuse %p drifts %llu", (const void *)reuse,
          (unsigned long long)info.drifts);
    /* Faults crossing the threshold are a drift even at equal speeds. */
    for (int run = 0; run < 3; run++) {
        meas2(m, 1.1e6, 0.4e6, 300.0);
        hcrt__probecache_update(pc, 9, 2, m, 1);
    }
    hcrt__probecache_lookup(pc, 9, 2, thr, &reuse, NULL);
    REQUIRE(reuse != NULL, "not stable again");
    meas2(m, 1.1e6, 0.4e6, 5.0);
    hcrt__probecache_update(pc, 9, 2, m, 1);
    hcrt__probecache_info(pc, 9, &info);
    CHECKF(info.drifts == 2 && !info.stable, "fault drift: %llu",
          (unsigned long long)info.drifts);
    hcrt__probecache_destroy(pc);
}

static void test_refresh(void)
{
    hcrt__probecache_t *pc = cache(1, 2);
    hcrt__hetprobe_node_meas_t m[2];
    int thr[2] = {1, 1};
    const hcrt__hetprobe_decision_t *reuse;
    meas2(m, 1e6, 1e6, 0);
    hcrt__probecache_update(pc, 1, 2, m, 1);
    int reused = 0;
    for (int run = 0; run < 6; run++) {
        hcrt__probecache_lookup(pc, 1, 2, thr, &reuse, NULL);
        reused += reuse != NULL;
        hcrt__probecache_update(pc, 1, 2, m, reuse == NULL);
    }
    CHECKF(reused == 4, "with refresh 2, %d of 6 runs reused", reused);
    hcrt__probecache_destroy(pc);
}

static void test_many(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    hcrt__hetprobe_node_meas_t m[2];
    for (uint64_t id = 0; id < 20000; id++) {
        meas2(m, 1.0 + (double)id, 1.0, 0);
        REQUIRE(hcrt__probecache_update(pc, id * 0x9e3779b97f4a7c15ull, 2, m,
                                        1) == HCRT_OK,
                "update %llu", (unsigned long long)id);
    }
    for (uint64_t id = 0; id < 20000; id++) {
        const double *sp =
            hcrt__probecache_speeds(pc, id * 0x9e3779b97f4a7c15ull);
        REQUIRE(sp != NULL && sp[0] == 1.0 + (double)id, "loop %llu lost",
                (unsigned long long)id);
    }
    /* The same loop on another node count starts over. */
    hcrt__hetprobe_node_meas_t m3[3] = {
        {.speed = 1, .iters = 1, .cmpki = -1},
        {.speed = 2, .iters = 1, .cmpki = -1},
        {.speed = 3, .iters = 1, .cmpki = -1}};
    hcrt__probecache_update(pc, 0, 3, m3, 1);
    hcrt__probecache_info_t info;
    hcrt__probecache_info(pc, 0, &info);
    CHECKF(info.runs == 1 && hcrt__probecache_speeds(pc, 0)[2] == 3.0,
          "node count change kept %llu runs", (unsigned long long)info.runs);
    hcrt__probecache_destroy(pc);
}

/* One run of a loop through the scheduler with the cache's advice, then the
 * observation back into the cache. Returns whether it was probed. */
static int run_loop(hcrt__probecache_t *pc, sim_t *s, uint64_t loop,
                    hcrt__hetprobe_kind_t *kind)
{
    const hcrt__hetprobe_decision_t *reuse;
    const double *prior;
    hcrt__hetprobe_params_t p;
    hcrt__hetprobe_params_default(&p);
    hcrt__probecache_lookup(pc, loop, s->nnodes, s->threads, &reuse, &prior);
    CHECKF(hcrt__hetprobe_create(&p, s->trip, s->nnodes, s->threads, prior,
                                reuse, &s->hp) == HCRT_OK,
          "create");
    CHECKF(sim_run(s) == 0, "sim failed");
    int probed = 0;
    const hcrt__hetprobe_node_meas_t *m =
        hcrt__hetprobe_observation(s->hp, &probed);
    CHECKF(m != NULL, "no observation");
    hcrt__probecache_update(pc, loop, s->nnodes, m, probed);
    *kind = hcrt__hetprobe_decision(s->hp, 0)->kind;
    int had_probe = 0;
    for (size_t c = 0; c < s->nlog; c++)
        had_probe |= s->log[c].probe;
    CHECKF(had_probe == probed, "probe chunks %d, probed %d", had_probe, probed);
    return probed;
}

static void test_loop(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    int thr[2] = {4, 2};
    char pattern[16] = "";
    hcrt__hetprobe_kind_t kinds[12];
    for (int run = 0; run < 12; run++) {
        sim_t s;
        sim_init(&s, 2, thr, 20000, (uint64_t)run + 1);
        double slow = run < 7 ? 1e6 : 0.2e6; /* node 1 slows down at run 7 */
        s.speed[0] = s.speed2[0] = 1e6;
        s.speed[1] = s.speed2[1] = slow;
        s.faults[1] = 5;
        s.period_us[1] = 1000.0;
        pattern[run] = run_loop(pc, &s, 77, &kinds[run]) ? 'P' : 'c';
        sim_fini(&s);
    }
    fprintf(stderr, "  runs: %s (P probed, c cached)\n", pattern);
    /* 3 probes to become stable; reused until the cached run 7 measures
     * the slow-down; 3 probes again, then reused. */
    CHECKF(strcmp(pattern, "PPPcccccPPPc") == 0, "pattern %s", pattern);
    for (int run = 0; run < 12; run++)
        CHECKF(kinds[run] == HCRT_HP_CROSS, "run %d: kind %d", run, kinds[run]);
    hcrt__probecache_destroy(pc);
}

/* A stable single-node loop is reused: only its node runs anything. */
static void test_single_reuse(void)
{
    hcrt__probecache_t *pc = cache(2, 0);
    int thr[3] = {2, 2, 2};
    for (int run = 0; run < 4; run++) {
        sim_t s;
        sim_init(&s, 3, thr, 30000, (uint64_t)run + 100);
        s.speed[2] = s.speed2[2] = 3e6;
        s.faults[0] = s.faults[1] = s.faults[2] = 1000;
        s.period_us[0] = s.period_us[1] = s.period_us[2] = 10.0;
        hcrt__hetprobe_kind_t kind;
        int probed = run_loop(pc, &s, 5, &kind);
        CHECKF(probed == (run < 2), "run %d probed %d", run, probed);
        const hcrt__hetprobe_decision_t *d = hcrt__hetprobe_decision(s.hp, 0);
        CHECKF(kind == HCRT_HP_SINGLE && d->node == 2, "run %d: kind %d node %d",
              run, kind, d->node);
        if (!probed)
            CHECKF(s.iters[0] == 0 && s.iters[1] == 0 && s.iters[2] == 30000,
                  "run %d: iterations %llu %llu %llu", run,
                  (unsigned long long)s.iters[0],
                  (unsigned long long)s.iters[1],
                  (unsigned long long)s.iters[2]);
        sim_fini(&s);
    }
    hcrt__probecache_destroy(pc);
}

/* A node that probed nothing (its cached speed said one iteration would
 * outlast the others' whole probe) measured no faults: its fault rate
 * stands, so the cached decision stays single node instead of drifting
 * to "faults rare" with a near-zero share. */
static void test_unprobed(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    hcrt__hetprobe_node_meas_t m[2];
    int thr[2] = {1, 1};
    meas2(m, 1e5, 300, 60.0); /* node 1 crawls and faults every 60 us */
    REQUIRE(hcrt__probecache_update(pc, 9, 2, m, 1) == HCRT_OK, "update");
    for (int run = 0; run < 4; run++) {
        meas2(m, 1e5, 0, 0);
        m[1].iters = 0; /* probed nothing */
        hcrt__probecache_update(pc, 9, 2, m, 1);
    }
    hcrt__probecache_info_t info;
    hcrt__probecache_info(pc, 9, &info);
    CHECKF(fabs(info.period_us - 60.0) < 1e-9 && info.drifts == 0 &&
              info.stable,
          "period %.3f drifts %llu stable %d", info.period_us,
          (unsigned long long)info.drifts, info.stable);
    const hcrt__hetprobe_decision_t *d;
    const double *prior;
    REQUIRE(hcrt__probecache_lookup(pc, 9, 2, thr, &d, &prior) == HCRT_OK &&
                d != NULL,
            "no cached decision");
    CHECKF(d->kind == HCRT_HP_SINGLE && d->node == 0, "kind %d node %d",
          d->kind, d->node);
    hcrt__probecache_destroy(pc);
}

/* A node crawling while it faults sits out the probe with a doubling
 * rest: measured at runs 1, 3, 7, 15, ...; as soon as a probe finds it
 * contributing it is probed every run again. Slow without faults, or the
 * fastest node, never rests. */
static void test_rest(void)
{
    hcrt__probecache_t *pc = cache(1000, 0); /* never stable: probe each run */
    hcrt__hetprobe_node_meas_t m[2];
    char got[40] = {0}, want[] = "P.P...P.......P.....";
    for (int run = 0; run < 20; run++) {
        CHECKF(!hcrt__probecache_rests(pc, 3, 2, 0), "node 0 rests");
        int rests = hcrt__probecache_rests(pc, 3, 2, 1);
        got[run] = rests ? '.' : 'P';
        meas2(m, 1e6, 300, 50.0);
        if (rests)
            m[1].iters = 0, m[1].speed = 0, m[1].faults = 0;
        hcrt__probecache_update(pc, 3, 2, m, 1);
    }
    CHECKF(strcmp(got, want) == 0, "probes %s, want %s", got, want);
    int more = 0;
    while (hcrt__probecache_rests(pc, 3, 2, 1) && more < 100) {
        meas2(m, 1e6, 0, 50.0);
        m[1].iters = 0, m[1].faults = 0;
        hcrt__probecache_update(pc, 3, 2, m, 1);
        more++;
    }
    CHECKF(more == 10, "probed again after %d more runs, want 10 (run 31)",
          more);
    meas2(m, 1e6, 9e5, 50.0); /* it contributes now */
    hcrt__probecache_update(pc, 3, 2, m, 1);
    CHECKF(!hcrt__probecache_rests(pc, 3, 2, 1), "rests after contributing");
    /* 10 % of the fastest with faults: it crawls and rests, unless its
     * faults took little of its time (slow for another reason) */
    meas2(m, 1e6, 1e5, 50.0);
    m[1].fault_share = 0.2;
    hcrt__probecache_update(pc, 3, 2, m, 1);
    CHECKF(!hcrt__probecache_rests(pc, 3, 2, 1),
          "10%%, 20%% of its time in faults: rests");
    m[1].fault_share = 0.9;
    hcrt__probecache_update(pc, 3, 2, m, 1);
    CHECKF(hcrt__probecache_rests(pc, 3, 2, 1),
          "10%%, 90%% of its time in faults: does not rest");
    for (int run = 0; run < 3; run++) { /* slow, no faults: not the DSM */
        meas2(m, 1e6, 300, 0);
        hcrt__probecache_update(pc, 4, 2, m, 1);
        CHECKF(!hcrt__probecache_rests(pc, 4, 2, 1), "rests without faults");
    }
    CHECKF(!hcrt__probecache_rests(pc, 3, 3, 1) &&
              !hcrt__probecache_rests(pc, 99, 2, 1),
          "rests with another node count or an unknown loop");
    hcrt__probecache_destroy(pc);
}

/* The last run's work (HetProbe-I's window count): unknown until set, kept
 * per loop and node count, bad values refused. */
static void test_work(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    CHECKF(hcrt__probecache_work(pc, 5, 2) == 0.0, "unknown loop has work");
    REQUIRE(hcrt__probecache_set_work(pc, 5, 2, 1234.5) == HCRT_OK, "set");
    CHECKF(hcrt__probecache_work(pc, 5, 2) == 1234.5, "work %.1f",
          hcrt__probecache_work(pc, 5, 2));
    CHECKF(hcrt__probecache_work(pc, 5, 3) == 0.0, "other node count");
    CHECKF(hcrt__probecache_set_work(pc, 5, 2, -1.0) == HCRT_ERR_INVALID &&
              hcrt__probecache_set_work(pc, 5, 2, INFINITY) ==
                  HCRT_ERR_INVALID &&
              hcrt__probecache_set_work(pc, 5, 2, NAN) == HCRT_ERR_INVALID,
          "bad work accepted");
    hcrt__hetprobe_node_meas_t m[2];
    meas2(m, 1e6, 1e6, 0);
    hcrt__probecache_update(pc, 5, 2, m, 1); /* an update keeps it */
    CHECKF(hcrt__probecache_work(pc, 5, 2) == 1234.5, "update lost the work");
    hcrt__probecache_destroy(pc);
}

/* Whether HetProbe-I found the loop irregular: unknown (-1) until set,
 * per loop and node count, an update keeps it, bad values refused. */
static void test_irregular(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    CHECKF(hcrt__probecache_irregular(pc, 7, 2) == -1, "unknown loop known");
    REQUIRE(hcrt__probecache_set_irregular(pc, 7, 2, 1) == HCRT_OK, "set");
    CHECKF(hcrt__probecache_irregular(pc, 7, 2) == 1, "not irregular");
    CHECKF(hcrt__probecache_irregular(pc, 7, 3) == -1, "other node count");
    CHECKF(hcrt__probecache_irregular(pc, 8, 2) == -1, "other loop");
    hcrt__hetprobe_node_meas_t m[2];
    meas2(m, 1e6, 1e6, 0);
    hcrt__probecache_update(pc, 7, 2, m, 1);
    CHECKF(hcrt__probecache_irregular(pc, 7, 2) == 1, "update lost it");
    REQUIRE(hcrt__probecache_set_irregular(pc, 7, 2, 0) == HCRT_OK, "set 0");
    CHECKF(hcrt__probecache_irregular(pc, 7, 2) == 0, "still irregular");
    CHECKF(hcrt__probecache_set_irregular(pc, 7, 2, 2) == HCRT_ERR_INVALID &&
              hcrt__probecache_set_irregular(pc, 7, 2, -1) ==
                  HCRT_ERR_INVALID &&
              hcrt__probecache_set_irregular(NULL, 7, 2, 1) ==
                  HCRT_ERR_INVALID,
          "bad value accepted");
    CHECKF(hcrt__probecache_irregular(pc, 7, 2) == 0, "bad value changed it");
    hcrt__probecache_destroy(pc);
}

/* The probe basis: the probe alone until a run phase is noted, then the
 * run phase at up to HCRT_HP_RUN_WEIGHT times the probe's iterations; a
 * node that ran nothing, another node count, bad values change nothing. */
static void test_basis(void)
{
    hcrt__probecache_t *pc = cache(3, 0);
    double it = 100, s = 0.01; /* probe: 1e4 it/s */
    hcrt__probecache_basis(pc, 6, 2, &it, &s);
    CHECKF(it == 100 && s == 0.01, "basis without a run: %g it %g s", it, s);
    /* run phase: 10 000 iterations at 2e4 it/s; counted as 400 */
    REQUIRE(hcrt__probecache_set_run(pc, 6, 2, 1e4, 0.5) == HCRT_OK, "set");
    hcrt__probecache_basis(pc, 6, 2, &it, &s);
    CHECKF(fabs(it - 500) < 1e-9 && fabs(s - 0.03) < 1e-12,
          "basis %g it %g s, want 500 it 0.03 s", it, s);
    CHECKF(fabs(it / s - 500 / 0.03) < 1e-6, "speed %g", it / s);
    /* a run phase shorter than the cap counts whole */
    REQUIRE(hcrt__probecache_set_run(pc, 6, 2, 200, 0.01) == HCRT_OK, "set");
    it = 100, s = 0.01;
    hcrt__probecache_basis(pc, 6, 2, &it, &s);
    CHECKF(fabs(it - 300) < 1e-9 && fabs(s - 0.02) < 1e-12,
          "short run: %g it %g s", it, s);
    /* a run phase 2.5x faster than the probe measured other work */
    REQUIRE(hcrt__probecache_set_run(pc, 6, 2, 2500, 0.1) == HCRT_OK, "set");
    it = 100, s = 0.01;
    hcrt__probecache_basis(pc, 6, 2, &it, &s);
    CHECKF(it == 100 && s == 0.01, "run outside the band used: %g %g", it, s);
    REQUIRE(hcrt__probecache_set_run(pc, 6, 2, 200, 0.01) == HCRT_OK, "set");
    it = 100, s = 0.01;
    hcrt__probecache_basis(pc, 6, 3, &it, &s);
    CHECKF(it == 100 && s == 0.01, "other node count used the run");
    it = 0, s = 0;
    hcrt__probecache_basis(pc, 6, 2, &it, &s);
    CHECKF(it == 0 && s == 0, "an empty probe got a basis");
    /* ran nothing this call: the probe alone again */
    REQUIRE(hcrt__probecache_set_run(pc, 6, 2, 0, 0) == HCRT_OK, "set");
    it = 100, s = 0.01;
    hcrt__probecache_basis(pc, 6, 2, &it, &s);
    CHECKF(it == 100 && s == 0.01, "a node that ran nothing kept its run");
    CHECKF(hcrt__probecache_set_run(pc, 6, 2, -1, 1) == HCRT_ERR_INVALID &&
              hcrt__probecache_set_run(pc, 6, 2, 1, NAN) ==
                  HCRT_ERR_INVALID &&
              hcrt__probecache_set_run(pc, 6, 2, INFINITY, 1) ==
                  HCRT_ERR_INVALID &&
              hcrt__probecache_set_run(NULL, 6, 2, 1, 1) == HCRT_ERR_INVALID,
          "bad run accepted");
    /* the shared averages do not see it */
    hcrt__hetprobe_node_meas_t m[2];
    REQUIRE(hcrt__probecache_set_run(pc, 7, 2, 1e4, 0.5) == HCRT_OK, "set");
    meas2(m, 1e6, 5e5, 0);
    hcrt__probecache_update(pc, 7, 2, m, 1);
    const double *sp = hcrt__probecache_speeds(pc, 7);
    CHECKF(sp && sp[0] == 1e6 && sp[1] == 5e5, "run leaked into the speeds");
    hcrt__probecache_destroy(pc);
}

int main(int argc, char **argv)
{
    static const check_case_t tests[] = {{"ewma", test_ewma},
                                        {"stable", test_stable},
                                        {"drift", test_drift},
                                        {"refresh", test_refresh},
                                        {"many", test_many},
                                        {"loop", test_loop},
                                        {"single_reuse", test_single_reuse},
                                        {"unprobed", test_unprobed},
                                        {"rest", test_rest},
                                        {"work", test_work},
                                        {"basis", test_basis},
                                        {"irregular", test_irregular},
                                        {NULL, NULL}};
    return check_run(argc, argv, tests);
}
