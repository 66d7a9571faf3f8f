/*
 * hetprobe_calib.c - where HetProbe's fault-period threshold comes from (a
 * calibration file written by the calibration tool, the setting, or the
 * paper's 100 us) and the HCRT_SCHED_CSR list. docs/hetprobe.md.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/hetprobe_int.h"

#define CALIB_FORMAT "hcc-calibration-1"

static void seterr(char *err, size_t len, const char *fmt, const char *a,
                   long line, const char *b)
{
    if (err != NULL && len > 0)
        snprintf(err, len, fmt, a, line, b);
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* One `key = value` line; *seen_* record the two required keys. */
static hcrt_status_t parse_line(char *line, const char *name, long lineno,
                                hcrt__hetprobe_calibration_t *out,
                                int *seen_fmt, int *seen_thr, char *err,
                                size_t errlen)
{
    char *hash = strchr(line, '#');
    if (hash != NULL)
        *hash = '\0';
    char *s = trim(line);
    if (*s == '\0')
        return HCRT_OK;
    char *eq = strchr(s, '=');
    if (eq == NULL) {
        seterr(err, errlen, "%s:%ld: expected `key = value`, got `%s`", name,
               lineno, s);
        return HCRT_ERR_INVALID;
    }
    *eq = '\0';
    char *key = trim(s), *val = trim(eq + 1);
    if (strcmp(key, "format") == 0) {
        if (strcmp(val, CALIB_FORMAT) != 0) {
            seterr(err, errlen,
                   "%s:%ld: format `%s` is not " CALIB_FORMAT
                   "; re-run the calibration tool",
                   name, lineno, val);
            return HCRT_ERR_INVALID;
        }
        *seen_fmt = 1;
    } else if (strcmp(key, "fault_period_us") == 0) {
        char *end;
        errno = 0;
        double v = strtod(val, &end);
        if (errno != 0 || end == val || *end != '\0' || !(v > 0.0) ||
            isinf(v)) {
            seterr(err, errlen,
                   "%s:%ld: fault_period_us must be a positive number of "
                   "microseconds, got `%s`",
                   name, lineno, val);
            return HCRT_ERR_INVALID;
        }
        out->threshold_us = v;
        *seen_thr = 1;
    } /* other keys (date, transport, sweep points) are for humans */
    return HCRT_OK;
}

hcrt_status_t
hcrt__hetprobe_calibration_parse(const char *text, const char *name,
                                 hcrt__hetprobe_calibration_t *out, char *err,
                                 size_t errlen)
{
    char *copy = strdup(text);
    if (copy == NULL)
        return HCRT_ERR_NOMEM;
    hcrt__hetprobe_calibration_t c;
    memset(&c, 0, sizeof(c));
    int seen_fmt = 0, seen_thr = 0;
    long lineno = 0;
    hcrt_status_t rc = HCRT_OK;
    char *save = NULL;
    /* strtok_r would skip empty lines and break line numbers: split by hand */
    for (char *line = copy; line != NULL && rc == HCRT_OK; line = save) {
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        lineno++;
        rc = parse_line(line, name, lineno, &c, &seen_fmt, &seen_thr, err,
                        errlen);
    }
    free(copy);
    if (rc == HCRT_OK && (!seen_fmt || !seen_thr)) {
        seterr(err, errlen, "%s:%ld: no `%s` line; re-run the calibration tool",
               name, lineno,
               !seen_fmt ? "format = " CALIB_FORMAT : "fault_period_us = X");
        rc = HCRT_ERR_INVALID;
    }
    if (rc != HCRT_OK)
        return rc;
    snprintf(c.source, sizeof(c.source), "%s", name);
    *out = c;
    return HCRT_OK;
}

hcrt_status_t hcrt__hetprobe_calibration_read(const char *path,
                                              hcrt__hetprobe_calibration_t *out,
                                              char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        int e = errno;
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "%s: cannot open: %s", path, strerror(e));
        return e == ENOENT ? HCRT_ERR_NOT_FOUND : HCRT_ERR_IO;
    }
    char buf[8192];
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    int bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        seterr(err, errlen, "%s: unreadable or larger than %ld bytes%s", path,
               (long)sizeof(buf) - 1, "");
        return HCRT_ERR_IO;
    }
    buf[n] = '\0';
    return hcrt__hetprobe_calibration_parse(buf, path, out, err, errlen);
}

static int exists(const char *p)
{
    return access(p, R_OK) == 0;
}

hcrt_status_t hcrt__hetprobe_calibration_find(const char *named,
                                              const char *prefix, char *path,
                                              size_t len)
{
    if (named != NULL && *named != '\0') {
        snprintf(path, len, "%s", named);
        return HCRT_OK; /* named explicitly: reading it reports a problem */
    }
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg != NULL && *xdg == '/') {
        snprintf(path, len, "%s/hcc/calibration", xdg);
        if (exists(path))
            return HCRT_OK;
    } else if (home != NULL && *home != '\0') {
        snprintf(path, len, "%s/.cache/hcc/calibration", home);
        if (exists(path))
            return HCRT_OK;
    }
    if (prefix != NULL && *prefix != '\0') {
        snprintf(path, len, "%s/share/hcc/calibration", prefix);
        if (exists(path))
            return HCRT_OK;
    }
    return HCRT_ERR_NOT_FOUND;
}

hcrt_status_t hcrt__hetprobe_threshold(double override_us, const char *named,
                                       const char *prefix,
                                       hcrt__hetprobe_calibration_t *out,
                                       char *err, size_t errlen)
{
    char path[sizeof(out->source)];
    if (override_us > 0.0) {
        out->threshold_us = override_us;
        snprintf(out->source, sizeof(out->source),
                 "HCRT_SCHED_FAULT_PERIOD_US");
        return HCRT_OK;
    }
    if (hcrt__hetprobe_calibration_find(named, prefix, path, sizeof(path)) ==
        HCRT_OK)
        return hcrt__hetprobe_calibration_read(path, out, err, errlen);
    out->threshold_us = HCRT_HP_DEFAULT_THRESHOLD_US;
    snprintf(out->source, sizeof(out->source),
             "built-in default (no calibration file)");
    return HCRT_OK;
}

hcrt_status_t hcrt__hetprobe_parse_csr(const char *text, int nnodes,
                                       double *out, char *err, size_t errlen)
{
    for (int k = 0; k < nnodes; k++)
        out[k] = 1.0;
    const char *s = text ? text : "";
    while (isspace((unsigned char)*s))
        s++;
    for (int k = 0; *s != '\0'; k++) {
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || errno != 0 || !(v > 0.0) || v > 1e6) {
            seterr(err, errlen,
                   "HCRT_SCHED_CSR=%s: entry %ld must be a number in (0, "
                   "1e6]%s; write e.g. HCRT_SCHED_CSR=3,1",
                   text, (long)k + 1, "");
            return HCRT_ERR_INVALID;
        }
        if (k >= nnodes) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen,
                         "HCRT_SCHED_CSR=%s: more entries than the %d nodes "
                         "of this run; give one value per node",
                         text, nnodes);
            return HCRT_ERR_INVALID;
        }
        out[k] = v;
        s = end;
        while (isspace((unsigned char)*s))
            s++;
        if (*s == ',')
            s++;
        else if (*s != '\0') {
            seterr(err, errlen,
                   "HCRT_SCHED_CSR=%s: expected `,` after entry %ld%s", text,
                   (long)k + 1, "");
            return HCRT_ERR_INVALID;
        }
    }
    return HCRT_OK;
}
