/*
 * check.h - the checks of hcc's C tests, one header for all of them
 * (test/runtime, test/offload, test/sched, test/heft).
 *
 * CHECK* print the values on failure and count it in check_failures (one
 * counter per program, whatever file checks: a weak definition here);
 * check_run runs the test cases named on the command line (all without a
 * name, or with "all") and returns 1 on a failure, 2 for an unknown name.
 */
#ifndef HCC_TEST_CHECK_H
#define HCC_TEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((weak)) int check_failures;

static inline void check_failed(void)
{
    __atomic_fetch_add(&check_failures, 1, __ATOMIC_RELAXED);
}

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            check_failed();                                                    \
        }                                                                      \
    } while (0)

/* With a message (printf arguments) after the condition. */
#define CHECKF(cond, ...)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
            check_failed();                                                    \
        }                                                                      \
    } while (0)

/* Stops a test (returns from it) at its first failure when going on would
 * only cascade. */
#define REQUIRE(cond, ...)                                                     \
    do {                                                                       \
        int ok_ = (cond) != 0;                                                 \
        CHECKF(ok_, __VA_ARGS__);                                              \
        if (!ok_)                                                              \
            return;                                                            \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long va_ = (long long)(a), vb_ = (long long)(b);                  \
        if (va_ != vb_) {                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",          \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                     \
            check_failed();                                                    \
        }                                                                      \
    } while (0)

#define CHECK_DEQ(a, b)                                                        \
    do {                                                                       \
        double va_ = (double)(a), vb_ = (double)(b);                           \
        if (va_ != vb_) {                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %g != %g\n", __FILE__,    \
                    __LINE__, #a, #b, va_, vb_);                               \
            check_failed();                                                    \
        }                                                                      \
    } while (0)

/* ---- test cases by name ------------------------------------------------ */

typedef struct check_case {
    const char *name;
    void (*fn)(void);
} check_case_t;

/* Runs the cases named in argv[1..] (every case without a name or with
 * "all") of `cases`, a table ended by {NULL, NULL}. */
static inline int check_run(int argc, char **argv, const check_case_t *cases)
{
    int ran = 0;

    for (const check_case_t *c = cases; c->name; c++) {
        int want = argc < 2;
        for (int a = 1; a < argc; a++)
            want |= !strcmp(argv[a], "all") || !strcmp(argv[a], c->name);
        if (!want)
            continue;
        int before = check_failures;
        c->fn();
        fprintf(stderr, "%s: %s\n", c->name,
                check_failures == before ? "ok" : "FAILED");
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "no test named %s; tests:", argc > 1 ? argv[1] : "");
        for (const check_case_t *c = cases; c->name; c++)
            fprintf(stderr, " %s", c->name);
        fputc('\n', stderr);
        return 2;
    }
    return check_failures ? 1 : 0;
}

/* ---- a seeded generator (xorshift) ------------------------------------- */

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

#endif /* HCC_TEST_CHECK_H */
