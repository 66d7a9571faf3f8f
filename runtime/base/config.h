/*
 * config.h - the runtime's one table of settings (internal).
 *
 * Each module declares its settings in its settings.def (name, default,
 * help, type, bounds) and registers those rows (hcrt__config_register) at
 * start-up, before hcrt__config_init(); runtime/base's own rows
 * (base/settings.def) are always there. hcrt__config_init() parses the
 * environment once,
 * rejects bad values with a message naming the variable, the value and the
 * accepted range, and warns about unknown HCRT_* names (with the closest
 * known one). HCRT_PRINT_CONFIG=1 prints the table with the values in force.
 */
#ifndef HCRT_CONFIG_H
#define HCRT_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hcrt/hcrt.h"

typedef enum hcrt_config_type {
    HCRT_CFG_BOOL,
    HCRT_CFG_INT,    /* int64 with [min, max] */
    HCRT_CFG_SIZE,   /* bytes; accepts suffixes k, m, g, t */
    HCRT_CFG_DOUBLE, /* with [min, max] */
    HCRT_CFG_ENUM,   /* one of a '|'-separated list; value is the index */
    HCRT_CFG_STRING
} hcrt_config_type_t;

typedef struct hcrt_setting {
    const char *name;
    hcrt_config_type_t type;
    const char *def;
    double min, max;
    const char *choices;
    const char *help;
} hcrt_setting_t;

/* One row of a module's table from its settings.def:
 *     static const hcrt_setting_t rows[] = {
 *     #define HCRT_SETTING HCRT_SETTING_ROW
 *     #include "dsm/settings.def"
 *     #undef HCRT_SETTING
 *     };
 */
#define HCRT_SETTING_ROW(N, T, D, MIN, MAX, C, H)                              \
    {N, HCRT_CFG_##T, D, MIN, MAX, C, H},

/* Adds a module's rows to the table, in registration order; registering
 * the same rows again does nothing. Rows registered after
 * hcrt__config_init() are parsed at once (a bad value is then fatal). */
void hcrt__config_register(const hcrt_setting_t *rows, size_t n);

/* Parses the environment; idempotent. Returns HCRT_ERR_INVALID (after
 * printing why) when a value is malformed or out of bounds. */
hcrt_status_t hcrt__config_init(void);
void hcrt__config_print(FILE *out);
/* Warns about HCRT_* variables that are not settings (call once, on the
 * head, after logging is set up and every module registered). */
void hcrt__config_warn_unknown(void);

/* Typed getters by full variable name ("HCRT_DSM_SIZE"). Asking for a name
 * not in the table is an internal error (fatal). */
int64_t hcrt__config_int(const char *name);
int hcrt__config_bool(const char *name);
double hcrt__config_double(const char *name);
int hcrt__config_enum(const char *name);
const char *hcrt__config_string(const char *name);

#endif /* HCRT_CONFIG_H */
