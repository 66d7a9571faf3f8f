/*
 * atomic.c - atomics on DSM memory, performed at the page's home.
 *
 * Cached copies can be stale, so every atomic (loads too) runs on the
 * home's master copy through its alias view with the CPU's own atomic
 * instructions; the home's threads and its service thread therefore agree.
 * The first atomic write to a page marks it written by "atomics" in the
 * directory, so no rank keeps an exempt copy of it across acquires. The
 * calling rank's own copy of the page is dropped after a write, so the
 * thread's later plain reads see what its atomic wrote.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "dsm/dsm_int.h"

#define INT_OP(T, P, OP, V, E)                                                 \
    do {                                                                       \
        T *q_ = (T *)(P), v_ = (T)(V), e_ = (T)(E), old;                       \
        switch (OP) {                                                          \
        case HCRT_DSM_AOP_LOAD:                                                \
            return (uint64_t)__atomic_load_n(q_, 5) & M;                       \
        case HCRT_DSM_AOP_STORE:                                               \
            old = __atomic_exchange_n(q_, v_, 5);                              \
            break;                                                             \
        case HCRT_DSM_AOP_XCHG:                                                \
            old = __atomic_exchange_n(q_, v_, 5);                              \
            break;                                                             \
        case HCRT_DSM_AOP_CAS:                                                 \
            old = e_;                                                          \
            __atomic_compare_exchange_n(q_, &old, v_, 0, 5, 5);                \
            break;                                                             \
        case HCRT_DSM_AOP_ADD:                                                 \
            old = __atomic_fetch_add(q_, v_, 5);                               \
            break;                                                             \
        case HCRT_DSM_AOP_SUB:                                                 \
            old = __atomic_fetch_sub(q_, v_, 5);                               \
            break;                                                             \
        case HCRT_DSM_AOP_AND:                                                 \
            old = __atomic_fetch_and(q_, v_, 5);                               \
            break;                                                             \
        case HCRT_DSM_AOP_NAND:                                                \
            old = __atomic_fetch_nand(q_, v_, 5);                              \
            break;                                                             \
        case HCRT_DSM_AOP_OR:                                                  \
            old = __atomic_fetch_or(q_, v_, 5);                                \
            break;                                                             \
        case HCRT_DSM_AOP_XOR:                                                 \
            old = __atomic_fetch_xor(q_, v_, 5);                               \
            break;                                                             \
        default:                                                               \
            old = cas_minmax_##T(q_, v_, OP);                                  \
            break;                                                             \
        }                                                                      \
        return (uint64_t)old & M;                                              \
    } while (0)

#define MINMAX(T, S)                                                           \
    static T cas_minmax_##T(T *q, T v, int op)                                 \
    {                                                                          \
        T old = __atomic_load_n(q, 5);                                         \
        for (;;) {                                                             \
            int take;                                                          \
            switch (op) {                                                      \
            case HCRT_DSM_AOP_MAX:                                             \
                take = (S)v > (S)old;                                          \
                break;                                                         \
            case HCRT_DSM_AOP_MIN:                                             \
                take = (S)v < (S)old;                                          \
                break;                                                         \
            case HCRT_DSM_AOP_UMAX:                                            \
                take = v > old;                                                \
                break;                                                         \
            default:                                                           \
                take = v < old;                                                \
                break;                                                         \
            }                                                                  \
            if (!take || __atomic_compare_exchange_n(q, &old, v, 0, 5, 5))     \
                return old;                                                    \
        }                                                                      \
    }
MINMAX(uint8_t, int8_t)
MINMAX(uint16_t, int16_t)
MINMAX(uint32_t, int32_t)
MINMAX(uint64_t, int64_t)

#define FP_OP(T, U, P, OP, V)                                                  \
    do {                                                                       \
        U *q = (U *)(P), bits = (U)(V), old = __atomic_load_n(q, 5), nw;       \
        T x, y, r;                                                             \
        if (OP != HCRT_DSM_AOP_ADD && OP != HCRT_DSM_AOP_SUB &&                \
            OP != HCRT_DSM_AOP_MAX && OP != HCRT_DSM_AOP_MIN)                  \
            break; /* bit-level ops: integer path */                           \
        memcpy(&y, &bits, sizeof y);                                           \
        for (;;) {                                                             \
            memcpy(&x, &old, sizeof x);                                        \
            switch (OP) {                                                      \
            case HCRT_DSM_AOP_ADD:                                             \
                r = x + y;                                                     \
                break;                                                         \
            case HCRT_DSM_AOP_SUB:                                             \
                r = x - y;                                                     \
                break;                                                         \
            case HCRT_DSM_AOP_MAX:                                             \
                r = y > x ? y : x;                                             \
                break;                                                         \
            default:                                                           \
                r = y < x ? y : x;                                             \
                break;                                                         \
            }                                                                  \
            memcpy(&nw, &r, sizeof nw);                                        \
            if (__atomic_compare_exchange_n(q, &old, nw, 0, 5, 5))             \
                return (uint64_t)old;                                          \
        }                                                                      \
    } while (0)

