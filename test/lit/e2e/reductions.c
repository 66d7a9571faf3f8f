// Every reduction operator (+ * - & | ^ && || min max) on int, long,
// unsigned, double and float, over parallel for, plain parallel and
// combined clauses. Floating-point inputs are small integers or powers of
// two, so every combining order gives the same bits.
// RUN: %e2e --O0 %s %t
#include <limits.h>
#include <math.h>

#include "e2e.h"

#define N 3001

static int vi(int i) { return (i * 37) % 101 - 50; }
/* factors for the * reductions: mostly 1, a few +-2 and -1 */
static int mf(int i) { return i % 500 == 3 ? 2 : i % 700 == 5 ? -1 : 1; }

#define INT_OPS(T, fmt)                                                       \
    do {                                                                      \
        T sum = 0, prod = 1, minus = 0, band = ~(T)0, bor = 0, bxor = 0;      \
        T mn = (T)1 << (sizeof(T) * 8 - 2), mx = 0;                           \
        int land = 1, lor = 0;                                                \
        _Pragma("omp parallel for reduction(+:sum) reduction(*:prod) reduction(-:minus) reduction(&:band) reduction(|:bor) reduction(^:bxor) reduction(min:mn) reduction(max:mx) reduction(&&:land) reduction(||:lor) schedule(static, 5)")   \
        for (int i = 0; i < N; i++) {                                         \
            sum += (T)vi(i);                                                  \
            prod *= (T)mf(i);                                                 \
            minus -= (T)vi(i);                                                \
            band &= (T) ~((T)1 << (i % 13)) | (T)(i % 29 != 0);               \
            bor |= (T)1 << (i % 17);                                          \
            bxor ^= (T)(i * 2654435761u);                                     \
            mn = mn < (T)vi(i) ? mn : (T)vi(i);                               \
            mx = mx > (T)vi(i) ? mx : (T)vi(i);                               \
            land = land && i < 100000;                                        \
            lor = lor || i == 2999;                                           \
        }                                                                     \
        T s_sum = 0, s_prod = 1, s_minus = 0, s_band = ~(T)0, s_bor = 0;      \
        T s_bxor = 0, s_mn = (T)1 << (sizeof(T) * 8 - 2), s_mx = 0;           \
        for (int i = 0; i < N; i++) {                                         \
            s_sum += (T)vi(i);                                                \
            s_prod *= (T)mf(i);                                               \
            s_minus -= (T)vi(i);                                              \
            s_band &= (T) ~((T)1 << (i % 13)) | (T)(i % 29 != 0);             \
            s_bor |= (T)1 << (i % 17);                                        \
            s_bxor ^= (T)(i * 2654435761u);                                   \
            s_mn = s_mn < (T)vi(i) ? s_mn : (T)vi(i);                         \
            s_mx = s_mx > (T)vi(i) ? s_mx : (T)vi(i);                         \
        }                                                                     \
        CHECK(sum == s_sum && prod == s_prod && minus == s_minus &&           \
                  band == s_band && bor == s_bor && bxor == s_bxor &&         \
                  mn == s_mn && mx == s_mx && land == 1 && lor == 1,          \
              #T " reductions differ from the sequential ones");              \
        printf(#T ": + " fmt " * " fmt " - " fmt " & " fmt " | " fmt          \
                  " ^ " fmt " min " fmt " max " fmt " && %d || %d\n",         \
               sum, prod, minus, band, bor, bxor, mn, mx, land, lor);         \
    } while (0)

#define FP_OPS(T)                                                             \
    do {                                                                      \
        T sum = 0, prod = 1, minus = 0, mn = 1e30f, mx = -1e30f;              \
        int land = 1, lor = 0;                                                \
        _Pragma("omp parallel for reduction(+:sum) reduction(*:prod) reduction(-:minus) reduction(min:mn) reduction(max:mx) reduction(&&:land) reduction(||:lor) schedule(dynamic, 7)")  \
        for (int i = 0; i < N; i++) {                                         \
            T v = (T)vi(i);                                                   \
            sum += v;                                                         \
            prod *= i % 400 == 1 ? (T)2 : i % 600 == 2 ? (T)0.5 : (T)1;       \
            minus -= v * (T)0.25;                                             \
            mn = fmin(mn, v * (T)1.5);                                        \
            mx = fmax(mx, v * (T)1.5);                                        \
            land = land && v > (T)-60;                                        \
            lor = lor || v == (T)50;                                          \
        }                                                                     \
        T s_sum = 0, s_minus = 0;                                             \
        for (int i = 0; i < N; i++) {                                         \
            s_sum += (T)vi(i);                                                \
            s_minus -= (T)vi(i) * (T)0.25;                                    \
        }                                                                     \
        CHECK(sum == s_sum && minus == s_minus && prod == (T)8 &&             \
                  mn == (T)-75 && mx == (T)75 && land && lor,                 \
              #T " reductions: %g %g %g %g %g", (double)sum, (double)minus,   \
              (double)prod, (double)mn, (double)mx);                          \
        printf(#T ": + %.3f * %.3f - %.3f min %.3f max %.3f && %d || %d\n",   \
               (double)sum, (double)prod, (double)minus, (double)mn,          \
               (double)mx, land, lor);                                        \
    } while (0)

int main(void)
{
    INT_OPS(int, "%d");
    INT_OPS(long, "%ld");
    INT_OPS(unsigned, "%u");
    INT_OPS(unsigned long, "%lu");
    FP_OPS(double);
    FP_OPS(float);

    /* reduction on a plain parallel region, combined with a worksharing
     * loop's own reduction on another variable. */
    long per_thread = 0, loop_sum = 0;
    int threads = 0;
#pragma omp parallel reduction(+ : per_thread, threads)
    {
        threads += 1;
        per_thread += 10;
#pragma omp for reduction(+ : loop_sum)
        for (int i = 1; i <= 1000; i++)
            loop_sum += i;
    }
    CHECK(per_thread == 10L * threads && loop_sum == 500500,
          "parallel reduction %ld threads %d loop %ld", per_thread, threads,
          loop_sum);

    /* A reduction variable with a non-neutral initial value. */
    long start = 1000000;
#pragma omp parallel for reduction(+ : start)
    for (int i = 0; i < 100; i++)
        start += i;
    /* reduction(max) over values that are all negative */
    double dmax = -INFINITY;
#pragma omp parallel for reduction(max : dmax)
    for (int i = 0; i < 777; i++)
        dmax = fmax(dmax, -1.0 - (i % 91));
    CHECK(start == 1004950 && dmax == -1.0, "start %ld dmax %g", start, dmax);
    printf("parallel-reduction loop=%ld start=%ld dmax=%.1f\n", loop_sum, start,
           dmax);
    return e2e_finish("reductions");
}
