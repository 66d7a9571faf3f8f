/*
 * config.c - the one table of HCRT_* settings, parsed once at start-up.
 *
 * Rows come from the modules' settings.def files: base's own here, the
 * others' as the modules register them (hcrt__config_register). A malformed or
 * out-of-range value is an error naming the variable, the value and what is
 * accepted; an unknown HCRT_* name is a warning naming the closest setting.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/log.h"

extern char **environ;

typedef hcrt_setting_t setting_t;

static const setting_t base_rows[] = {
#define HCRT_SETTING HCRT_SETTING_ROW
#include "base/settings.def"
#undef HCRT_SETTING
};

#define MAX_SETTINGS 256
#define MAX_TABLES 16

typedef struct value {
    int64_t i; /* BOOL, INT, SIZE, ENUM */
    double d;
    const char *s; /* the text in force (environment or default) */
    int from_env;
} value_t;

/* The registered rows, in order: pointers into the modules' tables. */
static const setting_t *table[MAX_SETTINGS];
static value_t values[MAX_SETTINGS];
static size_t nsettings;
static const setting_t *tables[MAX_TABLES];
static int ntables;
static int parsed; /* hcrt__config_init ran */

static int parse_value(const setting_t *st, const char *text, value_t *out);
static void report_bad(const setting_t *st, const char *text);

/* Row i's value from the environment (else its default); -1 when bad. */
static int parse_env(size_t i)
{
    const char *env = getenv(table[i]->name);

    if (parse_value(table[i], table[i]->def, &values[i]) < 0)
        hcrt_fatal(HCRT_MOD_CORE, "internal error: bad default for %s",
                   table[i]->name);
    if (!env)
        return 0;
    values[i].from_env = 1;
    if (parse_value(table[i], env, &values[i]) < 0) {
        report_bad(table[i], env);
        return -1;
    }
    return 0;
}

static void add_rows(const setting_t *rows, size_t n)
{
    for (int t = 0; t < ntables; t++)
        if (tables[t] == rows)
            return;
    if (ntables == MAX_TABLES || nsettings + n > MAX_SETTINGS)
        hcrt_fatal(HCRT_MOD_CORE, "internal error: more than %d settings",
                   MAX_SETTINGS);
    tables[ntables++] = rows;
    for (size_t k = 0; k < n; k++) {
        table[nsettings] = &rows[k];
        if (parsed && parse_env(nsettings) < 0)
            hcrt_fatal(HCRT_MOD_CORE, "invalid HCRT_* settings (see above); "
                                      "fix or unset them");
        nsettings++;
    }
}

/* base's rows come first, whoever asks first. */
static void base_rows_add(void)
{
    if (ntables == 0)
        add_rows(base_rows, sizeof(base_rows) / sizeof(base_rows[0]));
}

void hcrt__config_register(const hcrt_setting_t *rows, size_t n)
{
    base_rows_add();
    add_rows(rows, n);
}

static const char *type_name(hcrt_config_type_t t)
{
    static const char *const names[] = {"bool",   "int",  "size",
                                        "double", "enum", "string"};
    return names[t];
}

static int parse_bool(const char *s, int64_t *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};

    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return *out = 1, 0;
        if (strcasecmp(s, no[i]) == 0)
            return *out = 0, 0;
    }
    return -1;
}

static int parse_int(const char *s, int64_t *out)
{
    char *end;

    /* Decimal or 0x hex; a leading 0 is not octal (010 is ten). */
    int base = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
    errno = 0;
    long long v = strtoll(s, &end, base);
    if (errno || end == s || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

static int parse_size(const char *s, int64_t *out)
{
    char *end;

    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-')
        return -1;
    int shift = 0;
    switch (tolower((unsigned char)*end)) {
    case 't':
        shift += 10; /* fall through */
    case 'g':
        shift += 10; /* fall through */
    case 'm':
        shift += 10; /* fall through */
    case 'k':
        shift += 10;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || (shift && v > (UINT64_MAX >> 1) >> shift))
        return -1;
    *out = (int64_t)(v << shift);
    return 0;
}

/* Index of `s` in the '|'-separated `choices`, or -1. */
static int parse_enum(const char *choices, const char *s, int64_t *out)
{
    size_t len = strlen(s);
    int idx = 0;

    for (const char *c = choices; c && *c; idx++) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && strncasecmp(c, s, n) == 0)
            return *out = idx, 0;
        c = bar ? bar + 1 : c + n;
    }
    return -1;
}

static void report_bad(const setting_t *st, const char *text)
{
    const char *what = "";
    char range[160] = "";

    switch (st->type) {
    case HCRT_CFG_BOOL:
        what = "one of 0/1, true/false, yes/no, on/off";
        break;
    case HCRT_CFG_INT:
        what = "an integer";
        snprintf(range, sizeof(range), " in [%.0f, %.0f]", st->min, st->max);
        break;
    case HCRT_CFG_SIZE:
        what = "a size in bytes with an optional suffix k, m, g or t";
        snprintf(range, sizeof(range), " in [%.0f, %.0f] bytes", st->min,
                 st->max);
        break;
    case HCRT_CFG_DOUBLE:
        what = "a number";
        snprintf(range, sizeof(range), " in [%g, %g]", st->min, st->max);
        break;
    case HCRT_CFG_ENUM:
        what = "one of";
        snprintf(range, sizeof(range), " %s", st->choices);
        break;
    case HCRT_CFG_STRING:
        break;
    }
    hcrt_error(HCRT_MOD_CORE,
               "%s='%s' is not valid: expected %s%s (default %s)", st->name,
               text, what, range, st->def);
}

