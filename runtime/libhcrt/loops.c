/*
 * loops.c - worksharing loops, schedule hints and migration points.
 *
 * On one node every entry forwards to libomp; these are the hottest paths of
 * the runtime, so they take no lock, allocate nothing and touch shared
 * counters only with HCRT_STATS=1.
 *
 * One deliberate difference: dynamic schedules always run monotonic. libomp
 * 19 maps nonmonotonic:dynamic (the OpenMP 5 default for plain
 * schedule(dynamic)) to work stealing, which loses the sequentially last
 * iteration's lastprivate/linear value when a chunk is stolen. Monotonic
 * dynamic is a valid implementation of every dynamic schedule.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/stats.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_loops.h"
#include "libhcrt/core.h"
#include "libhcrt/observe.h"
#include "sched/pool.h"

HCRT_ABI_EXPORT volatile int32_t __hcrt_migrate_pending = 0;

typedef struct loop_counters {
    uint64_t dispatch_inits;
    uint64_t made_monotonic; /* inits whose schedule hcrt changed */
    uint64_t runtime_resolved;
    uint64_t default_loops; /* clause-less loops (the pragma scan's marker) */
    uint64_t hints[3];      /* by hcrt_sched_hint_kind_t */
    uint64_t migration_points;
} loop_counters_t;

static loop_counters_t counters;

typedef struct sched_hint {
    int32_t kind, percent, line;
    const char *file;
} sched_hint_t;

/* initial-exec: one TLS load on the dispatch path, no __tls_get_addr call. */
static _Thread_local sched_hint_t pending_hint
    __attribute__((tls_model("initial-exec")));

#define COUNT(field)                                                           \
    do {                                                                       \
        if (HCRT_UNLIKELY(hcrt__stats_on))                                     \
            __atomic_fetch_add(&counters.field, 1, __ATOMIC_RELAXED);          \
    } while (0)

/* schedule(runtime) resolved here from the run-sched ICV, because libomp
 * re-derives the modifier from the ICV and would choose stealing again. */
static int32_t resolve_runtime(int64_t *chunk)
{
    hcrt_omp_sched_t kind;
    int c;

    omp_get_schedule(&kind, &c);
    COUNT(runtime_resolved);
    switch (kind & 0x7fffffff) {
    case 1:
        *chunk = c > 0 ? c : 0;
        return c > 0 ? KMP_SCH_STATIC_CHUNKED : KMP_SCH_STATIC;
    case 2:
        *chunk = c > 0 ? c : 1;
        return KMP_SCH_DYNAMIC_CHUNKED;
    case 3:
        *chunk = c > 0 ? c : 1;
        return KMP_SCH_GUIDED_CHUNKED;
    case 4:
        return KMP_SCH_AUTO;
    default:
        return KMP_SCH_RUNTIME; /* a libomp extension: leave it */
    }
}

/* The schedule hcrt hands libomp, and the chunk to go with it. */
static int32_t loop_schedule(int32_t sched, int64_t *chunk)
{
    int32_t base =
        sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC);

    if (HCRT_UNLIKELY(pending_hint.kind != HCRT_SCHED_HINT_NONE))
        pending_hint.kind = HCRT_SCHED_HINT_NONE;
    COUNT(dispatch_inits);
    if (hcrt__is_default_loop(sched, *chunk)) {
        *chunk = 0; /* a marker loop nested too deep for the fast path */
        return KMP_SCH_STATIC | KMP_SCH_MODIFIER_MONOTONIC;
    }
    if (base == KMP_SCH_RUNTIME)
        base = resolve_runtime(chunk);
    if ((sched & KMP_SCH_MODIFIER_MONOTONIC) == 0)
        COUNT(made_monotonic);
    return base | KMP_SCH_MODIFIER_MONOTONIC;
}

