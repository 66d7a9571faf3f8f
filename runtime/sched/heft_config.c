/*
 * heft_config.c - the HCRT_SCHED_TASK_* settings (runtime/sched/settings.def)
 * as a struct for the code that builds the cost model and picks the policy.
 * Kept apart from the scheduler proper so the simulator and the unit tests
 * link without the runtime's settings table.
 */
#include "base/config.h"
#include "sched/heft.h"

void hcrt__heft_settings_load(hcrt__heft_settings_t *out)
{
    out->policy =
        (hcrt__heft_policy_id_t)hcrt__config_enum("HCRT_SCHED_TASK_POLICY");
    out->alpha = hcrt__config_double("HCRT_SCHED_TASK_EWMA_ALPHA");
    out->default_time = hcrt__config_double("HCRT_SCHED_TASK_DEFAULT_TIME");
}
