/*
 * placement_config.c - the HCRT_SCHED_PLACE* settings (sched/settings.def)
 * as the placement policy's parameters. Kept apart from placement.c so its
 * unit tests link without the settings table.
 */
#include "base/config.h"
#include "sched/placement.h"

void hcrt__place_params_load(hcrt__place_params_t *p, int nodes)
{
    hcrt__place_params_default(p, nodes);
    p->enabled = hcrt__config_bool("HCRT_SCHED_PLACE");
    p->head_first = hcrt__config_bool("HCRT_SCHED_PLACE_HEAD_FIRST");
    p->budget = hcrt__config_double("HCRT_SCHED_PLACE_BUDGET");
    p->tie = hcrt__config_double("HCRT_SCHED_PLACE_TIE");
    p->drift = hcrt__config_double("HCRT_SCHED_PLACE_DRIFT");
    p->recheck_min = (uint32_t)hcrt__config_int("HCRT_SCHED_PLACE_RECHECK");
    p->recheck_max = (uint32_t)hcrt__config_int("HCRT_SCHED_PLACE_RECHECK_MAX");
}
