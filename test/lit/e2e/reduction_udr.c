// User-declared reductions (struct with an initializer clause, and a
// declared operator on a scalar type), array-section reductions, reductions
// on sections and an inscan reduction with #pragma omp scan.
// RUN: %e2e %s %t
#include <stdlib.h>

#include "e2e.h"

#define N 5003

typedef struct {
    long count, sum, min, max;
} stats_t;

static void stats_merge(stats_t *out, const stats_t *in)
{
    out->count += in->count;
    out->sum += in->sum;
    out->min = in->min < out->min ? in->min : out->min;
    out->max = in->max > out->max ? in->max : out->max;
}

static void stats_init(stats_t *s)
{
    s->count = 0;
    s->sum = 0;
    s->min = 1L << 60;
    s->max = -(1L << 60);
}

#pragma omp declare reduction(merge : stats_t : stats_merge(&omp_out, &omp_in)) \
    initializer(stats_init(&omp_priv))

/* gcd as a reduction: associative and commutative, identity 0 */
static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}
#pragma omp declare reduction(gcd : long : omp_out = gcd(omp_out, omp_in)) \
    initializer(omp_priv = 0)

static long val(long i) { return (i * 7907) % 2003 - 1000; }

int main(void)
{
    stats_t st;
    stats_init(&st);
#pragma omp parallel for reduction(merge : st) schedule(dynamic, 16)
    for (long i = 0; i < N; i++) {
        st.count++;
        st.sum += val(i);
        st.min = val(i) < st.min ? val(i) : st.min;
        st.max = val(i) > st.max ? val(i) : st.max;
    }
    stats_t want;
    stats_init(&want);
    for (long i = 0; i < N; i++) {
        stats_t one = {1, val(i), val(i), val(i)};
        stats_merge(&want, &one);
    }
    CHECK(st.count == want.count && st.sum == want.sum && st.min == want.min &&
              st.max == want.max,
          "declare reduction(merge)");
    printf("merge: count=%ld sum=%ld min=%ld max=%ld\n", st.count, st.sum,
           st.min, st.max);

    long g = 0;
#pragma omp parallel for reduction(gcd : g)
    for (long i = 1; i <= 600; i++)
        g = gcd(g, 360360 * (i % 7 + 1) * (i % 5 + 1));
    CHECK(g == 360360, "declare reduction(gcd) = %ld", g);
    printf("gcd=%ld\n", g);

    /* Array and array-section reductions (a histogram). */
    long hist[16] = {0};
    long *heap_hist = calloc(32, sizeof(long));
#pragma omp parallel for reduction(+ : hist[:16], heap_hist[8:16])
    for (long i = 0; i < N; i++) {
        hist[(val(i) + 1000) % 16]++;
        heap_hist[8 + (i * i) % 16] += i;
    }
    long want_hist[16] = {0}, want_heap[32] = {0};
    for (long i = 0; i < N; i++) {
        want_hist[(val(i) + 1000) % 16]++;
        want_heap[8 + (i * i) % 16] += i;
    }
    int same = 1;
    for (int k = 0; k < 16; k++)
        same &= hist[k] == want_hist[k];
    for (int k = 0; k < 32; k++)
        same &= heap_hist[k] == want_heap[k];
    CHECK(same, "array-section reduction");
    printf("hist=%016llx heap=%016llx\n",
           (unsigned long long)e2e_hash_longs(hist, 16),
           (unsigned long long)e2e_hash_longs(heap_hist, 32));
    free(heap_hist);

    /* Reduction over sections. */
    long sec = 0;
#pragma omp parallel sections reduction(+ : sec)
    {
#pragma omp section
        sec += 1;
#pragma omp section
        sec += 20;
#pragma omp section
        sec += 300;
#pragma omp section
        sec += 4000;
    }
    CHECK(sec == 4321, "sections reduction %ld", sec);

    /* Inclusive and exclusive prefix sums with an inscan reduction. */
    static long in[N], incl[N], excl[N];
    for (long i = 0; i < N; i++)
        in[i] = val(i);
    long run = 0;
#pragma omp parallel for reduction(inscan, + : run)
    for (long i = 0; i < N; i++) {
        run += in[i];
#pragma omp scan inclusive(run)
        incl[i] = run;
    }
    long run2 = 0;
#pragma omp parallel for reduction(inscan, + : run2)
    for (long i = 0; i < N; i++) {
        excl[i] = run2;
#pragma omp scan exclusive(run2)
        run2 += in[i];
    }
    long acc = 0;
    int scan_ok = 1;
    for (long i = 0; i < N; i++) {
        scan_ok &= excl[i] == acc;
        acc += in[i];
        scan_ok &= incl[i] == acc;
    }
    CHECK(scan_ok, "scan results differ from the sequential prefix sums");
    printf("sections=%ld scan incl=%016llx excl=%016llx total=%ld\n", sec,
           (unsigned long long)e2e_hash_longs(incl, N),
           (unsigned long long)e2e_hash_longs(excl, N), run);
    return e2e_finish("reduction_udr");
}
