/*
 * hetprobe_config.c - the HCRT_SCHED_* loop settings
 * (runtime/sched/settings.def) as the parameter structs of the HetProbe
 * core, plus the fault-period threshold from the calibration file. Kept
 * apart from the core so its unit tests link without the settings table.
 */
#include <stdlib.h>

#include "base/config.h"
#include "base/log.h"
#include "sched/hetprobe.h"

#ifndef HCRT_INSTALL_PREFIX
#define HCRT_INSTALL_PREFIX "/usr/local"
#endif

static void load_params(hcrt__hetprobe_settings_t *out)
{
    hcrt__hetprobe_params_t *p = &out->params;
    hcrt__hetprobe_params_default(p);
    p->probe_pct = hcrt__config_double("HCRT_SCHED_PROBE_PCT");
    p->reprobe_pct = hcrt__config_double("HCRT_SCHED_REPROBE_PCT");
    p->min_probe_iters =
        (uint64_t)hcrt__config_int("HCRT_SCHED_PROBE_MIN_ITERS");
    p->speed_tie = hcrt__config_double("HCRT_SCHED_SPEED_TIE");
    p->faulting_floor = hcrt__config_double("HCRT_SCHED_FAULTING_FLOOR");
    p->faulting_margin = hcrt__config_double("HCRT_SCHED_FAULTING_MARGIN");
    p->fractions = (int)hcrt__config_int("HCRT_SCHED_REPROBE_FRACTIONS");
    p->deal_spread = hcrt__config_double("HCRT_SCHED_DEAL_SPREAD");
    hcrt__probecache_params_default(&out->cache);
    out->cache.alpha = hcrt__config_double("HCRT_SCHED_PROBE_EWMA");
    out->cache.stable_runs =
        (int)hcrt__config_int("HCRT_SCHED_PROBE_STABLE_RUNS");
    out->cache.drift = hcrt__config_double("HCRT_SCHED_PROBE_DRIFT");
    out->cache.refresh_runs = (int)hcrt__config_int("HCRT_SCHED_PROBE_REFRESH");
    out->default_sched =
        (hcrt__hetprobe_default_sched_t)hcrt__config_enum("HCRT_SCHED_DEFAULT");
}

hcrt_status_t hcrt__hetprobe_settings_load(int nnodes,
                                           hcrt__hetprobe_settings_t *out)
{
    char err[512] = "";
    load_params(out);
    out->csr = malloc(sizeof(double) * (size_t)(nnodes > 0 ? nnodes : 1));
    if (out->csr == NULL)
        return HCRT_ERR_NOMEM;
    hcrt_status_t rc =
        hcrt__hetprobe_parse_csr(hcrt__config_string("HCRT_SCHED_CSR"), nnodes,
                                 out->csr, err, sizeof(err));
    if (rc != HCRT_OK) {
        hcrt_error(HCRT_MOD_SCHED, "%s", err);
        goto err_free;
    }
    rc = hcrt__hetprobe_threshold(
        hcrt__config_double("HCRT_SCHED_FAULT_PERIOD_US"),
        hcrt__config_string("HCRT_SCHED_CALIBRATION"), HCRT_INSTALL_PREFIX,
        &out->threshold, err, sizeof(err));
    if (rc != HCRT_OK) {
        hcrt_error(HCRT_MOD_SCHED,
                   "fault-period threshold: %s (fix or delete the file, name "
                   "another with HCRT_SCHED_CALIBRATION, or set "
                   "HCRT_SCHED_FAULT_PERIOD_US)",
                   err);
        rc = rc == HCRT_ERR_NOT_FOUND ? HCRT_ERR_INVALID : rc;
        goto err_free;
    }
    out->params.threshold_us = out->threshold.threshold_us;
    hcrt_info(HCRT_MOD_SCHED, "HetProbe fault-period threshold %.1f us (%s)",
              out->threshold.threshold_us, out->threshold.source);
    return HCRT_OK;
err_free:
    free(out->csr);
    out->csr = NULL;
    return rc;
}

void hcrt__hetprobe_settings_fini(hcrt__hetprobe_settings_t *s)
{
    free(s->csr);
    s->csr = NULL;
}