/* A loop without a schedule clause (the pragma scan's marker) on one node:
 * schedule(static), computed by libomp's static init as for clang
 * -fopenmp, and handed out by dispatch_next as the thread's one chunk;
 * going through libomp's dispatcher costs ~2 us per loop in its shared
 * dispatch buffers. One record per nesting level: a nested parallel
 * region's master is the same thread, inside the outer loop's chunk. */
#define FAST_LEVELS 4
typedef struct static_once {
    uint8_t active, given;
    int32_t last;
    uint64_t lo, hi;
    int64_t stride;
} static_once_t;
static _Thread_local static_once_t static_once[FAST_LEVELS]
    __attribute__((tls_model("initial-exec")));
/* active records of this thread: the other loops' paths test only this */
static _Thread_local int static_once_live
    __attribute__((tls_model("initial-exec")));

/* Ends the record of level `lv` (also when a loop left early, by cancel
 * for, never asked for its end: the next loop at the level clears it). */
static inline void static_once_end(int lv)
{
    if (static_once[lv].active) {
        static_once[lv].active = 0;
        static_once_live--;
    }
}

/* The record of the marker loop this thread runs at its current level,
 * or NULL when the level has none. */
static inline static_once_t *static_once_here(void)
{
    if (HCRT_LIKELY(!static_once_live))
        return NULL;
    int lv = omp_get_level();
    return lv < FAST_LEVELS && static_once[lv].active ? &static_once[lv] : NULL;
}

/* With cancellation on (one node, or a loop libomp runs in a cluster
 * region): the libomp dispatch loop the thread runs, so that a thread
 * cancelling it, or seeing it cancelled, can run it out. libomp 19 expects
 * every thread of a dispatch loop to ask for chunks until it gets none;
 * a thread that leaves early (clang's code for cancel) leaves the loop's
 * shared dispatch buffer unfinished, and a later dynamic loop using that
 * buffer loses iterations or hangs. */
int hcrt__loops_cancel_on;
typedef void (*drain_fn_t)(hcrt_ident_t *loc, int32_t gtid);
static _Thread_local drain_fn_t drain_fn
    __attribute__((tls_model("initial-exec")));

void hcrt__loops_cancel_drain(hcrt_ident_t *loc, int32_t gtid)
{
    drain_fn_t fn = drain_fn;

    if (!fn)
        return;
    drain_fn = NULL;
    fn(loc, gtid);
}

#define CL_HERE (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__cluster_here())
/* 64-bit pattern of a loop value: sign- or zero-extended by its type. */
#define CL_U64(SGN, v) ((SGN) ? (uint64_t)(int64_t)(v) : (uint64_t)(v))

