/*
 * test_util.h - a tiny check macro and a seeded random generator for the
 * HetProbe unit tests (plain executables: `test_x NAME` runs one test and
 * returns its failure count).
 */
#ifndef HCRT_TEST_SCHED_UTIL_H
#define HCRT_TEST_SCHED_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined once, in the file holding main (TEST_MAIN). */
extern int g_failures;
#ifdef TEST_MAIN
int g_failures;
#endif

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            g_failures++;                                                      \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* Stops a test at its first failure when going on would only cascade. */
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        int ok_ = (cond) != 0;                                                 \
        CHECK(ok_, __VA_ARGS__);                                               \
        if (!ok_)                                                              \
            return;                                                            \
    } while (0)

typedef struct rng {
    uint64_t s;
} rng_t;

static inline uint64_t rng_next(rng_t *r)
{
    uint64_t x = r->s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->s = x;
}

/* Uniform in [0, n) (n > 0). */
static inline uint64_t rng_below(rng_t *r, uint64_t n)
{
    return rng_next(r) % n;
}

static inline double rng_unit(rng_t *r)
{
    return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

typedef struct test_case {
    const char *name;
    void (*fn)(void);
} test_case_t;

/* Runs the test named argv[1] (or all of them) and returns failures. */
static inline int run_tests(const test_case_t *tests, int argc, char **argv)
{
    int ran = 0;
    for (const test_case_t *t = tests; t->name != NULL; t++) {
        if (argc > 1 && strcmp(argv[1], t->name) != 0)
            continue;
        int before = g_failures;
        t->fn();
        ran++;
        fprintf(stderr, "%s: %s\n", t->name,
                g_failures == before ? "ok" : "FAILED");
    }
    if (ran == 0) {
        fprintf(stderr, "no test named %s; tests:", argc > 1 ? argv[1] : "");
        for (const test_case_t *t = tests; t->name != NULL; t++)
            fprintf(stderr, " %s", t->name);
        fputc('\n', stderr);
        return 2;
    }
    return g_failures > 0;
}

#endif /* HCRT_TEST_SCHED_UTIL_H */
