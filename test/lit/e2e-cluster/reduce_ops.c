// Reductions across nodes for every operator clang emits (+ * - & | ^ &&
// || min max) on int, long, unsigned, float, double and _Complex double,
// a user-declared reduction on a struct, several variables in one clause,
// reductions on `parallel` (not only loops) and nowait loops. The
// operands are exact in floating point so the result does not depend on
// the combining order. Every reduction must take the cross-node tree
// (the statistics say so), or with HCRT_REDUCE_DYNAMIC=always the
// dynamic reduction; -latomic: clang's atomic path for complex.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --libs -latomic --stats 'cluster reductions [1-9][0-9]* by a cross-node tree, 0 under' %s %t
// The same through the dynamic reduction (docs/reduce.md), 2 threads per
// rank (the node-local combine too):
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --threads 2 --libs -latomic --env HCRT_REDUCE_DYNAMIC=always --stats 'OpenMP reductions by it [1-9]' %s %t.dyn
#include <complex.h>
#include <omp.h>
#include <stdio.h>

typedef struct {
    long lo, hi, n;
} range_t;

static void range_merge(range_t *out, const range_t *in)
{
    if (in->lo < out->lo)
        out->lo = in->lo;
    if (in->hi > out->hi)
        out->hi = in->hi;
    out->n += in->n;
}
#pragma omp declare reduction(merge : range_t : range_merge(&omp_out, &omp_in)) \
    initializer(omp_priv = (range_t){1L << 60, -(1L << 60), 0})

#define N 3000

int main(void)
{
    int isum = 0, iprod = 1, idiff = 0, iand = ~0, ior = 0, ixor = 0;
    int land = 1, lor = 0, imin = 1 << 30, imax = -(1 << 30);
    long lsum = 0, lmax = 0;
    unsigned umin = ~0u, uxor = 0;
    float fsum = 0, fmax = -1e30f;
    double dsum = 0, dprod = 1, dmin = 1e300;
    double _Complex zsum = 0;
    range_t r = {1L << 60, -(1L << 60), 0};

#pragma omp parallel for reduction(+ : isum, lsum, fsum, dsum, zsum)         \
    reduction(* : iprod, dprod) reduction(- : idiff) reduction(& : iand)     \
    reduction(| : ior) reduction(^ : ixor, uxor) reduction(&& : land)        \
    reduction(|| : lor) reduction(min : imin, umin, dmin)                    \
    reduction(max : imax, lmax, fmax) reduction(merge : r)
    for (int i = 1; i <= N; i++) {
        isum += i;
        lsum += (long)i * i;
        fsum += (float)(i % 7);
        dsum += i * 0.5;
        zsum += i + (i % 3) * I;
        if (i % 500 == 0) {
            iprod *= 2;
            dprod *= 1.5;
        }
        idiff -= i % 10;
        iand &= ~(1 << (i % 20)) | (i == 7 ? 0 : (1 << 25));
        ior |= 1 << (i % 17);
        ixor ^= i;
        uxor ^= (unsigned)i * 2654435761u;
        land = land && (i > 0);
        lor = lor || (i == 2345);
        imin = imin < 5000 - i ? imin : 5000 - i;
        umin = umin < (unsigned)(i * 7 % 1001) ? umin : (unsigned)(i * 7 % 1001);
        dmin = dmin < i * 0.25 ? dmin : i * 0.25;
        imax = imax > (i * 37) % 2999 ? imax : (i * 37) % 2999;
        lmax = lmax > (long)i * 1000003 ? lmax : (long)i * 1000003;
        fmax = fmax > (float)(i % 123) ? fmax : (float)(i % 123);
        range_t one = {i * 3L, i * 3L, 1};
        range_merge(&r, &one);
    }
    printf("+ %d %ld %.1f %.1f (%.1f,%.1f)\n", isum, lsum, fsum, dsum,
           creal(zsum), cimag(zsum));
    printf("* %d %.4f  - %d\n", iprod, dprod, idiff);
    printf("& %#x | %#x ^ %d %u\n", (unsigned)iand, (unsigned)ior, ixor, uxor);
    printf("&& %d || %d\n", land, lor);
    printf("min %d %u %.2f max %d %ld %.1f\n", imin, umin, dmin, imax, lmax,
           fmax);
    printf("udr lo %ld hi %ld n %ld\n", r.lo, r.hi, r.n);

    /* reduction on a parallel region and on nowait loops, twice in a row
     * (the second reuses the construct's state) */
    long team = 0, a = 0, b = 0;
    for (int rep = 0; rep < 2; rep++) {
#pragma omp parallel reduction(+ : team)
        {
            team += 1;
#pragma omp for nowait reduction(+ : a)
            for (int i = 0; i < 1000; i++)
                a += i;
#pragma omp for nowait reduction(max : b)
            for (int i = 0; i < 1000; i++)
                b = b > i * 3 ? b : i * 3;
        }
    }
    printf("team %s a %ld b %ld\n", team == 2L * omp_get_max_threads() ? "ok" : "WRONG", a, b);
    return 0;
}
