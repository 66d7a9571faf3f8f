/*
 * test_hp_calib.c - where HetProbe's fault-period threshold comes from
 * (calibration file, setting, default) and the HCRT_SCHED_CSR list
 * (runtime/sched/hetprobe_calib.c). `test_hp_calib NAME` runs one test.
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sched/hetprobe.h"
#include "check.h"

static char g_dir[256];

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        abort();
    }
    fputs(text, f);
    fclose(f);
}

/* A private HOME / XDG_CACHE_HOME / prefix under a fresh temp dir. */
static void fresh_env(void)
{
    snprintf(g_dir, sizeof(g_dir), "/tmp/hcrt-calib-XXXXXX");
    if (mkdtemp(g_dir) == NULL)
        abort();
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", g_dir, 1);
}

static void test_parse(void)
{
    hcrt__hetprobe_calibration_t c;
    char err[300] = "";
    const char *good = "# written by hcrt-calibrate\n"
                       "format = hcc-calibration-1\n\n"
                       "fault_period_us = 72.5   # knee of the sweep\n"
                       "transport = mpi-tcp\n";
    CHECKF(hcrt__hetprobe_calibration_parse(good, "t", &c, err, sizeof(err)) ==
                  HCRT_OK &&
              c.threshold_us == 72.5 && strcmp(c.source, "t") == 0,
          "good file: %s", err);
    struct {
        const char *text, *want;
    } bad[] = {
        {"format = hcc-calibration-1\n", "no `fault_period_us"},
        {"fault_period_us = 5\n", "no `format"},
        {"format = hcc-calibration-2\nfault_period_us = 5\n", "t:1: format"},
        {"format = hcc-calibration-1\nfault_period_us = -5\n",
         "t:2: fault_period_us must be a positive"},
        {"format = hcc-calibration-1\nfault_period_us = 5us\n", "`5us`"},
        {"format = hcc-calibration-1\n\n\nnonsense\n", "t:4: expected"},
        {"format = hcc-calibration-1\nfault_period_us = inf\n", "positive"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        hcrt_status_t rc = hcrt__hetprobe_calibration_parse(
            bad[i].text, "t", &c, err, sizeof(err));
        CHECKF(rc == HCRT_ERR_INVALID && strstr(err, bad[i].want) != NULL,
              "case %zu: rc %d, message `%s`, wanted `%s`", i, rc, err,
              bad[i].want);
    }
}

static void test_find(void)
{
    char path[512], want[512], err[300];
    hcrt__hetprobe_calibration_t c;
    fresh_env();
    char prefix[300];
    snprintf(prefix, sizeof(prefix), "%s/prefix", g_dir);
    /* Nothing anywhere: the built-in 100 us. */
    CHECKF(hcrt__hetprobe_calibration_find(NULL, prefix, path, sizeof(path)) ==
              HCRT_ERR_NOT_FOUND,
          "found %s", path);
    CHECKF(hcrt__hetprobe_threshold(0, NULL, prefix, &c, err, sizeof(err)) ==
                  HCRT_OK &&
              c.threshold_us == 100.0 && strstr(c.source, "built-in"),
          "default: %.1f from %s", c.threshold_us, c.source);
    /* <prefix>/share/hcc/calibration */
    snprintf(want, sizeof(want), "%s/share", prefix);
    mkdir(prefix, 0700);
    mkdir(want, 0700);
    snprintf(want, sizeof(want), "%s/share/hcc", prefix);
    mkdir(want, 0700);
    snprintf(want, sizeof(want), "%s/share/hcc/calibration", prefix);
    write_file(want, "format = hcc-calibration-1\nfault_period_us = 300\n");
    CHECKF(hcrt__hetprobe_threshold(0, NULL, prefix, &c, err, sizeof(err)) ==
                  HCRT_OK &&
              c.threshold_us == 300.0 && strcmp(c.source, want) == 0,
          "prefix: %.1f from %s", c.threshold_us, c.source);
    /* ~/.cache/hcc/calibration wins over the prefix */
    snprintf(want, sizeof(want), "%s/.cache", g_dir);
    mkdir(want, 0700);
    snprintf(want, sizeof(want), "%s/.cache/hcc", g_dir);
    mkdir(want, 0700);
    snprintf(want, sizeof(want), "%s/.cache/hcc/calibration", g_dir);
    write_file(want, "format = hcc-calibration-1\nfault_period_us = 40\n");
    CHECKF(hcrt__hetprobe_threshold(0, NULL, prefix, &c, err, sizeof(err)) ==
                  HCRT_OK &&
              c.threshold_us == 40.0,
          "home cache: %.1f from %s", c.threshold_us, c.source);
    /* $XDG_CACHE_HOME replaces ~/.cache */
    setenv("XDG_CACHE_HOME", prefix, 1);
    CHECKF(hcrt__hetprobe_threshold(0, NULL, prefix, &c, err, sizeof(err)) ==
                  HCRT_OK &&
              c.threshold_us == 300.0,
          "xdg (none there): %.1f from %s", c.threshold_us, c.source);
    unsetenv("XDG_CACHE_HOME");
    /* HCRT_SCHED_CALIBRATION names a file; a bad one is an error. */
    snprintf(path, sizeof(path), "%s/mine", g_dir);
    write_file(path, "format = hcc-calibration-1\nfault_period_us = zero\n");
    err[0] = '\0';
    CHECKF(hcrt__hetprobe_threshold(0, path, prefix, &c, err, sizeof(err)) ==
                  HCRT_ERR_INVALID &&
              strstr(err, path) != NULL,
          "bad named file: %s", err);
    snprintf(path, sizeof(path), "%s/missing", g_dir);
    CHECKF(hcrt__hetprobe_threshold(0, path, prefix, &c, err, sizeof(err)) ==
                  HCRT_ERR_NOT_FOUND &&
              strstr(err, "missing") != NULL,
          "missing named file: %s", err);
    /* The setting overrides every file. */
    CHECKF(hcrt__hetprobe_threshold(55.0, path, prefix, &c, err, sizeof(err)) ==
                  HCRT_OK &&
              c.threshold_us == 55.0 &&
              strcmp(c.source, "HCRT_SCHED_FAULT_PERIOD_US") == 0,
          "override: %.1f from %s", c.threshold_us, c.source);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir);
    CHECKF(system(cmd) == 0, "cleanup");
}

