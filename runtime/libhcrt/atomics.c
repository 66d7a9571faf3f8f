/*
 * atomics.c - atomic operations of region code (atomicrmw, cmpxchg, atomic
 * load/store).
 *
 * On one node the hardware's atomics are exact, so each entry is one __atomic
 * builtin (or a CAS loop where there is no builtin). `order` is a run-time
 * __ATOMIC_* value; the builtins accept that and fall back to seq_cst for
 * values they do not know.
 */
#include <math.h>
#include <string.h>

#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"

/* Cluster mode: an atomic on DSM memory is performed at the page's home
 * (hcrt__dsm_atomic), so every node's threads agree; anything else (thread
 * stacks, libc memory) stays a CPU atomic, and so does every atomic of the
 * head while no region runs on other nodes (hcrt__cluster_head_alone_now:
 * BOTS floorplan counts its nodes with an atomic in tasks, 12 % of its
 * time at 2 ranks on the head alone). */
#define IN_DSM(p)                                                              \
    (HCRT_UNLIKELY(hcrt__cluster_on) && !hcrt__cluster_head_alone_now() &&     \
     hcrt__dsm_contains(p))
#define DSM_OP(p, N, AT, OP, v, e, order)                                      \
    hcrt__dsm_atomic((void *)(p), N, AT, HCRT_DSM_AOP_##OP, (uint64_t)(v),     \
                     (uint64_t)(e), order)

/* max/min compare as signed (ST) or unsigned (T) values of width N. */
#define CAS_MINMAX(name, T, CT, better)                                        \
    static inline T name(void *p, T v, int32_t order)                          \
    {                                                                          \
        T old = __atomic_load_n((T *)p, __ATOMIC_RELAXED);                     \
        while (better((CT)v, (CT)old) &&                                       \
               !__atomic_compare_exchange_n((T *)p, &old, v, 1, order,         \
                                            __ATOMIC_RELAXED))                 \
            ;                                                                  \
        return old;                                                            \
    }
#define GT(a, b) ((a) > (b))
#define LT(a, b) ((a) < (b))

