/*
 * dreduce_api.c - the public reduction API (hcrt_reduce_start & co.,
 * docs/reduce.md) against a sequential reference: every operator and
 * type, several sizes, every rank as the root, ranks delayed in a random
 * order per reduction (so every pairing shape occurs), 24 concurrent
 * reductions, user operators, bad arguments.
 *
 * Inputs are small integers, so every result is exact whatever the
 * pairing order; each rank can build every rank's input to check.
 */
#include <complex.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "hcrt/hcrt.h"

static int rank, nranks;

static const char *tname[] = {"i8",
                              "u8",
                              "i16",
                              "u16",
                              "i32",
                              "u32",
                              "i64",
                              "u64",
                              "float",
                              "double",
                              "long double",
                              "float complex",
                              "double complex"};
static const size_t tsize[] = {1,
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

static int is_int(int t)
{
    return t <= HCRT_UINT64;
}

static int is_complex(int t)
{
    return t >= HCRT_FLOAT_COMPLEX;
}

static int valid(int t, int op)
{
    if (is_complex(t))
        return op == HCRT_OP_SUM || op == HCRT_OP_PROD;
    return is_int(t) || op < HCRT_OP_BAND || op > HCRT_OP_BXOR;
}

/* Rank r's element i of reduction `k`: small, so every result is exact. */
static long long gen(int t, int op, int r, int k, size_t i)
{
    uint64_t h = (uint64_t)(r + 1) * 0x9E3779B97F4A7C15ULL ^
                 (uint64_t)(k + 1) * 0xC2B2AE3D27D4EB4FULL ^ (uint64_t)i * 31;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 32;
    switch (op) {
    case HCRT_OP_PROD:
        return 1 + (long long)(h % 3);
    case HCRT_OP_BAND:
    case HCRT_OP_BOR:
    case HCRT_OP_BXOR:
        return (long long)(h & 0x7f);
    case HCRT_OP_LAND:
    case HCRT_OP_LOR:
        return (long long)(h % 5 == 0 ? 0 : h % 3);
    default:
        /* negative values only where the type has them */
        return (long long)(h % 40) - (t == HCRT_UINT8 || t == HCRT_UINT16 ||
                                              t == HCRT_UINT32 ||
                                              t == HCRT_UINT64
                                          ? 0
                                          : 20);
    }
}

static void put(int t, void *p, size_t i, long long v, long long im)
{
    switch (t) {
    case HCRT_INT8:
        ((int8_t *)p)[i] = (int8_t)v;
        break;
    case HCRT_UINT8:
        ((uint8_t *)p)[i] = (uint8_t)v;
        break;
    case HCRT_INT16:
        ((int16_t *)p)[i] = (int16_t)v;
        break;
    case HCRT_UINT16:
        ((uint16_t *)p)[i] = (uint16_t)v;
        break;
    case HCRT_INT32:
        ((int32_t *)p)[i] = (int32_t)v;
        break;
    case HCRT_UINT32:
        ((uint32_t *)p)[i] = (uint32_t)v;
        break;
    case HCRT_INT64:
        ((int64_t *)p)[i] = v;
        break;
    case HCRT_UINT64:
        ((uint64_t *)p)[i] = (uint64_t)v;
        break;
    case HCRT_FLOAT:
        ((float *)p)[i] = (float)v;
        break;
    case HCRT_DOUBLE:
        ((double *)p)[i] = (double)v;
        break;
    case HCRT_LONG_DOUBLE:
        ((long double *)p)[i] = (long double)v;
        break;
    case HCRT_FLOAT_COMPLEX:
        ((float _Complex *)p)[i] = (float)v + (float)im * I;
        break;
    default:
        ((double _Complex *)p)[i] = (double)v + (double)im * I;
    }
}

/* The reference: fold every rank's input in rank order, element by element
 * in long long (integers, exact) or complex long double. */
static void reference(int t, int op, int k, size_t n, void *out)
{
    for (size_t i = 0; i < n; i++) {
        long long acc = gen(t, op, 0, k, i);
        long double _Complex c = acc + gen(t, op, 0, k + 1000, i) * I;
        for (int r = 1; r < nranks; r++) {
            long long v = gen(t, op, r, k, i);
            long double _Complex cv = v + gen(t, op, r, k + 1000, i) * I;
            switch (op) {
            case HCRT_OP_SUM:
                acc += v, c += cv;
                break;
            case HCRT_OP_PROD:
                acc *= v, c *= cv;
                break;
            case HCRT_OP_MIN:
                acc = v < acc ? v : acc;
                break;
            case HCRT_OP_MAX:
                acc = v > acc ? v : acc;
                break;
            case HCRT_OP_BAND:
                acc &= v;
                break;
            case HCRT_OP_BOR:
                acc |= v;
                break;
            case HCRT_OP_BXOR:
                acc ^= v;
                break;
            case HCRT_OP_LAND:
                acc = acc && v;
                break;
            default:
                acc = acc || v;
            }
        }
        if (is_complex(t))
            put(t, out, i, (long long)creall(c), (long long)cimagl(c));
        else
            put(t, out, i, acc, 0);
    }
}

static void fill(int t, int op, int k, size_t n, void *buf)
{
    for (size_t i = 0; i < n; i++)
        put(t, buf, i, gen(t, op, rank, k, i), gen(t, op, rank, k + 1000, i));
}

/* A random delay per (rank, reduction): arrivals in a random order. */
static void delay(int k)
{
    uint64_t h = (uint64_t)(rank * 977 + k * 131 + 7) * 0x9E3779B97F4A7C15ULL;
    usleep((useconds_t)((h >> 40) % 1500));
}

typedef struct one {
    int t, op, k, root;
    size_t n;
    void *send, *recv;
    hcrt_future_t *f;
} one_t;

static void one_start(one_t *o)
{
    size_t bytes = o->n * tsize[o->t] + 16;
    o->send = malloc(bytes);
    o->recv = malloc(bytes);
    memset(o->recv, 0xee, bytes);
    fill(o->t, o->op, o->k, o->n, o->send);
    CHECK_EQ(hcrt_reduce_start(o->send, o->recv, o->n, (hcrt_type_t)o->t,
                               (hcrt_op_t)o->op, o->root, &o->f),
             HCRT_OK);
}

static void one_check(one_t *o)
{
    hcrt_reduce_status_t st;
    CHECK_EQ(hcrt_future_wait(o->f, &st), HCRT_OK);
    CHECK_EQ(st.status, HCRT_OK);
    CHECK_EQ(st.lost_rank, -1);
    if (rank == o->root) {
        void *want = malloc(o->n * tsize[o->t] + 16);
        reference(o->t, o->op, o->k, o->n, want);
        int same = 1;
        if (o->t == HCRT_LONG_DOUBLE) /* 10 bytes of value, 6 of padding */
            for (size_t i = 0; i < o->n; i++)
                same &= ((long double *)want)[i] == ((long double *)o->recv)[i];
        else
            same = !memcmp(want, o->recv, o->n * tsize[o->t]);
        CHECKF(same, "%s op %d n %zu root %d: wrong result at %d ranks",
               tname[o->t], o->op, o->n, o->root, nranks);
        free(want);
    }
    free(o->send);
    free(o->recv);
}

/* Every type and operator, 3 sizes, the root moving over the ranks. */
static void test_every_op(void)
{
    static const size_t sizes[] = {1, 1001, 70000};
    int k = 0;
    for (int t = 0; t < HCRT_TYPE_COUNT; t++)
        for (int op = 0; op < HCRT_OP_COUNT; op++) {
            if (!valid(t, op))
                continue;
            for (int s = 0; s < 3; s++, k++) {
                one_t o = {t, op, k, k % nranks, sizes[s], 0, 0, 0};
                delay(k);
                one_start(&o);
                one_check(&o);
            }
        }
}

/* 24 reductions in flight at once, started with delays, waited for in
 * another order than started. */
static void test_concurrent(void)
{
    enum { N = 24 };
    one_t o[N];
    for (int i = 0; i < N; i++) {
        o[i] = (one_t){i % HCRT_TYPE_COUNT,
                       i % 2 ? HCRT_OP_SUM : HCRT_OP_MAX,
                       5000 + i,
                       (i + 1) % nranks,
                       1000 + 3000 * (size_t)i,
                       0,
                       0,
                       0};
        if (is_complex(o[i].t))
            o[i].op = HCRT_OP_SUM;
        delay(i);
        one_start(&o[i]);
    }
    for (int i = 0; i < N; i++) { /* test without waiting first */
        int done = 0;
        CHECK_EQ(hcrt_future_test(o[N - 1 - i].f, &done), HCRT_OK);
    }
    for (int i = 0; i < N; i++)
        one_check(&o[(i * 7) % N]);
}

typedef struct maxloc {
    double v;
    int where;
} maxloc_t;

static void maxloc_op(void *inout, const void *in, size_t n, void *arg)
{
    maxloc_t *a = inout;
    const maxloc_t *b = in;
    (*(int *)arg)++;
    for (size_t i = 0; i < n; i++)
        if (b[i].v > a[i].v || (b[i].v == a[i].v && b[i].where < a[i].where))
            a[i] = b[i];
}

/* A user operator over structs, with its argument. */
static void test_user(void)
{
    enum { N = 333 };
    maxloc_t in[N], out[N];
    int calls = 0;
    for (int i = 0; i < N; i++)
        in[i] = (maxloc_t){(double)((i * 7 + rank * 13) % 17), rank};
    for (int root = 0; root < nranks; root++) {
        hcrt_future_t *f;
        hcrt_reduce_status_t st;
        delay(root + 77);
        CHECK_EQ(hcrt_reduce_start_user(in, out, N, sizeof(maxloc_t), maxloc_op,
                                        &calls, root, &f),
                 HCRT_OK);
        CHECK_EQ(hcrt_future_wait(f, &st), HCRT_OK);
        if (rank != root)
            continue;
        for (int i = 0; i < N; i++) {
            maxloc_t want = {-1, 0};
            for (int r = 0; r < nranks; r++) {
                double v = (double)((i * 7 + r * 13) % 17);
                if (v > want.v)
                    want = (maxloc_t){v, r};
            }
            CHECKF(out[i].v == want.v && out[i].where == want.where,
                   "maxloc %d: %g@%d, want %g@%d", i, out[i].v, out[i].where,
                   want.v, want.where);
        }
    }
    int total = 0; /* every rank's calls: nranks - 1 folds per reduction */
    hcrt_reduce(&calls, &total, 1, HCRT_INT32, HCRT_OP_SUM, 0, NULL);
    if (rank == 0)
        CHECK_EQ(total, nranks * (nranks - 1));
}

static void test_invalid(void)
{
    hcrt_future_t *f = NULL;
    double d = 1;
    CHECK_EQ(hcrt_reduce_start(&d, &d, 1, HCRT_DOUBLE, HCRT_OP_BXOR, 0, &f),
             HCRT_ERR_INVALID);
    CHECK_EQ(hcrt_reduce_start(&d, &d, 1, HCRT_DOUBLE, HCRT_OP_SUM, nranks, &f),
             HCRT_ERR_INVALID);
    CHECK_EQ(hcrt_reduce_start(&d, &d, 1, HCRT_TYPE_COUNT, HCRT_OP_SUM, 0, &f),
             HCRT_ERR_INVALID);
    /* in place at the root */
    CHECK_EQ(hcrt_reduce(&d, &d, 1, HCRT_DOUBLE, HCRT_OP_SUM, nranks - 1, NULL),
             HCRT_OK);
    if (rank == nranks - 1)
        CHECK_DEQ(d, nranks);
}

int main(int argc, char **argv)
{
    static const check_case_t cases[] = {{"every_op", test_every_op},
                                         {"concurrent", test_concurrent},
                                         {"user", test_user},
                                         {"invalid", test_invalid},
                                         {NULL, NULL}};
    rank = hcrt_node_id();
    nranks = hcrt_num_nodes();
    (void)argc, (void)argv;
    /* every case on every rank, in the same order */
    return check_run(1, argv, cases);
}
