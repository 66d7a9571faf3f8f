/*
 * log.c - the logging family: hcrt_error/warn/info/debug, fatal, raw.
 *
 * Lines look like "hcrt[rank@host] module: level: message". Each line goes
 * out in one write(2) so lines of different threads and ranks do not mix.
 */
#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/lastword.h"
#include "base/log.h"

int hcrt__log_levels[HCRT_MOD_COUNT] = {
    HCRT_LOG_WARN, HCRT_LOG_WARN, HCRT_LOG_WARN,
    HCRT_LOG_WARN, HCRT_LOG_WARN, HCRT_LOG_WARN,
};

static const char *const mod_names[HCRT_MOD_COUNT] = {
    "core", "dsm", "sched", "event", "target", "fault",
};
static const char *const level_names[] = {"error", "warning", "info", "debug"};

/* "hcrt[rank@host] ", rebuilt when the rank becomes known. */
static char prefix[96] = "hcrt[?] ";
static size_t prefix_len = 8;
static int mpi_up;

void hcrt__log_set_identity(int rank, const char *host)
{
    char r[16] = "?";

    if (rank >= 0)
        snprintf(r, sizeof(r), "%d", rank);
    snprintf(prefix, sizeof(prefix), "hcrt[%s@%s] ", r, host ? host : "?");
    prefix_len = strlen(prefix);
}

void hcrt__log_set_mpi_up(int up)
{
    mpi_up = up;
}

static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

static void vemit(int module, const char *level, const char *file, int line,
                  const char *fmt, va_list ap)
{
    char buf[2048];
    int n = snprintf(buf, sizeof(buf), "%s%s: %s%s", prefix, mod_names[module],
                     level ? level : "", level ? ": " : "");
    if (n < 0 || n >= (int)sizeof(buf))
        return;
    int m = vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    if (m < 0)
        return;
    n = (n + m >= (int)sizeof(buf) - 64) ? (int)sizeof(buf) - 64 : n + m;
    if (file)
        n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (%s:%d)",
                      strrchr(file, '/') ? strrchr(file, '/') + 1 : file, line);
    buf[n++] = '\n';
    write_all(STDERR_FILENO, buf, (size_t)n);
}

void hcrt__log(int module, int level, const char *file, int line,
               const char *fmt, ...)
{
    va_list ap;

    if (module < 0 || module >= HCRT_MOD_COUNT)
        module = HCRT_MOD_CORE;
    if (level < 0 || level > HCRT_LOG_DEBUG)
        level = HCRT_LOG_DEBUG;
    va_start(ap, fmt);
    /* Source positions only help at debug level; users read the text. */
    vemit(module, level_names[level], level >= HCRT_LOG_DEBUG ? file : NULL,
          line, fmt, ap);
    va_end(ap);
}

void hcrt__log_plain(int module, const char *fmt, ...)
{
    va_list ap;

    if (module < 0 || module >= HCRT_MOD_COUNT)
        module = HCRT_MOD_CORE;
    va_start(ap, fmt);
    vemit(module, NULL, NULL, 0, fmt, ap);
    va_end(ap);
}

_Noreturn void hcrt__fatal(int module, const char *file, int line,
                           const char *fmt, ...)
{
    va_list ap;
    int inited = 0, finalized = 0;

    if (module < 0 || module >= HCRT_MOD_COUNT)
        module = HCRT_MOD_CORE;
    va_start(ap, fmt);
    vemit(module, "fatal", file, line, fmt, ap);
    va_end(ap);
    /* the fault detector's root then knows this rank ends the job itself */
    char why[440];
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    hcrt__lastword(HCRT_LASTWORD_END, why);
    if (mpi_up) {
        MPI_Initialized(&inited);
        MPI_Finalized(&finalized);
    }
    /* Abort the whole job so no peer waits forever for this rank. */
    if (inited && !finalized)
        MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

void hcrt__log_raw(const char *msg)
{
    write_all(STDERR_FILENO, prefix, prefix_len);
    write_all(STDERR_FILENO, msg, strlen(msg));
}

static int parse_level(const char *s, const char *end, int *out)
{
    if (end - s != 1 || *s < '0' || *s > '3')
        return -1;
    *out = *s - '0';
    return 0;
}

static int find_module(const char *s, size_t len)
{
    for (int i = 0; i < HCRT_MOD_COUNT; i++)
        if (strlen(mod_names[i]) == len && strncmp(mod_names[i], s, len) == 0)
            return i;
    return -1;
}

/* One "N" or "module:N" item of HCRT_LOG into levels[]. */
static hcrt_status_t parse_item(const char *s, const char *end, int *levels)
{
    const char *colon = memchr(s, ':', (size_t)(end - s));
    int level;

    if (!colon) {
        if (parse_level(s, end, &level) < 0)
            return HCRT_ERR_INVALID;
        for (int i = 0; i < HCRT_MOD_COUNT; i++)
            levels[i] = level;
        return HCRT_OK;
    }
    int mod = find_module(s, (size_t)(colon - s));
    if (mod < 0 || parse_level(colon + 1, end, &level) < 0)
        return HCRT_ERR_INVALID;
    levels[mod] = level;
    return HCRT_OK;
}

hcrt_status_t hcrt__log_init(const char *spec)
{
    int levels[HCRT_MOD_COUNT];
    const char *s = spec;

    memcpy(levels, hcrt__log_levels, sizeof(levels));
    while (s && *s) {
        const char *end = strchr(s, ',');
        if (!end)
            end = s + strlen(s);
        if (parse_item(s, end, levels) != HCRT_OK) {
            hcrt_error(HCRT_MOD_CORE,
                       "HCRT_LOG='%s' is not valid: write a level 0..3 "
                       "(0 error, 1 warning, 2 info, 3 debug) for all modules, "
                       "or a list like 'dsm:3,sched:2' with modules "
                       "core,dsm,sched,event,target,fault",
                       spec);
            return HCRT_ERR_INVALID;
        }
        s = *end ? end + 1 : end;
    }
    memcpy(hcrt__log_levels, levels, sizeof(levels));
    return HCRT_OK;
}