uint64_t hcrt__dsm_atomic_apply(void *p, int size, int type, int op, uint64_t v,
                                uint64_t e)
{
    if (type == HCRT_DSM_AT_FLOAT)
        FP_OP(float, uint32_t, p, op, v);
    else if (type == HCRT_DSM_AT_DOUBLE)
        FP_OP(double, uint64_t, p, op, v);
    switch (size) {
    case 1: {
        const uint64_t M = 0xff;
        INT_OP(uint8_t, p, op, v, e);
    }
    case 2: {
        const uint64_t M = 0xffff;
        INT_OP(uint16_t, p, op, v, e);
    }
    case 4: {
        const uint64_t M = 0xffffffffULL;
        INT_OP(uint32_t, p, op, v, e);
    }
    default: {
        const uint64_t M = ~0ULL;
        INT_OP(uint64_t, p, op, v, e);
    }
    }
}

static char *alias_of(uintptr_t addr, size_t *idx)
{
    dsm_area_t *a;
    long i = hcrt__dsm_page_index(addr, &a);
    *idx = (size_t)i;
    return a->alias + (addr - a->base);
}

/* Home: marks the page atomically written; returns ranks to tell. */
static uint64_t mark_atomic(size_t idx, int op)
{
    if (op == HCRT_DSM_AOP_LOAD)
        return 0;
    return hcrt__dsm_dir_add_writer(idx, DSM_ATOMIC_WRITER);
}

/* Is page idx no longer (or soon not) homed here (migrate.c)? Then an
 * atomic must wait for its new home. Under hcrt__dsm_mig_atomic_mu. */
static int moved_away(size_t idx)
{
    return dsm.migrate && (hcrt__dsm_migrate_moving(idx) ||
                           hcrt__dsm_home_known(idx) != dsm.rank);
}

void hcrt__dsm_atomic_serve(int src, dsm_msg_t *m)
{
    size_t idx;
    int op = (int)(m->d & 0xff), size = (int)((m->d >> 8) & 0xff);
    int type = (int)(m->d >> 16);
    char *p = alias_of(m->a, &idx);
    dsm_msg_t *r = malloc(sizeof *r);
    if (!r)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory serving an atomic");
    if (dsm.migrate)
        pthread_mutex_lock(&hcrt__dsm_mig_atomic_mu);
    if (moved_away(idx)) { /* c = 1: ask the new home */
        pthread_mutex_unlock(&hcrt__dsm_mig_atomic_mu);
        *r = (dsm_msg_t){M_ATOMIC_R, m->op, 0, 1, 1, 0};
        hcrt__dsm_defer(src, r, sizeof *r, NULL, 0, 0, idx, 1, 0);
        return;
    }
    uint64_t tell = mark_atomic(idx, op);
    uint64_t old = hcrt__dsm_atomic_apply(p, size, type, op, m->b, m->c);
    if (dsm.migrate)
        pthread_mutex_unlock(&hcrt__dsm_mig_atomic_mu);
    *r = (dsm_msg_t){M_ATOMIC_R, m->op, old, 1, 0, 0};
    hcrt__dsm_defer(src, r, sizeof *r, NULL, 0, 0, idx, 1, tell);
}

static int atomic_at(void *p, size_t idx, int size, hcrt_dsm_atype_t type,
                     hcrt_dsm_aop_t op, uint64_t operand, uint64_t expected,
                     int *homep, uint64_t *oldp);
static int moved_away(size_t idx);

