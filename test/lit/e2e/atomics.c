// atomic update, read, write, capture and (OpenMP 5.1) compare on int,
// long, unsigned, float and double, under contention from every thread.
// RUN: %e2e --O0 %s %t
#include <stdlib.h>

#include "e2e.h"

#define N 20000

static int ci;
static long cl;
static unsigned cu;
static float cf;
static double cd;
static char seen[N];

int main(void)
{
    /* update: every form of the expression statement */
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
#pragma omp atomic
        ci += i % 7;
#pragma omp atomic update
        cl = cl + (long)i * 3;
#pragma omp atomic
        cu ^= (unsigned)i * 2654435761u;
#pragma omp atomic
        cf += 0.5f;
#pragma omp atomic
        cd -= 0.25;
    }
    long wci = 0, wcl = 0;
    unsigned wcu = 0;
    for (int i = 0; i < N; i++) {
        wci += i % 7;
        wcl += (long)i * 3;
        wcu ^= (unsigned)i * 2654435761u;
    }
    CHECK(ci == wci && cl == wcl && cu == wcu && cf == N * 0.5f &&
              cd == N * -0.25,
          "atomic update: %d %ld %u %g %g", ci, cl, cu, cf, cd);
    printf("update: %d %ld %u %.2f %.2f\n", ci, cl, cu, cf, cd);

    /* more update forms: x = expr op x, x++, --x, *=, |=, <<= */
    long m = 1, inc = 0, bits = 0;
    unsigned long sh = 1;
#pragma omp parallel for
    for (int i = 0; i < 62; i++) {
#pragma omp atomic
        inc++;
#pragma omp atomic
        --inc;
#pragma omp atomic
        inc = 2 + inc;
#pragma omp atomic
        bits |= 1L << i;
        if (i < 40) {
#pragma omp atomic
            m *= i % 20 == 0 ? 2 : 1;
#pragma omp atomic
            sh <<= 1;
        }
    }
    CHECK(inc == 124 && bits == (1L << 62) - 1 && m == 4 && sh == 1ul << 40,
          "update forms: %ld %lx %ld %lx", inc, bits, m, sh);

    /* capture: every fetch-and-add returns a distinct old value */
    int ticket = 0, bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (int i = 0; i < N; i++) {
        int mine;
#pragma omp atomic capture
        mine = ticket++;
        if (mine < 0 || mine >= N)
            bad++;
        else
            seen[mine] = 1; /* distinct tickets: no two writers */
    }
    for (int i = 0; i < N; i++)
        bad += seen[i] != 1;
    CHECK(bad == 0 && ticket == N, "atomic capture: %d bad, ticket %d", bad,
          ticket);

    /* capture, structured-block forms: new value and swap */
    double dsum = 0;
    long last_new = 0, swap_target = -1, swapped_sum = 0;
#pragma omp parallel for reduction(max : last_new) reduction(+ : swapped_sum)
    for (int i = 0; i < 1000; i++) {
        double got;
#pragma omp atomic capture
        {
            dsum += 1.0;
            got = dsum;
        }
        long old;
#pragma omp atomic capture
        {
            old = swap_target;
            swap_target = i;
        }
        swapped_sum += old;
        last_new = got > last_new ? (long)got : last_new;
    }
    /* the swapped-out values are all writes but one, plus the initial -1 */
    CHECK(dsum == 1000.0 && last_new == 1000 &&
              swapped_sum + swap_target == 499500 - 1,
          "capture blocks: %g %ld %ld %ld", dsum, last_new, swapped_sum,
          swap_target);

    /* read and write */
    long flag = 0, observed_bad = 0;
#pragma omp parallel reduction(+ : observed_bad)
    {
#pragma omp for
        for (int i = 0; i < 1000; i++) {
            long v;
#pragma omp atomic read
            v = flag;
            observed_bad += v != 0 && v != 0x5555555555555555L;
#pragma omp atomic write
            flag = 0x5555555555555555L;
        }
    }
    CHECK(observed_bad == 0 && flag == 0x5555555555555555L, "read/write torn");
    printf("capture: ticket=%d dsum=%.1f last=%ld swaps=%ld flag=%lx\n", ticket,
           dsum, last_new, swapped_sum + swap_target, flag);

    /* compare (5.1): max, min, CAS; with capture of the old value */
    long amax = -1000000, amin = 1000000;
    double fmaxv = -1e9;
    int owner = -1, claims = 0;
#pragma omp parallel for reduction(+ : claims)
    for (int i = 0; i < N; i++) {
        long v = (i * 7919L) % 100003 - 50000;
#pragma omp atomic compare
        if (amax < v) {
            amax = v;
        }
#pragma omp atomic compare
        amin = amin > v ? v : amin;
        double dv = (double)v;
#pragma omp atomic compare
        if (fmaxv < dv) {
            fmaxv = dv;
        }
        int prev;
#pragma omp atomic compare capture
        {
            prev = owner;
            if (owner == -1) {
                owner = 7;
            }
        }
        claims += prev == -1;
    }
    long wmax = -1000000, wmin = 1000000;
    for (int i = 0; i < N; i++) {
        long v = (i * 7919L) % 100003 - 50000;
        wmax = v > wmax ? v : wmax;
        wmin = v < wmin ? v : wmin;
    }
    CHECK(amax == wmax && amin == wmin && fmaxv == (double)wmax && owner == 7 &&
              claims == 1,
          "atomic compare: %ld %ld %g %d %d", amax, amin, fmaxv, owner, claims);
    printf("compare: max=%ld min=%ld fmax=%.1f owner=%d claims=%d\n", amax,
           amin, fmaxv, owner, claims);
    return e2e_finish("atomics");
}