#define HCRT_DEF_LOOP(sfx, T, ST, SGN)                                         \
    static void drain_##sfx(hcrt_ident_t *loc, int32_t gtid)                   \
    {                                                                          \
        int32_t last;                                                          \
        T lo, hi;                                                              \
        ST st;                                                                 \
        while (__kmpc_dispatch_next_##sfx(loc, gtid, &last, &lo, &hi, &st))    \
            ;                                                                  \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_for_static_init_##sfx(                         \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
        T *plower, T *pupper, ST *pstride, ST incr, ST chunk)                  \
    {                                                                          \
        if (CL_HERE) {                                                         \
            uint64_t lo = CL_U64(SGN, *plower), hi = CL_U64(SGN, *pupper);     \
            int64_t st = 0;                                                    \
            hcrt__cl_static_init(loc, sched, plast, &lo, &hi, &st, incr,       \
                                 chunk, SGN, (int)sizeof(T));                  \
            *plower = (T)lo, *pupper = (T)hi, *pstride = (ST)st;               \
            return;                                                            \
        }                                                                      \
        __kmpc_for_static_init_##sfx(loc, gtid, sched, plast, plower, pupper,  \
                                     pstride, incr, chunk);                    \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_dist_for_static_init_##sfx(                    \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, int32_t *plast,        \
        T *plower, T *pupper, T *pupperd, ST *pstride, ST incr, ST chunk)      \
    {                                                                          \
        if (CL_HERE)                                                           \
            hcrt__cluster_unsupported(loc, "distribute");                      \
        __kmpc_dist_for_static_init_##sfx(loc, gtid, sched, plast, plower,     \
                                          pupper, pupperd, pstride, incr,      \
                                          chunk);                              \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_team_static_init_##sfx(                        \
        hcrt_ident_t *loc, int32_t gtid, int32_t *plast, T *plower, T *pupper, \
        ST *pstride, ST incr, ST chunk)                                        \
    {                                                                          \
        __kmpc_team_static_init_##sfx(loc, gtid, plast, plower, pupper,        \
                                      pstride, incr, chunk);                   \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_dispatch_init_##sfx(                           \
        hcrt_ident_t *loc, int32_t gtid, int32_t sched, T lb, T ub, ST st,     \
        ST chunk)                                                              \
    {                                                                          \
        if (CL_HERE) {                                                         \
            hcrt__cl_dispatch_init(loc, sched, CL_U64(SGN, lb),                \
                                   CL_U64(SGN, ub), st, chunk, SGN,            \
                                   (int)sizeof(T));                            \
            return;                                                            \
        }                                                                      \
        int lv;                                                                \
        if (hcrt__is_default_loop(sched, chunk) &&                             \
            (lv = omp_get_level()) < FAST_LEVELS) {                            \
            static_once_t *o = &static_once[lv];                               \
            T lo = lb, hi = ub;                                                \
            ST stride = 0;                                                     \
            int32_t last = 0;                                                  \
            COUNT(default_loops);                                              \
            __kmpc_for_static_init_##sfx(loc, gtid, KMP_SCH_STATIC, &last,     \
                                         &lo, &hi, &stride, st, 1);            \
            static_once_live += !o->active;                                    \
            o->active = 1;                                                     \
            o->given = st > 0 ? lo > hi : lo < hi; /* an empty block */        \
            o->lo = (uint64_t)lo, o->hi = (uint64_t)hi;                        \
            o->stride = stride, o->last = last;                                \
            return;                                                            \
        }                                                                      \
        if (HCRT_UNLIKELY(static_once_live) &&                                 \
            (lv = omp_get_level()) < FAST_LEVELS)                              \
            static_once_end(lv);                                               \
        int64_t c = chunk;                                                     \
        int32_t s = loop_schedule(sched, &c);                                  \
        __kmpc_dispatch_init_##sfx(loc, gtid, s, lb, ub, st, (ST)c);           \
        if (HCRT_UNLIKELY(hcrt__loops_cancel_on))                              \
            drain_fn = drain_##sfx;                                            \
    }                                                                          \
    HCRT_ABI_EXPORT int32_t __hcrt_dispatch_next_##sfx(                        \
        hcrt_ident_t *loc, int32_t gtid, int32_t *plast, T *plower, T *pupper, \
        ST *pstride)                                                           \
    {                                                                          \
        if (CL_HERE) {                                                         \
            uint64_t lo, hi;                                                   \
            int64_t st;                                                        \
            if (!hcrt__cl_dispatch_next(plast, &lo, &hi, &st))                 \
                return 0;                                                      \
            *plower = (T)lo, *pupper = (T)hi;                                  \
            if (pstride)                                                       \
                *pstride = (ST)st;                                             \
            return 1;                                                          \
        }                                                                      \
        static_once_t *o = static_once_here();                                 \
        if (o) {                                                               \
            if (o->given) {                                                    \
                o->active = 0;                                                 \
                static_once_live--;                                            \
                __kmpc_for_static_fini(loc, gtid);                             \
                return 0;                                                      \
            }                                                                  \
            o->given = 1;                                                      \
            *plower = (T)o->lo, *pupper = (T)o->hi;                            \
            if (plast)                                                         \
                *plast = o->last;                                              \
            if (pstride)                                                       \
                *pstride = (ST)o->stride;                                      \
            return 1;                                                          \
        }                                                                      \
        int32_t more = __kmpc_dispatch_next_##sfx(loc, gtid, plast, plower,    \
                                                  pupper, pstride);            \
        if (HCRT_UNLIKELY(!more) && hcrt__loops_cancel_on)                     \
            drain_fn = NULL;                                                   \
        return more;                                                           \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_dispatch_fini_##sfx(hcrt_ident_t *loc,         \
                                                    int32_t gtid)              \
    {                                                                          \
        if (CL_HERE) {                                                         \
            hcrt__cl_dispatch_fini();                                          \
            return;                                                            \
        }                                                                      \
        __kmpc_dispatch_fini_##sfx(loc, gtid);                                 \
    }

