/*
 * settings.c - every module's rows of the one settings table, registered
 * in one place before the environment is parsed: base's own rows come
 * first (base/config.c), then the DSM's, this layer's, the schedulers'
 * and the event system's.
 */
#include "base/config.h"
#include "dsm/dsm.h"
#include "libhcrt/core.h"
#include "libhcrt/fault/fault.h"
#include "sched/sched.h"

#define HCRT_SETTING HCRT_SETTING_ROW
static const hcrt_setting_t core_rows[] = {
#include "libhcrt/settings.def"
};
static const hcrt_setting_t event_rows[] = {
#include "libhcrt/event/settings.def"
};
#undef HCRT_SETTING

#define NROWS(a) (sizeof(a) / sizeof((a)[0]))

void hcrt__settings_register(void)
{
    hcrt__dsm_settings_register();
    hcrt__config_register(core_rows, NROWS(core_rows));
    hcrt__sched_settings_register();
    hcrt__config_register(event_rows, NROWS(event_rows));
    hcrt__fault_settings_register();
}
