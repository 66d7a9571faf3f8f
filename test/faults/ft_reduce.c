/*
 * ft_reduce.c - many reductions of the public API (hcrt.h) while a worker
 * rank may be lost (run_ft_reduce.sh, docs/reduce.md "Failures"). Every
 * rank runs this main (SPMD, linked with -lhcrt).
 *
 *   ft_reduce ROUNDS [MS]
 *
 * Each round starts 4 reductions at once (integer and floating sums,
 * MAX, BXOR, MIN, a user operator; 1 to 256 Ki elements; roots moving
 * over the ranks), then one blocking one, then sleeps MS milliseconds
 * (default 200). Each root checks its result against a sequential
 * reference over the inputs the status says were folded and prints one
 * line: "R<round>.<k> root <r> <op> n=<count> = <hash>" when the status
 * is OK (the same line as a fault-free run's), "R<round>.<k> root <r>
 * lost <rank>: <why>" when it is HCRT_ERR_NODE_FAILED, and "WRONG ..."
 * when a result disagrees with the reference. Exits 1 after a WRONG line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hcrt/hcrt.h"

#define K 5 /* reductions per round: 4 at once, then a blocking one */

typedef struct {
    int64_t sum, max;
} pair_t;

static void pair_op(void *inout, const void *in, size_t n, void *arg)
{
    pair_t *a = inout;
    const pair_t *b = in;
    (void)arg;
    for (size_t i = 0; i < n; i++) {
        a[i].sum += b[i].sum;
        if (b[i].max > a[i].max)
            a[i].max = b[i].max;
    }
}

enum { I64_SUM, DBL_MAX, U64_BXOR, I32_MIN, USER, DBL_SUM, NKINDS };
static const char *names[] = {"int64-sum", "double-max", "uint64-bxor",
                              "int32-min", "user-pair",  "double-sum"};
static const size_t sizes[] = {8, 8, 8, 4, 16, 8};
static const size_t counts[] = {1, 4096, 262144, 1000, 37, 65536};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9e3779b97f4a7c15ULL;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ULL;
    return x ^ x >> 32;
}

/* Rank r's input element i of reduction (round, k). */
static void input(void *buf, int kind, size_t n, int r, int round, int k)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v = mix(((uint64_t)round << 40) ^ ((uint64_t)k << 32) ^
                         ((uint64_t)r << 24) ^ i);
        switch (kind) {
        case I64_SUM:
            ((int64_t *)buf)[i] = (int64_t)(v >> 8);
            break;
        case DBL_MAX:
            ((double *)buf)[i] = (double)(v >> 11) / 3.0;
            break;
        case U64_BXOR:
            ((uint64_t *)buf)[i] = v;
            break;
        case I32_MIN:
            ((int32_t *)buf)[i] = (int32_t)(uint32_t)v;
            break;
        case USER:
            ((pair_t *)buf)[i] =
                (pair_t){(int64_t)(v >> 40), (int64_t)(v % 1000)};
            break;
        case DBL_SUM:
            ((double *)buf)[i] = (double)(v >> 44);
            break;
        }
    }
}

/* acc op= in, sequentially (the reference). */
static void fold(void *acc, const void *in, int kind, size_t n)
{
    if (kind == USER)
        return pair_op(acc, in, n, NULL);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case I64_SUM:
            ((int64_t *)acc)[i] += ((const int64_t *)in)[i];
            break;
        case DBL_MAX:
            if (((const double *)in)[i] > ((double *)acc)[i])
                ((double *)acc)[i] = ((const double *)in)[i];
            break;
        case U64_BXOR:
            ((uint64_t *)acc)[i] ^= ((const uint64_t *)in)[i];
            break;
        case I32_MIN:
            if (((const int32_t *)in)[i] < ((int32_t *)acc)[i])
                ((int32_t *)acc)[i] = ((const int32_t *)in)[i];
            break;
        case DBL_SUM:
            ((double *)acc)[i] += ((const double *)in)[i];
            break;
        }
    }
}

static uint64_t hash(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < len; i++)
        h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

typedef struct red {
    int kind, root;
    size_t n;
    void *send, *recv;
    hcrt_future_t *f;
} red_t;

static int kind_of(int round, int k)
{
    return (round * K + k) % NKINDS;
}