static int in_bounds(const setting_t *st, double v)
{
    return !(v < st->min || v > st->max);
}

/* Parses `text` for setting `st` into `out`; 0 or -1. */
static int parse_value(const setting_t *st, const char *text, value_t *out)
{
    int rc = 0;

    out->s = text;
    switch (st->type) {
    case HCRT_CFG_BOOL:
        rc = parse_bool(text, &out->i);
        break;
    case HCRT_CFG_INT:
        rc = parse_int(text, &out->i);
        rc = rc ? rc : (in_bounds(st, (double)out->i) ? 0 : -1);
        break;
    case HCRT_CFG_SIZE:
        rc = parse_size(text, &out->i);
        rc = rc ? rc : (in_bounds(st, (double)out->i) ? 0 : -1);
        break;
    case HCRT_CFG_DOUBLE: {
        char *end;
        errno = 0;
        out->d = strtod(text, &end);
        rc = (errno || end == text || *end || !isfinite(out->d) ||
              !in_bounds(st, out->d))
                 ? -1
                 : 0;
        break;
    }
    case HCRT_CFG_ENUM:
        rc = parse_enum(st->choices, text, &out->i);
        break;
    case HCRT_CFG_STRING:
        break;
    }
    return rc;
}

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[128];

    if (lb >= 128)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t cost = (toupper((unsigned char)a[i - 1]) != b[j - 1]);
            size_t best = diag + cost;
            best = row[j] + 1 < best ? row[j] + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int find_setting(const char *name, size_t len)
{
    base_rows_add();
    for (size_t i = 0; i < nsettings; i++)
        if (strlen(table[i]->name) == len &&
            strncmp(table[i]->name, name, len) == 0)
            return (int)i;
    return -1;
}

static void warn_unknown(const char *var)
{
    const char *eq = strchr(var, '=');
    size_t len = eq ? (size_t)(eq - var) : strlen(var);
    char name[128];
    size_t best = (size_t)-1;
    const char *closest = NULL;

    if (len >= sizeof(name) || find_setting(var, len) >= 0)
        return;
    memcpy(name, var, len);
    name[len] = '\0';
    for (size_t i = 0; i < nsettings; i++) {
        size_t d = edit_distance(name, table[i]->name);
        if (d < best)
            best = d, closest = table[i]->name;
    }
    if (closest && best <= 4)
        hcrt_warn(HCRT_MOD_CORE,
                  "%s is not a known setting and is ignored; did you mean %s? "
                  "(HCRT_PRINT_CONFIG=1 lists all settings)",
                  name, closest);
    else
        hcrt_warn(HCRT_MOD_CORE,
                  "%s is not a known setting and is ignored "
                  "(HCRT_PRINT_CONFIG=1 lists all settings)",
                  name);
}

/* Parsed once: a bad value is reported once, whoever asks again (the
 * start-up asks before and after it knows whether to re-execute). */
hcrt_status_t hcrt__config_init(void)
{
    static hcrt_status_t status = HCRT_OK;

    base_rows_add();
    if (parsed)
        return status;
    parsed = 1;
    for (size_t i = 0; i < nsettings; i++)
        if (parse_env(i) < 0)
            status = HCRT_ERR_INVALID;
    return status;
}

void hcrt__config_warn_unknown(void)
{
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "HCRT_", 5) == 0)
            warn_unknown(*e);
}

void hcrt__config_print(FILE *out)
{
    base_rows_add();
    fprintf(out, "hcrt settings (%zu):\n", nsettings);
    for (size_t i = 0; i < nsettings; i++) {
        const setting_t *st = table[i];
        char bytes[48] = "";
        if (st->type == HCRT_CFG_SIZE)
            snprintf(bytes, sizeof(bytes), " = %" PRId64 " bytes", values[i].i);
        fprintf(out, "  %-28s = %-10s [%s%s, default %s%s]\n", st->name,
                values[i].s ? values[i].s : st->def, type_name(st->type), bytes,
                st->def, values[i].from_env ? ", from environment" : "");
        if (st->choices)
            fprintf(out, "  %-28s   choices: %s\n", "", st->choices);
        fprintf(out, "  %-28s   %s\n", "", st->help);
    }
}

static const value_t *lookup(const char *name, hcrt_config_type_t type)
{
    int idx = find_setting(name, strlen(name));

    if (idx < 0)
        hcrt_fatal(HCRT_MOD_CORE, "internal error: no setting named %s", name);
    if (table[idx]->type != type &&
        !(type == HCRT_CFG_INT && table[idx]->type == HCRT_CFG_SIZE))
        hcrt_fatal(HCRT_MOD_CORE, "internal error: %s is a %s setting, not %s",
                   name, type_name(table[idx]->type), type_name(type));
    /* A getter before init still answers, with the default. */
    if (!values[idx].s)
        parse_value(table[idx], table[idx]->def, &values[idx]);
    return &values[idx];
}

int64_t hcrt__config_int(const char *name)
{
    return lookup(name, HCRT_CFG_INT)->i;
}

int hcrt__config_bool(const char *name)
{
    return (int)lookup(name, HCRT_CFG_BOOL)->i;
}

double hcrt__config_double(const char *name)
{
    return lookup(name, HCRT_CFG_DOUBLE)->d;
}

int hcrt__config_enum(const char *name)
{
    return (int)lookup(name, HCRT_CFG_ENUM)->i;
}

const char *hcrt__config_string(const char *name)
{
    return lookup(name, HCRT_CFG_STRING)->s;
}
