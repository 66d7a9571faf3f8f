/*
 * config.h - the runtime's one table of settings (internal).
 *
 * Each module declares its settings in config.c's table (name, default,
 * help, type, bounds). hcrt__config_init() parses the environment once,
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

/* Parses the environment; idempotent. Returns HCRT_ERR_INVALID (after
 * printing why) when a value is malformed or out of bounds. */
hcrt_status_t hcrt__config_init(void);
void hcrt__config_print(FILE *out);

/* Typed getters by full variable name ("HCRT_DSM_SIZE"). Asking for a name
 * not in the table is an internal error (fatal). */
int64_t hcrt__config_int(const char *name);
int hcrt__config_bool(const char *name);
double hcrt__config_double(const char *name);
int hcrt__config_enum(const char *name);
const char *hcrt__config_string(const char *name);

#endif /* HCRT_CONFIG_H */
