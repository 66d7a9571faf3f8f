/*
 * dsm_atomic.c - every atomic operation on 1/2/4/8-byte integers and on
 * float/double, from every rank at once, on variables homed on rank 0 and
 * on the last rank; results checked against what the operations imply.
 */
#include "dsm_test.h"

#define K 60 /* operations per rank per case */

typedef struct vars {
    uint64_t v[16];
} vars_t;

static uint64_t A(void *p, int size, hcrt_dsm_aop_t op, uint64_t v)
{
    return hcrt__dsm_atomic(p, size, HCRT_DSM_AT_INT, op, v, 0,
                            __ATOMIC_RELAXED);
}

static uint64_t mask(int size)
{
    return size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
}

static void set(void *p, int size, uint64_t v)
{
    A(p, size, HCRT_DSM_AOP_STORE, v);
}

static uint64_t get(void *p, int size)
{
    return A(p, size, HCRT_DSM_AOP_LOAD, 0);
}

static void sync_all(void)
{
    hcrt__dsm_barrier();
}

static void test_int(char *base, int size)
{
    char *x = base + 0, *y = base + 8;
    uint64_t m = mask(size), top = 1ULL << (8 * size - 1);
    /* add / sub */
    if (me == 0) {
        set(x, size, 0);
        set(y, size, 1000);
    }
    sync_all();
    for (int i = 0; i < K; i++) {
        A(x, size, HCRT_DSM_AOP_ADD, (uint64_t)me + 1);
        A(y, size, HCRT_DSM_AOP_SUB, 1);
    }
    sync_all();
    uint64_t s = (uint64_t)K * (uint64_t)nranks * (uint64_t)(nranks + 1) / 2;
    CHECK_EQ(get(x, size), s & m);
    CHECK_EQ(get(y, size), (1000 - (uint64_t)K * (uint64_t)nranks) & m);
    sync_all();
    /* and / or / xor / nand on per-rank bits */
    if (me == 0) {
        set(x, size, m);
        set(y, size, 0);
    }
    sync_all();
    uint64_t bit = 1ULL << (me % (8 * size));
    A(x, size, HCRT_DSM_AOP_AND, ~bit & m);
    A(y, size, HCRT_DSM_AOP_OR, bit);
    sync_all();
    uint64_t bits = 0;
    for (int r = 0; r < nranks; r++)
        bits |= 1ULL << (r % (8 * size));
    CHECK_EQ(get(x, size), m & ~bits);
    CHECK_EQ(get(y, size), bits);
    sync_all();
    if (me == 0)
        set(x, size, 0);
    sync_all();
    for (int i = 0; i < 3; i++)
        A(x, size, HCRT_DSM_AOP_XOR, bit);
    sync_all();
    CHECK_EQ(get(x, size), bits); /* odd count: each bit toggled on */
    sync_all();
    if (me == 0)
        set(x, size, m);
    sync_all();
    if (me == 0) {
        uint64_t old = A(x, size, HCRT_DSM_AOP_NAND, 1);
        CHECK_EQ(old, m);
        CHECK_EQ(get(x, size), ~1ULL & m);
    }
    sync_all();
    /* signed and unsigned min / max */
    if (me == 0) {
        set(x, size, 0);
        set(y, size, 0);
    }
    sync_all();
    uint64_t neg = (uint64_t)(-(int64_t)(me + 1)) & m; /* negative values */
    A(x, size, HCRT_DSM_AOP_MIN, neg);
    A(y, size, HCRT_DSM_AOP_MAX, neg);
    sync_all();
    CHECK_EQ(get(x, size), (uint64_t)(-(int64_t)nranks) & m);
    CHECK_EQ(get(y, size), 0);
    sync_all();
    if (me == 0) {
        set(x, size, top);
        set(y, size, top);
    }
    sync_all();
    A(x, size, HCRT_DSM_AOP_UMIN, (uint64_t)me + 1);
    A(y, size, HCRT_DSM_AOP_UMAX, neg);
    sync_all();
    CHECK_EQ(get(x, size), 1);
    CHECK_EQ(get(y, size), m); /* -1 is the largest unsigned value */
    sync_all();
    /* exchange conserves values; compare-exchange counts exactly */
    if (me == 0) {
        set(x, size, 0);
        set(y, size, 0);
    }
    sync_all();
    uint64_t got = 0;
    for (int i = 0; i < K; i++)
        got += A(x, size, HCRT_DSM_AOP_XCHG, 1);
    for (int i = 0; i < K; i++) {
        uint64_t old = get(y, size);
        while (hcrt__dsm_atomic(y, size, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS,
                                (old + 1) & m, old, __ATOMIC_RELAXED) != old)
            old = get(y, size);
    }
    uint64_t tot = 0;
    MPI_Allreduce(&got, &tot, 1, MPI_UINT64_T, MPI_SUM, hcrt__comm_world());
    sync_all();
    CHECK_EQ(tot + get(x, size), (uint64_t)K * (uint64_t)nranks);
    CHECK_EQ(get(y, size), ((uint64_t)K * (uint64_t)nranks) & m);
    sync_all();
}

