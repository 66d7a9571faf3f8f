/*
 * test_task_place.c - unit tests of the task-sharing decisions
 * (runtime/sched/task_place.c): which tasks of a site may leave their node,
 * and when a TASKS region runs on every node or on the head alone.
 */
#include "sched/task_place.h"
#include "check.h"

static hcrt_tp_params_t params(void)
{
    hcrt_tp_params_t p;

    hcrt__tp_params_default(&p);
    return p;
}

/* A site whose tasks were never timed lets its first tasks travel. */
static void test_unknown(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t s;

    hcrt__tp_site_init(&s);

    for (uint32_t i = 0; i < p.min_samples; i++) {
        CHECK(hcrt__tp_site_mode(&s, 1, 50e3, &p) == HCRT_TP_EXPORT);
        hcrt__tp_site_time(&s, 1, 1000);
    }
    CHECK(s.timed == p.min_samples);
}

/* Tiny tasks (a recursive tree's leaves) stay home; one in sample_every is
 * still timed, so the site is noticed if its tasks grow. */
static void test_tiny(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t s;

    hcrt__tp_site_init(&s);
    int plain = 0, timed = 0, exported = 0;

    for (uint32_t i = 0; i < p.min_samples; i++)
        hcrt__tp_site_time(&s, 1, 2000); /* 2 us against a 50 us steal */
    for (int i = 0; i < 64 * 10; i++) {
        hcrt_tp_mode_t m = hcrt__tp_site_mode(&s, 1, 50e3, &p);
        plain += m == HCRT_TP_PLAIN;
        timed += m == HCRT_TP_TIMED;
        exported += m == HCRT_TP_EXPORT;
    }
    CHECKF(exported == 0, "%d tiny tasks exported\n", exported);
    CHECKF(timed == 10, "%d timed, want 10\n", timed);
    CHECK(plain == 630);
    /* the tasks grow: 1 ms each; sampled ones bring the mean up */
    for (int i = 0; i < 400; i++)
        hcrt__tp_site_time(&s, 1, 1000000);
    CHECK(hcrt__tp_site_mode(&s, 1, 50e3, &p) == HCRT_TP_EXPORT);
}

/* Tasks well above factor x the steal cost travel; just below, not. */
static void test_big(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t a, b;

    hcrt__tp_site_init(&a);
    hcrt__tp_site_init(&b);

    for (uint32_t i = 0; i < p.min_samples; i++) {
        hcrt__tp_site_time(&a, 1, (uint64_t)(p.factor * 50e3));
        hcrt__tp_site_time(&b, 1, (uint64_t)(p.factor * 50e3) - 1000);
    }
    CHECK(hcrt__tp_site_mode(&a, 1, 50e3, &p) == HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&b, 1, 50e3, &p) != HCRT_TP_EXPORT);
    /* a cheaper steal (measured) lets b's tasks travel */
    CHECK(hcrt__tp_site_mode(&b, 1, 20e3, &p) == HCRT_TP_EXPORT);
}

/* A recursive tree: one site, big tasks near the root, tiny ones at the
 * leaves. The big ones travel, the tiny ones stay home; a depth not timed
 * yet is judged by the nearest deeper one and timed meanwhile, and one
 * below every known depth stays home until it is known. */
static void test_depths(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t s;

    hcrt__tp_site_init(&s);
    for (uint32_t i = 0; i < p.depth_samples; i++) {
        hcrt__tp_site_time(&s, 1, 40000000); /* 40 ms */
        hcrt__tp_site_time(&s, 2, 15000000);
        hcrt__tp_site_time(&s, 8, 400000); /* 400 us: 2x the threshold */
        hcrt__tp_site_time(&s, 12, 2000);  /* 2 us */
    }
    CHECK(hcrt__tp_site_mode(&s, 1, 50e3, &p) == HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&s, 2, 50e3, &p) == HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&s, 8, 50e3, &p) == HCRT_TP_EXPORT);
    /* depth 5: not timed, at least as long as depth 8's tasks */
    CHECK(hcrt__tp_site_mode(&s, 5, 50e3, &p) == HCRT_TP_EXPORT);
    CHECKF(hcrt__tp_site_estimate(&s, 5, &p) == 400000.0, "%g\n",
           hcrt__tp_site_estimate(&s, 5, &p));
    /* depth 10: not timed, judged by depth 12 (tiny): home, timed */
    CHECK(hcrt__tp_site_mode(&s, 10, 50e3, &p) == HCRT_TP_TIMED);
    /* depth 12: tiny and known: home, one in sample_every timed */
    int exported = 0, timed = 0;
    for (uint32_t i = 0; i < 4 * p.sample_every; i++) {
        hcrt_tp_mode_t m = hcrt__tp_site_mode(&s, 12, 50e3, &p);
        exported += m == HCRT_TP_EXPORT;
        timed += m == HCRT_TP_TIMED;
    }
    CHECK(exported == 0 && timed == 4);
    /* deeper than anything timed (the last slot holds every deeper
     * depth): home and timed until known */
    CHECK(hcrt__tp_site_mode(&s, 40, 50e3, &p) == HCRT_TP_TIMED);
    CHECK(hcrt__tp_site_mode(&s, HCRT_TP_DEPTHS - 1, 50e3, &p) ==
          HCRT_TP_TIMED);
    /* a dearer steal keeps depth 8 home */
    CHECK(hcrt__tp_site_mode(&s, 8, 200e3, &p) != HCRT_TP_EXPORT);
    /* depth 0 (a task of the implicit task, as a thief may number it)
     * counts as depth 1 */
    CHECK(hcrt__tp_site_mode(&s, 0, 50e3, &p) == HCRT_TP_EXPORT);
}

