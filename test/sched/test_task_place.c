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
    hcrt_tp_site_t s = {.ns = HCRT_TP_MEAN_INIT};

    for (uint32_t i = 0; i < p.min_samples; i++) {
        CHECK(hcrt__tp_site_mode(&s, 50e3, &p) == HCRT_TP_EXPORT);
        hcrt__tp_site_time(&s, 1000);
    }
    CHECK(s.timed == p.min_samples);
}

/* Tiny tasks (a recursive tree's leaves) stay home; one in sample_every is
 * still timed, so the site is noticed if its tasks grow. */
static void test_tiny(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t s = {.ns = HCRT_TP_MEAN_INIT};
    int plain = 0, timed = 0, exported = 0;

    for (uint32_t i = 0; i < p.min_samples; i++)
        hcrt__tp_site_time(&s, 2000); /* 2 us against a 50 us steal */
    for (int i = 0; i < 64 * 10; i++) {
        hcrt_tp_mode_t m = hcrt__tp_site_mode(&s, 50e3, &p);
        plain += m == HCRT_TP_PLAIN;
        timed += m == HCRT_TP_TIMED;
        exported += m == HCRT_TP_EXPORT;
    }
    CHECKF(exported == 0, "%d tiny tasks exported\n", exported);
    CHECKF(timed == 10, "%d timed, want 10\n", timed);
    CHECK(plain == 630);
    /* the tasks grow: 1 ms each; sampled ones bring the mean up */
    for (int i = 0; i < 400; i++)
        hcrt__tp_site_time(&s, 1000000);
    CHECK(hcrt__tp_site_mode(&s, 50e3, &p) == HCRT_TP_EXPORT);
}

/* Tasks well above factor x the steal cost travel; just below, not. */
static void test_big(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_site_t a = {.ns = HCRT_TP_MEAN_INIT};
    hcrt_tp_site_t b = {.ns = HCRT_TP_MEAN_INIT};

    for (uint32_t i = 0; i < p.min_samples; i++) {
        hcrt__tp_site_time(&a, (uint64_t)(p.factor * 50e3));
        hcrt__tp_site_time(&b, (uint64_t)(p.factor * 50e3) - 1000);
    }
    CHECK(hcrt__tp_site_mode(&a, 50e3, &p) == HCRT_TP_EXPORT);
    CHECK(hcrt__tp_site_mode(&b, 50e3, &p) != HCRT_TP_EXPORT);
    /* a cheaper steal (measured) lets b's tasks travel */
    CHECK(hcrt__tp_site_mode(&b, 20e3, &p) == HCRT_TP_EXPORT);
}

/* The first call spreads; a call that paid keeps spreading. */
static void test_region_first(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};

    CHECK(hcrt__tp_region_spread(&r));
    CHECK(hcrt__tp_region_end(&r, 1, 1000000, 400000, &p) == 0);
    for (int i = 0; i < 10; i++) {
        CHECK(hcrt__tp_region_spread(&r));
        hcrt__tp_region_end(&r, 1, 1000000, 400000, &p);
    }
    CHECK(r.spread_calls == 11);
}

/* A spread call in which other nodes did (almost) nothing sends the region
 * home for `refresh` calls, doubling on each further miss, capped. */
static void test_region_miss(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};
    uint32_t want = p.refresh;

    CHECK(hcrt__tp_region_spread(&r));
    CHECK(hcrt__tp_region_end(&r, 1, 1000000, 0, &p) == 1);
    for (int miss = 0; miss < 9; miss++) {
        uint32_t home = 0;
        while (!hcrt__tp_region_spread(&r)) {
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

    hcrt__tp_region_spread(&r);
    hcrt__tp_region_end(&r, 1, 1000000, 0, &p);
    hcrt__tp_region_end(&r, 1, 1000000, 0, &p);
    CHECK(r.misses == 2);
    r.hold = 0;
    r.head_ns = 0;
    CHECK(hcrt__tp_region_end(&r, 1, 500000, 300000, &p) == 0);
    CHECK(r.misses == 0);
    CHECK(hcrt__tp_region_spread(&r));
}

/* Other nodes ran tasks, but the call was slower than on the head alone:
 * it did not pay. */
static void test_region_slower(void)
{
    hcrt_tp_params_t p = params();
    hcrt_tp_region_t r = {0};

    hcrt__tp_region_end(&r, 0, 1000000, 0, &p); /* head alone: 1 ms */
    CHECK(hcrt__tp_region_end(&r, 1, 1200000, 600000, &p) == 1);
    CHECK(!hcrt__tp_region_spread(&r));
    r.hold = 0;
    CHECK(hcrt__tp_region_end(&r, 1, 1040000, 600000, &p) == 0);
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {
        {"unknown", test_unknown},
        {"tiny", test_tiny},
        {"big", test_big},
        {"region_first", test_region_first},
        {"region_miss", test_region_miss},
        {"region_pays", test_region_pays},
        {"region_slower", test_region_slower},
        {NULL, NULL}};
    return check_run(argc, argv, cases);
}
