/*
 * test_hp_settings.c - the HCRT_SCHED_* loop settings reach the HetProbe
 * parameters (runtime/sched/hetprobe_config.c, through runtime/base's
 * settings table with sched's rows registered). Run by ctest with different
 * environments:
 *   test_hp_settings defaults | custom | file | bad_csr | bad_file
 */
#include <math.h>

#include "base/config.h"
#include "sched/hetprobe.h"
#include "sched/sched.h"
#include "check.h"

static hcrt__hetprobe_settings_t s;

static hcrt_status_t load(int nnodes)
{
    hcrt__sched_settings_register();
    hcrt_status_t rc = hcrt__config_init();
    return rc != HCRT_OK ? rc : hcrt__hetprobe_settings_load(nnodes, &s);
}

static void test_defaults(void)
{
    REQUIRE(load(2) == HCRT_OK, "load");
    CHECKF(s.params.probe_pct == 10 && s.params.reprobe_pct == 10 &&
              s.params.min_probe_iters == 4 && s.params.fractions == 4 &&
              s.params.speed_tie == 0.02 && s.params.deal_spread == 1.5,
          "params");
    CHECKF(s.cache.alpha == 0.5 && s.cache.stable_runs == 3 &&
              s.cache.drift == 0.25 && s.cache.refresh_runs == 0,
          "cache params");
    CHECKF(s.default_sched == HCRT_HP_DEFAULT_HETPROBE, "default %d",
          (int)s.default_sched);
    CHECKF(s.csr[0] == 1 && s.csr[1] == 1, "csr");
    /* HOME points at an empty directory (ctest ENVIRONMENT). */
    CHECKF(s.params.threshold_us == 100.0 &&
              strstr(s.threshold.source, "built-in") != NULL,
          "threshold %.1f from %s", s.params.threshold_us, s.threshold.source);
    hcrt__hetprobe_settings_fini(&s);
}

static void test_custom(void)
{
    REQUIRE(load(3) == HCRT_OK, "load");
    CHECKF(s.params.probe_pct == 20 && s.params.reprobe_pct == 5 &&
              s.params.min_probe_iters == 2 && s.params.fractions == 8 &&
              s.params.speed_tie == 0.1 && s.params.deal_spread == 3,
          "params %.1f %.1f", s.params.probe_pct, s.params.reprobe_pct);
    CHECKF(s.cache.alpha == 0.25 && s.cache.stable_runs == 5 &&
              s.cache.drift == 0.5 && s.cache.refresh_runs == 7,
          "cache params");
    CHECKF(s.default_sched == HCRT_HP_DEFAULT_HETPROBE_I, "default %d",
          (int)s.default_sched);
    CHECKF(s.csr[0] == 3 && s.csr[1] == 1 && s.csr[2] == 1, "csr %g %g %g",
          s.csr[0], s.csr[1], s.csr[2]);
    CHECKF(s.params.threshold_us == 250.0 &&
              strcmp(s.threshold.source, "HCRT_SCHED_FAULT_PERIOD_US") == 0,
          "threshold %.1f from %s", s.params.threshold_us, s.threshold.source);
    CHECKF(hcrt__hetprobe_params_check(&s.params, NULL, 0) == HCRT_OK,
          "loaded params invalid");
    hcrt__hetprobe_settings_fini(&s);
}

static void test_file(void)
{
    REQUIRE(load(2) == HCRT_OK, "load");
    CHECKF(s.params.threshold_us == 321.5 &&
              strstr(s.threshold.source, "calibration.sample") != NULL,
          "threshold %.1f from %s", s.params.threshold_us, s.threshold.source);
    hcrt__hetprobe_settings_fini(&s);
}

static void test_bad_csr(void)
{
    CHECKF(load(2) == HCRT_ERR_INVALID, "HCRT_SCHED_CSR=3,1,1 on 2 nodes");
}

static void test_bad_file(void)
{
    CHECKF(load(2) == HCRT_ERR_INVALID, "a missing named file accepted");
}

int main(int argc, char **argv)
{
    static const check_case_t tests[] = {
        {"defaults", test_defaults}, {"custom", test_custom},
        {"file", test_file},         {"bad_csr", test_bad_csr},
        {"bad_file", test_bad_file}, {NULL, NULL}};
    return check_run(argc, argv, tests);
}