static hcrt_status_t start(red_t *x, int round, int k, int me, int nranks)
{
    x->kind = kind_of(round, k);
    x->n = counts[(round + k) % NKINDS];
    x->root = (round + 2 * k) % nranks;
    x->send = malloc(x->n * sizeof(pair_t));
    x->recv = malloc(x->n * sizeof(pair_t));
    input(x->send, x->kind, x->n, me, round, k);
    if (x->kind == USER)
        return hcrt_reduce_start_user(x->send, x->recv, x->n, sizeof(pair_t),
                                      pair_op, NULL, x->root, &x->f);
    static const hcrt_type_t types[] = {HCRT_INT64, HCRT_DOUBLE, HCRT_UINT64,
                                        HCRT_INT32, 0,           HCRT_DOUBLE};
    static const hcrt_op_t ops[] = {HCRT_OP_SUM, HCRT_OP_MAX, HCRT_OP_BXOR,
                                    HCRT_OP_MIN, 0,           HCRT_OP_SUM};
    return hcrt_reduce_start(x->send, x->recv, x->n, types[x->kind],
                             ops[x->kind], x->root, &x->f);
}

/* The root's check: the reference folds every rank's input, or every
 * one but `without` (the survivors of a loss before the reduction). */
static int check(const red_t *x, int round, int k, int nranks, int without)
{
    size_t len = x->n * sizes[x->kind];
    void *ref = malloc(len), *in = malloc(len);
    int first = 1;
    for (int r = 0; r < nranks; r++) {
        if (r == without)
            continue;
        input(first ? ref : in, x->kind, x->n, r, round, k);
        if (!first)
            fold(ref, in, x->kind, x->n);
        first = 0;
    }
    int ok = memcmp(ref, x->recv, len) == 0;
    free(ref), free(in);
    return ok;
}

static int finish(red_t *x, int round, int k, int me, int nranks)
{
    hcrt_reduce_status_t st = {0};
    hcrt_status_t rc = hcrt_future_wait(x->f, &st);
    int bad = 0;
    if (me == x->root) {
        size_t len = x->n * sizes[x->kind];
        if (rc == HCRT_OK) {
            bad = !check(x, round, k, nranks, -1);
            printf("%sR%d.%d root %d %s n=%zu = %016" PRIx64 "\n",
                   bad ? "WRONG " : "", round, k, x->root, names[x->kind], x->n,
                   hash(x->recv, len));
            if (st.recovered) /* not in the fault-free output */
                fprintf(stderr,
                        "ft_reduce: R%d.%d right with %d input(s) "
                        "recovered\n",
                        round, k, st.recovered);
        } else if (rc == HCRT_ERR_NODE_FAILED && st.lost_rank >= 0 &&
                   st.lost_rank < nranks) {
            /* "before this reduction began": the survivors' result */
            int surv = strstr(st.why, "survivors") != NULL;
            bad = surv && !check(x, round, k, nranks, st.lost_rank);
            printf("%sR%d.%d root %d lost %d: %s\n", bad ? "WRONG " : "", round,
                   k, x->root, st.lost_rank, st.why);
        } else {
            bad = 1;
            printf("WRONG R%d.%d root %d: status %d (%s), lost rank %d\n",
                   round, k, x->root, (int)rc, st.why ? st.why : "-",
                   st.lost_rank);
        }
        fflush(stdout);
    }
    free(x->send), free(x->recv);
    return bad;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 10;
    int ms = argc > 2 ? atoi(argv[2]) : 200;
    int me = hcrt_node_id(), n = hcrt_num_nodes(), bad = 0;
    struct timespec nap = {ms / 1000, (long)(ms % 1000) * 1000000L};
    for (int round = 0; round < rounds; round++) {
        red_t x[K];
        for (int k = 0; k < K - 1; k++)
            if (start(&x[k], round, k, me, n) != HCRT_OK)
                return fprintf(stderr, "rank %d: a start failed\n", me), 1;
        for (int k = 0; k < K - 1; k++)
            bad += finish(&x[k], round, k, me, n);
        if (start(&x[K - 1], round, K - 1, me, n) != HCRT_OK)
            return fprintf(stderr, "rank %d: a start failed\n", me), 1;
        bad += finish(&x[K - 1], round, K - 1, me, n);
        nanosleep(&nap, NULL);
    }
    if (me == 0)
        printf("ft_reduce: %d rounds of %d reductions on %d ranks%s\n", rounds,
               K, n, bad ? ", WRONG results" : "");
    return bad != 0;
}
