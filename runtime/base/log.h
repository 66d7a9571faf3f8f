/*
 * log.h - the runtime's one logging family (internal).
 *
 * Levels per module come from HCRT_LOG ("dsm:3,sched:2" or "3" for all).
 * Every line is prefixed "hcrt[rank@host] module: ". Errors are logged once,
 * where first detected. hcrt__fatal() prints rank, host, file:line and the
 * reason, then ends the whole job (MPI_Abort) - never hangs.
 * Not async-signal-safe: the SIGSEGV path uses hcrt__log_raw().
 */
#ifndef HCRT_LOG_H
#define HCRT_LOG_H

#include <stdarg.h>

#include "hcrt/hcrt.h"

typedef enum hcrt_log_module {
    HCRT_MOD_CORE = 0,
    HCRT_MOD_DSM,
    HCRT_MOD_SCHED,
    HCRT_MOD_EVENT,
    HCRT_MOD_TARGET,
    HCRT_MOD_FAULT,
    HCRT_MOD_COUNT
} hcrt_log_module_t;

typedef enum hcrt_log_level {
    HCRT_LOG_ERROR = 0,
    HCRT_LOG_WARN = 1,
    HCRT_LOG_INFO = 2,
    HCRT_LOG_DEBUG = 3
} hcrt_log_level_t;

extern int hcrt__log_levels[HCRT_MOD_COUNT];

/* Sets the levels from an HCRT_LOG value (an error message when bad). */
hcrt_status_t hcrt__log_init(const char *spec);
/* Sets the "rank@host" of every later line (before MPI it is "?@host"). */
void hcrt__log_set_identity(int rank, const char *host);
/* Whether MPI can be used to abort the job (set by the start-up). */
void hcrt__log_set_mpi_up(int up);

void hcrt__log(int module, int level, const char *file, int line,
               const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "hcrt[rank@host] module: message" without a level word: reports that
 * stand on their own (the fault detector's). */
void hcrt__log_plain(int module, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
_Noreturn void hcrt__fatal(int module, const char *file, int line,
                           const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Async-signal-safe: write(2) of a preformatted buffer with the prefix. */
void hcrt__log_raw(const char *msg);

#define hcrt__log_on(mod, lvl) (hcrt__log_levels[(mod)] >= (lvl))
#define hcrt__logf(mod, lvl, ...)                                              \
    do {                                                                       \
        if (hcrt__log_on(mod, lvl))                                            \
            hcrt__log(mod, lvl, __FILE__, __LINE__, __VA_ARGS__);              \
    } while (0)
#define hcrt_error(mod, ...) hcrt__logf(mod, HCRT_LOG_ERROR, __VA_ARGS__)
#define hcrt_warn(mod, ...) hcrt__logf(mod, HCRT_LOG_WARN, __VA_ARGS__)
#define hcrt_info(mod, ...) hcrt__logf(mod, HCRT_LOG_INFO, __VA_ARGS__)
#define hcrt_debug(mod, ...) hcrt__logf(mod, HCRT_LOG_DEBUG, __VA_ARGS__)
#define hcrt_fatal(mod, ...) hcrt__fatal(mod, __FILE__, __LINE__, __VA_ARGS__)

/* Checks that always compile (Argobots style); on when HCRT_ENABLE_ASSERT. */
#ifndef HCRT_ENABLE_ASSERT
#define HCRT_ENABLE_ASSERT 1
#endif
#define hcrt_assert(cond)                                                      \
    do {                                                                       \
        if (HCRT_ENABLE_ASSERT && !(cond))                                     \
            hcrt__fatal(HCRT_MOD_CORE, __FILE__, __LINE__,                     \
                        "internal error: assertion '%s' failed", #cond);       \
    } while (0)

#endif /* HCRT_LOG_H */
