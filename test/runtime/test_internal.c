/*
 * test_internal.c - internal interfaces of the core, linked statically:
 * HCRT_LOG parsing, typed config getters, hcrt__log_raw from a signal
 * handler, the region registry and hcrt_strerror.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "libhcrt/core.h"
#include "rt_test.h"

static void test_log_levels(void)
{
    int saved[HCRT_MOD_COUNT];

    memcpy(saved, hcrt__log_levels, sizeof(saved));
    CHECK_EQ(hcrt__log_init("2,dsm:3,fault:0"), HCRT_OK);
    CHECK_EQ(hcrt__log_levels[HCRT_MOD_CORE], 2);
    CHECK_EQ(hcrt__log_levels[HCRT_MOD_DSM], 3);
    CHECK_EQ(hcrt__log_levels[HCRT_MOD_FAULT], 0);
    CHECK_EQ(hcrt__log_levels[HCRT_MOD_TARGET], 2);
    /* A bad spec changes nothing. */
    CHECK_EQ(hcrt__log_init("sched:1,bogus:2"), HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__log_levels[HCRT_MOD_SCHED], 2);
    CHECK_EQ(hcrt__log_init("4"), HCRT_ERR_INVALID);
    CHECK_EQ(hcrt__log_init("dsm:"), HCRT_ERR_INVALID);
    memcpy(hcrt__log_levels, saved, sizeof(saved));
}

static void test_config_getters(void)
{
    /* Defaults of the table (the test runs without HCRT_* settings). */
    CHECK_EQ(hcrt__config_bool("HCRT_PRINT_CONFIG"), 0);
    CHECK(strcmp(hcrt__config_string("HCRT_LOG"), "1") == 0);
    CHECK_EQ(hcrt__config_int("HCRT_DSM_SIZE"), 64LL << 30);
    CHECK_EQ(hcrt__config_int("HCRT_DSM_BLOCK"), 16);
    CHECK_DEQ(hcrt__config_double("HCRT_SCHED_TASK_EWMA_ALPHA"), 0.3);
    CHECK_EQ(hcrt__config_enum("HCRT_SCHED_TASK_POLICY"), 0);
}

static void on_usr1(int sig)
{
    (void)sig;
    hcrt__log_raw("dsm: raw line from a signal handler\n");
}

static void test_log_raw(void)
{
    signal(SIGUSR1, on_usr1);
    raise(SIGUSR1);
    signal(SIGUSR1, SIG_DFL);
}

static void tramp(int32_t *g, int32_t *b, void **a)
{
    (void)g, (void)b, (void)a;
}

static void test_registry(void)
{
    static const hcrt_region_desc_t r1 = {.id = 0x9001, .tramp = tramp};
    static const hcrt_region_desc_t r1_copy = {.id = 0x9001, .tramp = tramp};
    static const hcrt_region_desc_t r2 = {.id = 0x9001 + 4096, .tramp = tramp};

    hcrt_region_stats_t *a = hcrt__registry_region(&r1);
    CHECK(a == hcrt__registry_region(&r1));
    CHECK(a == hcrt__registry_region(&r1_copy)); /* keyed by id */
    CHECK(a != hcrt__registry_region(&r2));
    CHECK(hcrt__registry_kernel(&r2) == NULL);
}

static void test_strerror(void)
{
    for (int s = HCRT_ERR_NOT_FOUND; s <= HCRT_OK; s++)
        CHECK(strcmp(hcrt_strerror((hcrt_status_t)s), "unknown status") != 0);
    CHECK(strcmp(hcrt_strerror((hcrt_status_t)-99), "unknown status") == 0);
}

int main(void)
{
    CHECK_EQ(hcrt_num_nodes() >= 1, 1); /* brings the runtime up */
    test_log_levels();
    test_config_getters();
    test_log_raw();
    test_registry();
    test_strerror();
    return rt_report("test_internal");
}
