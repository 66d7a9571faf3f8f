/*
 * settings.c - the schedulers' rows of the settings table
 * (sched/settings.def).
 */
#include "base/config.h"
#include "sched/sched.h"

static const hcrt_setting_t rows[] = {
#define HCRT_SETTING HCRT_SETTING_ROW
#include "sched/settings.def"
#undef HCRT_SETTING
};

void hcrt__sched_settings_register(void)
{
    hcrt__config_register(rows, sizeof(rows) / sizeof(rows[0]));
}