HCRT_DEF_LOOP(4, int32_t, int32_t, 1)
HCRT_DEF_LOOP(4u, uint32_t, int32_t, 0)
HCRT_DEF_LOOP(8, int64_t, int64_t, 1)
HCRT_DEF_LOOP(8u, uint64_t, int64_t, 0)
#undef HCRT_DEF_LOOP

HCRT_ABI_EXPORT void __hcrt_dispatch_deinit(hcrt_ident_t *loc, int32_t gtid)
{
    if (CL_HERE)
        return;
    __kmpc_dispatch_deinit(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_for_static_fini(hcrt_ident_t *loc, int32_t gtid)
{
    HCRT_OBS(hcrt__obs_loop_end());
    __kmpc_for_static_fini(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_ordered(hcrt_ident_t *loc, int32_t gtid)
{
    if (CL_HERE) {
        hcrt__cl_ordered(loc);
        return;
    }
    __kmpc_ordered(loc, gtid);
}

HCRT_ABI_EXPORT void __hcrt_end_ordered(hcrt_ident_t *loc, int32_t gtid)
{
    if (CL_HERE) {
        hcrt__cl_end_ordered();
        return;
    }
    __kmpc_end_ordered(loc, gtid);
}

/* A hint given outside a parallel region applies to the team forked next:
 * the head sends it with the fork (cluster.c) and every thread of the
 * region takes it at its first dynamic loop. */
static struct {
    uint32_t gen;
    int32_t kind, percent;
} region_hint;
static _Thread_local uint32_t region_hint_seen;

HCRT_ABI_EXPORT void __hcrt_sched_hint(int32_t kind, int32_t percent,
                                       const char *file, int32_t line)
{
    if (kind < HCRT_SCHED_HINT_NONE || kind > HCRT_SCHED_HINT_HETPROBE_I) {
        hcrt_warn(HCRT_MOD_SCHED,
                  "%s:%d: unknown schedule hint kind %d ignored (rebuild with "
                  "the hcc matching this runtime)",
                  file ? file : "?", (int)line, (int)kind);
        return;
    }
    if (percent < 0 || percent > 100) {
        hcrt_warn(HCRT_MOD_SCHED,
                  "%s:%d: schedule hint percentage %d is not in 1..100; the "
                  "setting's default is used",
                  file ? file : "?", (int)line, (int)percent);
        percent = 0;
    }
    COUNT(hints[kind]);
    /* One node has no cross-node schedule to pick: the loop then runs with
     * libomp's runtime schedule. */
    pending_hint = (sched_hint_t){kind, percent, line, file};
}

void hcrt__loops_take_region_hint(int32_t *kind, int32_t *percent)
{
    *kind = pending_hint.kind, *percent = pending_hint.percent;
    pending_hint.kind = HCRT_SCHED_HINT_NONE;
}

void hcrt__loops_set_region_hint(int32_t kind, int32_t percent)
{
    region_hint.kind = kind, region_hint.percent = percent;
    __atomic_fetch_add(&region_hint.gen, 1, __ATOMIC_RELEASE);
}

int hcrt__loops_take_hint(int *percent)
{
    int32_t kind = pending_hint.kind;

    *percent = pending_hint.percent;
    pending_hint.kind = HCRT_SCHED_HINT_NONE;
    uint32_t g = __atomic_load_n(&region_hint.gen, __ATOMIC_ACQUIRE);
    if (g != region_hint_seen) { /* first loop of this thread in the region */
        region_hint_seen = g;
        if (kind == HCRT_SCHED_HINT_NONE)
            kind = region_hint.kind, *percent = region_hint.percent;
    }
    return kind;
}

/* OMP_SCHEDULE=hetprobe[_i][,pct]: libomp does not know these kinds, so
 * before it reads the environment the value becomes "auto" (the spec's
 * "implementation's choice") and the choice is remembered here. */
static int env_kind = -1, env_pct;

__attribute__((constructor)) static void omp_schedule_env(void)
{
    const char *v = getenv("OMP_SCHEDULE");
    /* The DSM re-executes the program (no ASLR) with this environment:
     * the rewritten value then comes with the original next to it. */
    const char *orig = getenv("HCC_OMP_SCHEDULE_SEEN");
    if (v && orig && strcmp(v, "auto") == 0)
        v = orig;
    if (!v)
        return;
    while (*v == ' ')
        v++;
    if (strncmp(v, "hetprobe", 8) != 0)
        return;
    const char *rest = v + 8;
    int kind = HCRT_CLP_HETPROBE;
    if (strncmp(rest, "_i", 2) == 0)
        kind = HCRT_CLP_HETPROBE_I, rest += 2;
    while (*rest == ' ')
        rest++;
    if (*rest == ',') {
        char *end;
        long pct = strtol(rest + 1, &end, 10);
        while (*end == ' ')
            end++;
        if (pct < 1 || pct > 100 || *end)
            return; /* left for libomp, which says it is invalid */
        env_pct = (int)pct;
    } else if (*rest) {
        return;
    }
    env_kind = kind;
    setenv("HCC_OMP_SCHEDULE_SEEN", v, 1);
    setenv("OMP_SCHEDULE", "auto", 1);
}

int hcrt__cl_sched_default(int32_t *plain, int *pct)
{
    static const int32_t plain_of[] = {
        0, 0, KMP_SCH_STATIC, KMP_SCH_DYNAMIC_CHUNKED, KMP_SCH_GUIDED_CHUNKED};
    if (env_kind >= 0) {
        *pct = env_pct;
        return env_kind;
    }
    /* the order of the setting's choices: hetprobe|hetprobe_i|static|... */
    int d = hcrt__config_enum("HCRT_SCHED_DEFAULT");
    if (d == 0)
        return HCRT_CLP_HETPROBE;
    if (d == 1)
        return HCRT_CLP_HETPROBE_I;
    *plain = d >= 2 && d <= 4 ? plain_of[d] : KMP_SCH_STATIC;
    return -1;
}

HCRT_ABI_EXPORT void __hcrt_migration_point(hcrt_ident_t *loc, int32_t gtid)
{
    (void)loc, (void)gtid;
    __atomic_fetch_add(&counters.migration_points, 1, __ATOMIC_RELAXED);
}

static int print_loops(FILE *out, void *arg)
{
    (void)arg;
    fprintf(out,
            "dynamic loop inits %" PRIu64 " (made monotonic %" PRIu64
            ", schedule(runtime) resolved %" PRIu64
            ", without a schedule clause %" PRIu64 ")\n",
            counters.dispatch_inits, counters.made_monotonic,
            counters.runtime_resolved, counters.default_loops);
    fprintf(out,
            "schedule hints: hetprobe %" PRIu64 ", hetprobe_i %" PRIu64 "\n",
            counters.hints[1], counters.hints[2]);
    fprintf(out, "migration points %" PRIu64 "\n", counters.migration_points);
    return counters.dispatch_inits || counters.hints[1] || counters.hints[2] ||
           counters.migration_points;
}

void hcrt__loops_stats_init(void)
{
    hcrt__loops_cancel_on = omp_get_cancellation() != 0; /* fixed at start */
    hcrt__stats_register("loops", print_loops, NULL);
    hcrt__cl_sched_stats_init();
}
