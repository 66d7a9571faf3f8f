/*
 * settings.c - the DSM's rows of the settings table (dsm/settings.def).
 */
#include "base/config.h"
#include "dsm/dsm.h"

static const hcrt_setting_t rows[] = {
#define HCRT_SETTING HCRT_SETTING_ROW
#include "dsm/settings.def"
#undef HCRT_SETTING
};

void hcrt__dsm_settings_register(void)
{
    hcrt__config_register(rows, sizeof(rows) / sizeof(rows[0]));
}
