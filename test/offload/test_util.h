/*
 * test_util.h - a tiny test runner for the offload unit tests: one test per
 * command-line name (one ctest each), checks print the values on failure.
 */
#ifndef HCRT_TEST_OFFLOAD_UTIL_H
#define HCRT_TEST_OFFLOAD_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int t_failures;

#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #c);                                                       \
            t_failures++;                                                      \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long va_ = (long long)(a), vb_ = (long long)(b);                  \
        if (va_ != vb_) {                                                      \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n",          \
                    __FILE__, __LINE__, #a, #b, va_, vb_);                     \
            t_failures++;                                                      \
        }                                                                      \
    } while (0)

typedef struct t_case {
    const char *name;
    void (*fn)(void);
} t_case_t;

static int t_main(int argc, char **argv, const t_case_t *cases, int n)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <test>|all\n", argv[0]);
        return 2;
    }
    int ran = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(argv[1], "all") || !strcmp(argv[1], cases[i].name)) {
            int before = t_failures;
            cases[i].fn();
            printf("%s: %s\n", cases[i].name,
                   t_failures == before ? "ok" : "FAILED");
            ran++;
        }
    if (!ran) {
        fprintf(stderr, "no test named '%s'\n", argv[1]);
        return 2;
    }
    return t_failures ? 1 : 0;
}

#endif
