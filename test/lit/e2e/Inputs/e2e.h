/*
 * e2e.h - helpers shared by the end-to-end OpenMP corpus.
 *
 * Every program prints only values that OpenMP semantics fix (so the output
 * is identical at any thread count and under any correct implementation)
 * and checks its results against a sequential computation: a broken
 * construct shows up both as an output difference from the clang build and
 * as a FAIL line plus a non-zero exit status.
 */
#ifndef E2E_H
#define E2E_H

#include <stdint.h>
#include <stdio.h>

static int e2e_failures; /* only touched outside parallel regions */

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            printf("FAIL line %d: ", __LINE__);                               \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
            e2e_failures++;                                                   \
        }                                                                     \
    } while (0)

/* FNV-1a over 64-bit values: an order-sensitive checksum of arrays. */
static inline uint64_t e2e_hash(uint64_t h, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        h ^= (v >> (8 * i)) & 0xff;
        h *= 1099511628211ull;
    }
    return h;
}
#define E2E_HASH_INIT 14695981039346656037ull

static inline uint64_t e2e_hash_longs(const long *a, long n)
{
    uint64_t h = E2E_HASH_INIT;
    for (long i = 0; i < n; i++)
        h = e2e_hash(h, (uint64_t)a[i]);
    return h;
}

static inline uint64_t e2e_hash_ints(const int *a, long n)
{
    uint64_t h = E2E_HASH_INIT;
    for (long i = 0; i < n; i++)
        h = e2e_hash(h, (uint64_t)(int64_t)a[i]);
    return h;
}

/* Doubles are hashed by bit pattern: any rounding difference shows. */
static inline uint64_t e2e_hash_doubles(const double *a, long n)
{
    uint64_t h = E2E_HASH_INIT;
    for (long i = 0; i < n; i++) {
        union { double d; uint64_t u; } c = {a[i]};
        h = e2e_hash(h, c.u);
    }
    return h;
}

/* The last line of every program: the verdict and the exit status. */
static inline int e2e_finish(const char *name)
{
    printf("%s: %s (%d failures)\n", name, e2e_failures ? "FAILED" : "ok",
           e2e_failures);
    return e2e_failures != 0;
}

#endif