/* A thief has timed only the tiny leaves of a tree when the task it took
 * creates its children: the depths the owner found worth a steal travel
 * until the thief timed them itself. */
static void test_hint(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t owner, thief;

    hcrt__tp_site_init(&owner);
    hcrt__tp_site_init(&thief);
    CHECK(hcrt__tp_site_worth_depth(&owner, 50e3, &p) == 0); /* untimed */
    for (uint32_t i = 0; i < 2 * p.depth_samples; i++) {
        hcrt__tp_site_time(&owner, 2, 15000000);
        hcrt__tp_site_time(&owner, 6, 400000); /* 2x the threshold */
        hcrt__tp_site_time(&owner, 7, 100000); /* below it */
        hcrt__tp_site_time(&owner, 14, 2000);
        hcrt__tp_site_time(&thief, 14, 2000);
    }
    CHECKF(hcrt__tp_site_worth_depth(&owner, 50e3, &p) == 6, "%u\n",
           hcrt__tp_site_worth_depth(&owner, 50e3, &p));
    CHECK(hcrt__tp_site_worth_depth(&owner, 1e9, &p) == 0);
    /* without the hint the thief keeps depth 4 home (judged by depth 14) */
    CHECK(hcrt__tp_site_mode(&thief, 4, 50e3, &p) == HCRT_TP_TIMED);
    hcrt__tp_site_hint(&thief, 0); /* no hint */
    CHECK(hcrt__tp_site_mode(&thief, 4, 50e3, &p) == HCRT_TP_TIMED);
    hcrt__tp_site_hint(&thief, 6);
    hcrt__tp_site_hint(&thief, 3); /* a smaller one does not shrink it */
    CHECK(thief.hint == 6);
    CHECK(hcrt__tp_site_mode(&thief, 4, 50e3, &p) == HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&thief, 6, 50e3, &p) == HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&thief, 7, 50e3, &p) == HCRT_TP_TIMED);
    /* once the thief timed depth 4 itself, its own times decide */
    for (uint32_t i = 0; i < p.depth_samples; i++)
        hcrt__tp_site_time(&thief, 4, 3000);
    CHECK(hcrt__tp_site_mode(&thief, 4, 50e3, &p) != HCRT_TP_EXPORT);
}

/* Deep tasks known small: the creator's shortcut starts at the shallowest
 * depth from which every deeper one is timed and below the threshold. */
static void test_plain_from(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t s;

    hcrt__tp_site_init(&s);
    CHECK(hcrt__tp_site_plain_from(&s, 50e3, &p) == 0); /* nothing timed */
    for (uint32_t i = 0; i < p.depth_samples; i++) {
        hcrt__tp_site_time(&s, 2, 15000000);
        hcrt__tp_site_time(&s, 5, 100000); /* below 4 x 50 us */
        for (uint32_t d = 7; d < HCRT_TP_DEPTHS; d++)
            hcrt__tp_site_time(&s, d, 2000);
    }
    /* depth 6 unknown: the shortcut starts below it */
    CHECKF(hcrt__tp_site_plain_from(&s, 50e3, &p) == 7, "%u\n",
           hcrt__tp_site_plain_from(&s, 50e3, &p));
    for (uint32_t i = 0; i < p.depth_samples; i++)
        hcrt__tp_site_time(&s, 6, 3000);
    CHECK(hcrt__tp_site_plain_from(&s, 50e3, &p) == 5);
    /* every depth from the shortcut on is plain or a sample, never sent */
    for (uint32_t d = 5; d < 40; d++)
        CHECK(hcrt__tp_site_mode(&s, d, 50e3, &p) != HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&s, 2, 50e3, &p) == HCRT_TP_EXPORT);
    /* a cheaper steal makes depth 5 worth one: the shortcut moves deeper */
    CHECK(hcrt__tp_site_plain_from(&s, 20e3, &p) == 6);
    /* the deepest slot unknown: no shortcut */
    hcrt_tp_site_t t;
    hcrt__tp_site_init(&t);
    for (uint32_t i = 0; i < 2 * p.min_samples; i++)
        hcrt__tp_site_time(&t, 3, 2000);
    CHECK(hcrt__tp_site_plain_from(&t, 50e3, &p) == 0);
}

