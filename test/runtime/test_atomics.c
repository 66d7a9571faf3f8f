/*
 * test_atomics.c - every __hcrt_atomic_* op at every width: returned old
 * values, stored results, signed vs unsigned min/max, CAS success and
 * failure, floating point ops; then contended adds from a team.
 */
#include <math.h>

#include "rt_test.h"

#define SEQ __ATOMIC_SEQ_CST

/* Runs every integer op on a cell of width N; `neg` is -1 in that width. */
#define TEST_INT(N, T)                                                         \
    static void test_int_##N(void)                                             \
    {                                                                          \
        T x = 10, neg = (T) - 1;                                               \
        CHECK_EQ(__hcrt_atomic_xchg_##N(&x, 3, SEQ), 10);                      \
        CHECK_EQ(x, 3);                                                        \
        CHECK_EQ(__hcrt_atomic_add_##N(&x, 4, SEQ), 3);                        \
        CHECK_EQ(x, 7);                                                        \
        CHECK_EQ(__hcrt_atomic_sub_##N(&x, 2, __ATOMIC_RELAXED), 7);           \
        CHECK_EQ(x, 5);                                                        \
        CHECK_EQ(__hcrt_atomic_and_##N(&x, 4, SEQ), 5);                        \
        CHECK_EQ(x, 4);                                                        \
        CHECK_EQ(__hcrt_atomic_or_##N(&x, 3, SEQ), 4);                         \
        CHECK_EQ(x, 7);                                                        \
        CHECK_EQ(__hcrt_atomic_xor_##N(&x, 5, SEQ), 7);                        \
        CHECK_EQ(x, 2);                                                        \
        CHECK_EQ(__hcrt_atomic_nand_##N(&x, 3, SEQ), 2);                       \
        CHECK_EQ(x, (T) ~(T)2);                                                \
        x = 5;                                                                 \
        /* signed: -1 < 5; unsigned: 0xff.. > 5 */                             \
        CHECK_EQ(__hcrt_atomic_max_##N(&x, neg, SEQ), 5);                      \
        CHECK_EQ(x, 5);                                                        \
        CHECK_EQ(__hcrt_atomic_min_##N(&x, neg, SEQ), 5);                      \
        CHECK_EQ(x, neg);                                                      \
        CHECK_EQ(__hcrt_atomic_umin_##N(&x, 9, SEQ), neg);                     \
        CHECK_EQ(x, 9);                                                        \
        CHECK_EQ(__hcrt_atomic_umax_##N(&x, neg, SEQ), 9);                     \
        CHECK_EQ(x, neg);                                                      \
        CHECK_EQ(__hcrt_atomic_umax_##N(&x, 1, SEQ), neg);                     \
        CHECK_EQ(x, neg);                                                      \
        x = 8;                                                                 \
        CHECK_EQ(__hcrt_atomic_max_##N(&x, 12, __ATOMIC_ACQ_REL), 8);          \
        CHECK_EQ(x, 12);                                                       \
        CHECK_EQ(__hcrt_atomic_cas_##N(&x, 11, 1, SEQ, SEQ), 12);              \
        CHECK_EQ(x, 12);                                                       \
        CHECK_EQ(__hcrt_atomic_cas_##N(&x, 12, 1, SEQ, __ATOMIC_ACQUIRE), 12); \
        CHECK_EQ(x, 1);                                                        \
        __hcrt_atomic_store_##N(&x, 77, __ATOMIC_RELEASE);                     \
        CHECK_EQ(__hcrt_atomic_load_##N(&x, __ATOMIC_ACQUIRE), 77);            \
    }

TEST_INT(1, uint8_t)
TEST_INT(2, uint16_t)
TEST_INT(4, uint32_t)
TEST_INT(8, uint64_t)

#define TEST_FP(S, FT)                                                         \
    static void test_fp_##S(void)                                              \
    {                                                                          \
        FT x = 1.5;                                                            \
        CHECK_DEQ(__hcrt_atomic_fadd_##S(&x, 2.25, SEQ), 1.5);                 \
        CHECK_DEQ(x, 3.75);                                                    \
        CHECK_DEQ(__hcrt_atomic_fsub_##S(&x, 0.75, SEQ), 3.75);                \
        CHECK_DEQ(x, 3.0);                                                     \
        CHECK_DEQ(__hcrt_atomic_fmax_##S(&x, -8.0, SEQ), 3.0);                 \
        CHECK_DEQ(x, 3.0);                                                     \
        CHECK_DEQ(__hcrt_atomic_fmax_##S(&x, 9.5, SEQ), 3.0);                  \
        CHECK_DEQ(x, 9.5);                                                     \
        CHECK_DEQ(__hcrt_atomic_fmin_##S(&x, -2.0, SEQ), 9.5);                 \
        CHECK_DEQ(x, -2.0);                                                    \
        CHECK_DEQ(__hcrt_atomic_fmin_##S(&x, (FT)NAN, SEQ), -2.0);             \
        CHECK_DEQ(x, -2.0); /* minnum ignores a NaN operand */                 \
    }

TEST_FP(f32, float)
TEST_FP(f64, double)

typedef struct counters {
    uint8_t c1;
    uint16_t c2;
    uint32_t c4;
    uint64_t c8;
    double f;
    int64_t max;
} counters_t;

RT_REGION(contend, 0x4001, 1);
static void contend_body(int32_t gtid, int32_t btid, void **args)
{
    counters_t *c = args[0];

    (void)gtid;
    for (int i = 0; i < 10000; i++) {
        __hcrt_atomic_add_1(&c->c1, 1, SEQ);
        __hcrt_atomic_add_2(&c->c2, 1, SEQ);
        __hcrt_atomic_add_4(&c->c4, 1, SEQ);
        __hcrt_atomic_add_8(&c->c8, 1, SEQ);
        __hcrt_atomic_fadd_f64(&c->f, 0.5, SEQ);
        __hcrt_atomic_max_8(&c->max, (uint64_t)(int64_t)(btid * 10000 + i),
                            SEQ);
    }
}

static void test_contended(int n)
{
    counters_t c = {0, 0, 0, 0, 0.0, -1};
    void *args[1] = {&c};

    rt_fork(&contend_region, n, args);
    CHECK_EQ(c.c1, (uint8_t)(10000 * n));
    CHECK_EQ(c.c2, (uint16_t)(10000 * n));
    CHECK_EQ(c.c4, 10000 * n);
    CHECK_EQ(c.c8, 10000 * n);
    CHECK_DEQ(c.f, 5000.0 * n);
    CHECK_EQ(c.max, (n - 1) * 10000 + 9999);
}

int main(void)
{
    test_int_1();
    test_int_2();
    test_int_4();
    test_int_8();
    test_fp_f32();
    test_fp_f64();
    for (int n = 1; n <= 3; n++)
        test_contended(n);
    return rt_report("test_atomics");
}