static void test_csr(void)
{
    double v[4];
    char err[300] = "";
    CHECKF(hcrt__hetprobe_parse_csr("3,1", 4, v, err, sizeof(err)) == HCRT_OK &&
              v[0] == 3 && v[1] == 1 && v[2] == 1 && v[3] == 1,
          "3,1 on 4 nodes: %s", err);
    CHECKF(hcrt__hetprobe_parse_csr(" 2.5 , 0.5,1 ", 3, v, err, sizeof(err)) ==
                  HCRT_OK &&
              v[0] == 2.5 && v[1] == 0.5 && v[2] == 1,
          "spaces: %s", err);
    CHECKF(hcrt__hetprobe_parse_csr("", 2, v, err, sizeof(err)) == HCRT_OK &&
              v[0] == 1 && v[1] == 1,
          "empty");
    CHECKF(hcrt__hetprobe_parse_csr("1,2,3", 2, v, err, sizeof(err)) ==
                  HCRT_ERR_INVALID &&
              strstr(err, "2 nodes"),
          "too many: %s", err);
    CHECKF(hcrt__hetprobe_parse_csr("1,0", 2, v, err, sizeof(err)) ==
                  HCRT_ERR_INVALID &&
              strstr(err, "entry 2"),
          "zero: %s", err);
    CHECKF(hcrt__hetprobe_parse_csr("1;2", 2, v, err, sizeof(err)) ==
                  HCRT_ERR_INVALID &&
              strstr(err, "after entry 1"),
          "separator: %s", err);
    CHECKF(hcrt__hetprobe_parse_csr("fast", 2, v, err, sizeof(err)) ==
              HCRT_ERR_INVALID,
          "word accepted");
}

int main(int argc, char **argv)
{
    static const check_case_t tests[] = {{"parse", test_parse},
                                        {"find", test_find},
                                        {"csr", test_csr},
                                        {NULL, NULL}};
    return check_run(argc, argv, tests);
}