static uint64_t fbits(double v, int dbl)
{
    uint64_t b = 0;
    if (dbl) {
        memcpy(&b, &v, 8);
    } else {
        float f = (float)v;
        memcpy(&b, &f, 4);
    }
    return b;
}

static double fval(uint64_t b, int dbl)
{
    if (dbl) {
        double d;
        memcpy(&d, &b, 8);
        return d;
    }
    float f;
    uint32_t w = (uint32_t)b;
    memcpy(&f, &w, 4);
    return f;
}

static void test_fp(char *base, int dbl)
{
    int size = dbl ? 8 : 4;
    hcrt_dsm_atype_t t = dbl ? HCRT_DSM_AT_DOUBLE : HCRT_DSM_AT_FLOAT;
    char *x = base + 0, *y = base + 8, *z = base + 16;
    if (me == 0) {
        set(x, size, fbits(0.5, dbl));
        set(y, size, fbits(0, dbl));
        set(z, size, fbits(0, dbl));
    }
    sync_all();
    for (int i = 0; i < K; i++) {
        hcrt__dsm_atomic(x, size, t, HCRT_DSM_AOP_ADD, fbits(1.0, dbl), 0, 0);
        hcrt__dsm_atomic(y, size, t, HCRT_DSM_AOP_SUB, fbits(0.25, dbl), 0, 0);
    }
    hcrt__dsm_atomic(z, size, t, HCRT_DSM_AOP_MAX, fbits(me * 1.5, dbl), 0, 0);
    sync_all();
    CHECK_DEQ(fval(get(x, size), dbl), 0.5 + (double)K * nranks);
    CHECK_DEQ(fval(get(y, size), dbl), -0.25 * K * nranks);
    CHECK_DEQ(fval(get(z, size), dbl), (nranks - 1) * 1.5);
    sync_all();
    hcrt__dsm_atomic(z, size, t, HCRT_DSM_AOP_MIN, fbits(-me - 0.5, dbl), 0, 0);
    sync_all();
    CHECK_DEQ(fval(get(z, size), dbl), -(nranks - 1) - 0.5);
    sync_all();
}

/* Atomics and plain accesses with acquire/release order publish data. */
static void test_ordering(char *flagp, long *data)
{
    if (me == 0) {
        for (int i = 0; i < 1000; i++)
            data[i] = i * 3;
        hcrt__dsm_atomic(flagp, 4, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE, 1, 0,
                         __ATOMIC_RELEASE);
    } else {
        while (hcrt__dsm_atomic(flagp, 4, HCRT_DSM_AT_INT, HCRT_DSM_AOP_LOAD, 0,
                                0, __ATOMIC_ACQUIRE) != 1)
            ;
        long bad = 0;
        for (int i = 0; i < 1000; i++)
            bad += data[i] != i * 3;
        CHECK_EQ(bad, 0);
    }
    sync_all();
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    for (int home = 0; home < 2; home++) {
        int root = home ? nranks - 1 : 0;
        char *base = dsm_test_share(
            me == root ? hcrt__dsm_calloc(1, sizeof(vars_t)) : NULL, root);
        for (int size = 1; size <= 8; size *= 2)
            test_int(base, size);
        test_fp(base, 0);
        test_fp(base, 1);
    }
    char *flagp = dsm_test_share(me == 0 ? hcrt__dsm_calloc(1, 64) : NULL, 0);
    long *data = dsm_test_share(
        me == 0 ? hcrt__dsm_calloc(1000, sizeof(long)) : NULL, 0);
    sync_all();
    test_ordering(flagp, data);
    /* Non-DSM memory works locally. */
    uint32_t local = 5;
    CHECK_EQ(hcrt__dsm_atomic(&local, 4, HCRT_DSM_AT_INT, HCRT_DSM_AOP_ADD, 2,
                              0, __ATOMIC_SEQ_CST),
             5);
    CHECK_EQ(local, 7);
    return dsm_test_finish("dsm_atomic");
}