/* The first call spreads; a call that paid keeps spreading. */
static void test_region_first(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};

    CHECK(hcrt__tp_region_spread(&r, &p));
    CHECK(hcrt__tp_region_end(&r, 1, 1000000, 400000, &p) == 0);
    for (int i = 0; i < 10; i++) {
        CHECK(hcrt__tp_region_spread(&r, &p));
        hcrt__tp_region_end(&r, 1, 1000000, 400000, &p);
    }
    CHECK(r.spread_calls == 11);
}

/* head_first (every rank on the head's host): the first call and
 * `refresh` more run on the head alone, then one spreads and is judged
 * against them: one that pays keeps spreading, one slower goes home. */
static void test_region_head_first(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0}, s = {0};
    uint32_t home = 0;

    p.head_first = 1;
    while (!hcrt__tp_region_spread(&r, &p)) {
        home++;
        hcrt__tp_region_end(&r, 0, 1000000, 0, &p);
        if (home > 10 * p.refresh)
            break;
    }
    CHECKF(home == p.refresh + 1, "%u calls home, want %u\n", home,
           p.refresh + 1);
    CHECK(r.spread_calls == 0);
    s = r;
    CHECK(hcrt__tp_region_end(&r, 1, 400000, 300000, &p) == 0);
    CHECK(hcrt__tp_region_spread(&r, &p));
    CHECK(hcrt__tp_region_end(&s, 1, 1200000, 600000, &p) == 1);
    CHECK(!hcrt__tp_region_spread(&s, &p));
}

/* A spread call in which other nodes did (almost) nothing sends the region
 * home for `refresh` calls, doubling on each further miss, capped. */
static void test_region_miss(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};
    uint32_t want = p.refresh;

    CHECK(hcrt__tp_region_spread(&r, &p));
    CHECK(hcrt__tp_region_end(&r, 1, 1000000, 0, &p) == 1);
    for (int miss = 0; miss < 9; miss++) {
        uint32_t home = 0;
        while (!hcrt__tp_region_spread(&r, &p)) {
            home++;
            hcrt__tp_region_end(&r, 0, 900000, 0, &p);
        }
        CHECKF(home == want, "miss %d: %u calls home, want %u\n", miss, home,
               want);
        CHECK(hcrt__tp_region_end(&r, 1, 1000000, 0, &p) == 1);
        if (want < p.refresh << 6)
            want *= 2;
    }
}

/* After misses, a spread call that pays resets the hold. */
static void test_region_pays(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};

    hcrt__tp_region_spread(&r, &p);
    hcrt__tp_region_end(&r, 1, 1000000, 0, &p);
    hcrt__tp_region_end(&r, 1, 1000000, 0, &p);
    CHECK(r.misses == 2);
    r.hold = 0;
    r.head_ns = 0;
    CHECK(hcrt__tp_region_end(&r, 1, 500000, 300000, &p) == 0);
    CHECK(r.misses == 0);
    CHECK(hcrt__tp_region_spread(&r, &p));
}

/* Other nodes ran tasks, but the call was slower than on the head alone:
 * it did not pay. */
static void test_region_slower(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};

    hcrt__tp_region_end(&r, 0, 1000000, 0, &p); /* head alone: 1 ms */
    CHECK(hcrt__tp_region_end(&r, 1, 1200000, 600000, &p) == 1);
    CHECK(!hcrt__tp_region_spread(&r, &p));
    r.hold = 0;
    CHECK(hcrt__tp_region_end(&r, 1, 1040000, 600000, &p) == 0);
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {
        {"unknown", test_unknown},
        {"tiny", test_tiny},
        {"big", test_big},
        {"depths", test_depths},
        {"hint", test_hint},
        {"plain_from", test_plain_from},
        {"region_first", test_region_first},
        {"region_head_first", test_region_head_first},
        {"region_miss", test_region_miss},
        {"region_pays", test_region_pays},
        {"region_slower", test_region_slower},
        {NULL, NULL}};
    return check_run(argc, argv, cases);
}
