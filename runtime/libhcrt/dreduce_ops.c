/*
 * dreduce_ops.c - the built-in operators of the public reduction API over
 * its element types: out[i] = a[i] op b[i] (out may be a).
 */
#include <complex.h>
#include <stdint.h>

#include "libhcrt/dreduce_api.h"

#define LOOP(T, EXPR)                                                          \
    do {                                                                       \
        T *o = out;                                                            \
        const T *x = a, *y = b;                                                \
        for (size_t i = 0; i < n; i++)                                         \
            o[i] = EXPR;                                                       \
    } while (0)

#define ARITH(T)                                                               \
    case HCRT_OP_SUM:                                                          \
        LOOP(T, x[i] + y[i]);                                                  \
        return 1;                                                              \
    case HCRT_OP_PROD:                                                         \
        LOOP(T, x[i] * y[i]);                                                  \
        return 1;                                                              \
    case HCRT_OP_MIN:                                                          \
        LOOP(T, y[i] < x[i] ? y[i] : x[i]);                                    \
        return 1;                                                              \
    case HCRT_OP_MAX:                                                          \
        LOOP(T, y[i] > x[i] ? y[i] : x[i]);                                    \
        return 1;                                                              \
    case HCRT_OP_LAND:                                                         \
        LOOP(T, (T)(x[i] && y[i]));                                            \
        return 1;                                                              \
    case HCRT_OP_LOR:                                                          \
        LOOP(T, (T)(x[i] || y[i]));                                            \
        return 1

#define BITS(T)                                                                \
    case HCRT_OP_BAND:                                                         \
        LOOP(T, x[i] & y[i]);                                                  \
        return 1;                                                              \
    case HCRT_OP_BOR:                                                          \
        LOOP(T, x[i] | y[i]);                                                  \
        return 1;                                                              \
    case HCRT_OP_BXOR:                                                         \
        LOOP(T, x[i] ^ y[i]);                                                  \
        return 1

#define INTEGER(T)                                                             \
    switch (op) {                                                              \
        ARITH(T);                                                              \
        BITS(T);                                                               \
    default:                                                                   \
        return 0;                                                              \
    }

#define REAL(T)                                                                \
    switch (op) {                                                              \
        ARITH(T);                                                              \
    default:                                                                   \
        return 0;                                                              \
    }

#define COMPLEX(T)                                                             \
    switch (op) {                                                              \
    case HCRT_OP_SUM:                                                          \
        LOOP(T, x[i] + y[i]);                                                  \
        return 1;                                                              \
    case HCRT_OP_PROD:                                                         \
        LOOP(T, x[i] * y[i]);                                                  \
        return 1;                                                              \
    default:                                                                   \
        return 0;                                                              \
    }

/* Returns 0 for a pair the operator does not take. With n == 0 it only
 * checks the pair. */
int hcrt__dr_op_apply(hcrt_type_t t, hcrt_op_t op, void *out, const void *a,
                      const void *b, size_t n)
{
    switch (t) {
    case HCRT_INT8:
        INTEGER(int8_t);
    case HCRT_UINT8:
        INTEGER(uint8_t);
    case HCRT_INT16:
        INTEGER(int16_t);
    case HCRT_UINT16:
        INTEGER(uint16_t);
    case HCRT_INT32:
        INTEGER(int32_t);
    case HCRT_UINT32:
        INTEGER(uint32_t);
    case HCRT_INT64:
        INTEGER(int64_t);
    case HCRT_UINT64:
        INTEGER(uint64_t);
    case HCRT_FLOAT:
        REAL(float);
    case HCRT_DOUBLE:
        REAL(double);
    case HCRT_LONG_DOUBLE:
        REAL(long double);
    case HCRT_FLOAT_COMPLEX:
        COMPLEX(float _Complex);
    case HCRT_DOUBLE_COMPLEX:
        COMPLEX(double _Complex);
    default:
        return 0;
    }
}

size_t hcrt__dr_type_size(hcrt_type_t t)
{
    static const size_t sizes[HCRT_TYPE_COUNT] = {1,
                                                  1,
                                                  2,
                                                  2,
                                                  4,
                                                  4,
                                                  8,
                                                  8,
                                                  sizeof(float),
                                                  sizeof(double),
                                                  sizeof(long double),
                                                  sizeof(float _Complex),
                                                  sizeof(double _Complex)};
    return (unsigned)t < HCRT_TYPE_COUNT ? sizes[t] : 0;
}