#define HCRT_DEF_ATOMIC_INT(N, T, ST)                                          \
    CAS_MINMAX(max_##N, T, ST, GT)                                             \
    CAS_MINMAX(min_##N, T, ST, LT)                                             \
    CAS_MINMAX(umax_##N, T, T, GT)                                             \
    CAS_MINMAX(umin_##N, T, T, LT)                                             \
    HCRT_ABI_EXPORT T __hcrt_atomic_xchg_##N(void *p, T v, int32_t order)      \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, XCHG, v, 0, order);        \
        return __atomic_exchange_n((T *)p, v, order);                          \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_add_##N(void *p, T v, int32_t order)       \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, ADD, v, 0, order);         \
        return __atomic_fetch_add((T *)p, v, order);                           \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_sub_##N(void *p, T v, int32_t order)       \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, SUB, v, 0, order);         \
        return __atomic_fetch_sub((T *)p, v, order);                           \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_and_##N(void *p, T v, int32_t order)       \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, AND, v, 0, order);         \
        return __atomic_fetch_and((T *)p, v, order);                           \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_nand_##N(void *p, T v, int32_t order)      \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, NAND, v, 0, order);        \
        return __atomic_fetch_nand((T *)p, v, order);                          \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_or_##N(void *p, T v, int32_t order)        \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, OR, v, 0, order);          \
        return __atomic_fetch_or((T *)p, v, order);                            \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_xor_##N(void *p, T v, int32_t order)       \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, XOR, v, 0, order);         \
        return __atomic_fetch_xor((T *)p, v, order);                           \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_max_##N(void *p, T v, int32_t order)       \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, MAX, v, 0, order);         \
        return max_##N(p, v, order);                                           \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_min_##N(void *p, T v, int32_t order)       \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, MIN, v, 0, order);         \
        return min_##N(p, v, order);                                           \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_umax_##N(void *p, T v, int32_t order)      \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, UMAX, v, 0, order);        \
        return umax_##N(p, v, order);                                          \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_umin_##N(void *p, T v, int32_t order)      \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, UMIN, v, 0, order);        \
        return umin_##N(p, v, order);                                          \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_cas_##N(void *p, T expected, T desired,    \
                                            int32_t succ, int32_t fail)        \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, CAS, desired, expected,    \
                             succ);                                            \
        __atomic_compare_exchange_n((T *)p, &expected, desired, 0, succ,       \
                                    fail);                                     \
        return expected; /* the old value either way */                        \
    }                                                                          \
    HCRT_ABI_EXPORT T __hcrt_atomic_load_##N(const void *p, int32_t order)     \
    {                                                                          \
        if (IN_DSM(p))                                                         \
            return (T)DSM_OP(p, N, HCRT_DSM_AT_INT, LOAD, 0, 0, order);        \
        return __atomic_load_n((const T *)p, order);                           \
    }                                                                          \
    HCRT_ABI_EXPORT void __hcrt_atomic_store_##N(void *p, T v, int32_t order)  \
    {                                                                          \
        if (IN_DSM(p)) {                                                       \
            DSM_OP(p, N, HCRT_DSM_AT_INT, STORE, v, 0, order);                 \
            return;                                                            \
        }                                                                      \
        __atomic_store_n((T *)p, v, order);                                    \
    }

HCRT_DEF_ATOMIC_INT(1, uint8_t, int8_t)
HCRT_DEF_ATOMIC_INT(2, uint16_t, int16_t)
HCRT_DEF_ATOMIC_INT(4, uint32_t, int32_t)
HCRT_DEF_ATOMIC_INT(8, uint64_t, int64_t)
#undef HCRT_DEF_ATOMIC_INT

/* Floating point: a CAS loop on the bit pattern (IT) of the value (FT).
 * fmax/fmin follow LLVM's atomicrmw fmax/fmin, i.e. maxnum/minnum. */
#define HCRT_DEF_ATOMIC_FP(S, FT, IT, OP, AT, DOP)                             \
    HCRT_ABI_EXPORT FT __hcrt_atomic_##S(void *p, FT v, int32_t order)         \
    {                                                                          \
        if (IN_DSM(p)) {                                                       \
            IT vb, ob;                                                         \
            FT of;                                                             \
            memcpy(&vb, &v, sizeof(vb));                                       \
            ob = (IT)DSM_OP(p, (int)sizeof(FT), AT, DOP, vb, 0, order);        \
            memcpy(&of, &ob, sizeof(of));                                      \
            return of;                                                         \
        }                                                                      \
        IT old = __atomic_load_n((IT *)p, __ATOMIC_RELAXED), nbits;            \
        FT oldf, newf;                                                         \
        do {                                                                   \
            memcpy(&oldf, &old, sizeof(oldf));                                 \
            newf = OP(oldf, v);                                                \
            memcpy(&nbits, &newf, sizeof(nbits));                              \
        } while (!__atomic_compare_exchange_n((IT *)p, &old, nbits, 1, order,  \
                                              __ATOMIC_RELAXED));              \
        return oldf;                                                           \
    }

#define ADD(a, b) ((a) + (b))
#define SUB(a, b) ((a) - (b))
HCRT_DEF_ATOMIC_FP(fadd_f32, float, uint32_t, ADD, HCRT_DSM_AT_FLOAT, ADD)
HCRT_DEF_ATOMIC_FP(fsub_f32, float, uint32_t, SUB, HCRT_DSM_AT_FLOAT, SUB)
HCRT_DEF_ATOMIC_FP(fmax_f32, float, uint32_t, fmaxf, HCRT_DSM_AT_FLOAT, MAX)
HCRT_DEF_ATOMIC_FP(fmin_f32, float, uint32_t, fminf, HCRT_DSM_AT_FLOAT, MIN)
HCRT_DEF_ATOMIC_FP(fadd_f64, double, uint64_t, ADD, HCRT_DSM_AT_DOUBLE, ADD)
HCRT_DEF_ATOMIC_FP(fsub_f64, double, uint64_t, SUB, HCRT_DSM_AT_DOUBLE, SUB)
HCRT_DEF_ATOMIC_FP(fmax_f64, double, uint64_t, fmax, HCRT_DSM_AT_DOUBLE, MAX)
HCRT_DEF_ATOMIC_FP(fmin_f64, double, uint64_t, fmin, HCRT_DSM_AT_DOUBLE, MIN)
#undef HCRT_DEF_ATOMIC_FP