static int has_release(int order)
{
    return order == __ATOMIC_RELEASE || order == __ATOMIC_ACQ_REL ||
           order == __ATOMIC_SEQ_CST;
}

static int has_acquire(int order)
{
    return order == __ATOMIC_ACQUIRE || order == __ATOMIC_ACQ_REL ||
           order == __ATOMIC_SEQ_CST || order == __ATOMIC_CONSUME;
}

uint64_t hcrt__dsm_atomic(void *p, int size, hcrt_dsm_atype_t type,
                          hcrt_dsm_aop_t op, uint64_t operand,
                          uint64_t expected, int order)
{
    if (!hcrt__dsm_contains(p))
        return hcrt__dsm_atomic_apply(p, size, (int)type, (int)op, operand,
                                      expected);
    if (has_release(order))
        hcrt__dsm_release();
    size_t idx = (size_t)hcrt__dsm_page_index((uintptr_t)p, NULL);
    int home;
    uint64_t old;
    while (!atomic_at(p, idx, size, type, op, operand, expected, &home, &old))
        sched_yield(); /* its home is moving (migrate.c): ask again */
    if (home != dsm.rank && op != HCRT_DSM_AOP_LOAD)
        hcrt__dsm_drop_page(idx); /* a copy here predates the atomic */
    if (has_acquire(order))
        hcrt__dsm_acquire();
    return old;
}

static void atomic_reply(dsm_op_t *op, void *msg, size_t len)
{
    (void)len;
    *(uint64_t *)op->arg = ((dsm_msg_t *)msg)->c;
}

/* The atomic at the home; 0 if the page's home moved meanwhile. */
static int atomic_at(void *p, size_t idx, int size, hcrt_dsm_atype_t type,
                     hcrt_dsm_aop_t op, uint64_t operand, uint64_t expected,
                     int *homep, uint64_t *oldp)
{
    int home = *homep = hcrt__dsm_home(idx);
    uint64_t old;
    if (home == dsm.rank) {
        uint64_t tell = mark_atomic(idx, (int)op);
        if (tell) /* exempt copies elsewhere are told first */
            hcrt__dsm_call(dsm.rank, M_WRITER, idx, 1, 0, tell);
        if (dsm.migrate)
            pthread_mutex_lock(&hcrt__dsm_mig_atomic_mu);
        if (moved_away(idx)) {
            pthread_mutex_unlock(&hcrt__dsm_mig_atomic_mu);
            return 0;
        }
        old = hcrt__dsm_atomic_apply(alias_of((uintptr_t)p, &idx), size,
                                     (int)type, (int)op, operand, expected);
        if (dsm.migrate)
            pthread_mutex_unlock(&hcrt__dsm_mig_atomic_mu);
    } else if (hcrt__dsm_shm_peer(home)) {
        /* Same-host home: the CPU's atomic on its master copy, the very
         * memory the home's threads and service thread operate on. */
        uint64_t tell =
            op == HCRT_DSM_AOP_LOAD
                ? 0
                : hcrt__dsm_dir_add_writer_at(hcrt__dsm_shm_dir(home, idx),
                                              home, DSM_ATOMIC_WRITER);
        if (tell)
            hcrt__dsm_call(home, M_WRITER, idx, 1, 1, tell);
        char *master =
            hcrt__dsm_shm_page(home, idx) + ((uintptr_t)p & (DSM_PAGE - 1));
        old = hcrt__dsm_atomic_apply(master, size, (int)type, (int)op, operand,
                                     expected);
        dsm_count(atomics_remote, 1);
    } else {
        uint64_t d =
            (uint64_t)op | ((uint64_t)size << 8) | ((uint64_t)type << 16);
        uint64_t retry = 0;
        dsm_msg_t m = {M_ATOMIC, 0, (uintptr_t)p, operand, expected, d};
        dsm_op_t o = {0};
        o.dest = home;
        o.sbuf = &m;
        o.slen = sizeof m;
        o.want_reply = 1;
        o.on_reply = atomic_reply;
        o.arg = &retry;
        hcrt__dsm_submit(&o);
        hcrt__dsm_wait(&o);
        if (retry)
            return 0;
        old = o.result;
        dsm_count(atomics_remote, 1);
    }
    *oldp = old;
    return 1;
}
