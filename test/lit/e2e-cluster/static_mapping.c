// schedule(static) and schedule(static, c) over the cluster team: every
// iteration runs once; static,c deals chunks round-robin in thread order
// (owner of i = (i / c) % T); static gives each thread at most one
// contiguous block, in thread order, of nearly equal size; two loops of
// equal trip count map alike (nowait relies on it); lastprivate comes from
// the sequentially last iteration. Loop variables of all widths, signed and
// unsigned, counting up and down.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1003

static int owner[N], owner2[N], hits[N];

static int check_static(const int *own, int n, int T)
{
    int prev = -1;
    long maxsz = (n + T - 1) / T, minsz = n / T, sz = 0;
    for (int i = 0; i < n; i++) {
        if (own[i] < prev || own[i] >= T)
            return 0; /* blocks in thread order, valid numbers */
        if (own[i] != prev) {
            if (prev >= 0 && (sz > maxsz || sz < minsz))
                return 0;
            prev = own[i], sz = 0;
        }
        sz++;
    }
    return sz <= maxsz && sz >= minsz;
}

int main(void)
{
    int T = 0, c = 7;
    long last = -1;
    unsigned ulast = 0;
    long long llast = 0;

#pragma omp parallel
    {
#pragma omp single
        T = omp_get_num_threads();
#pragma omp for schedule(static) nowait
        for (int i = 0; i < N; i++)
            owner[i] = omp_get_thread_num();
#pragma omp for schedule(static) lastprivate(last)
        for (int i = 0; i < N; i++) {
            owner2[i] = omp_get_thread_num();
            last = i * 10L;
        }
    }
    int same = 1;
    for (int i = 0; i < N; i++)
        same &= owner[i] == owner2[i];
    printf("T %d static blocks ok %d same mapping %d lastprivate %ld\n", T,
           check_static(owner, N, T), same, last);

#pragma omp parallel for schedule(static, 7) lastprivate(ulast)
    for (unsigned u = 0; u < N; u++) {
        owner[u] = omp_get_thread_num();
        hits[u]++;
        ulast = u;
    }
    int rr = 1, once = 1;
    long per[64] = {0};
    for (int i = 0; i < N; i++) {
        rr &= owner[i] == (i / c) % T;
        once &= hits[i] == 1;
        per[owner[i]]++;
    }
    printf("static,7 round robin %d once %d lastprivate %u\n", rr, once,
           ulast);
    for (int t = 0; t < T; t++)
        printf("  thread %d: %ld iterations\n", t, per[t]);

    /* Counting down, 64-bit: iteration k (k-th executed sequentially) is
     * i = 3*N - 3k; static,2 gives chunk k/2 to thread (k/2) % T. */
#pragma omp parallel for schedule(static, 2) lastprivate(llast)
    for (long long i = 3LL * N; i > 0; i -= 3) {
        long k = (long)((3LL * N - i) / 3);
        owner[k] = omp_get_thread_num();
        llast = i;
    }
    rr = 1;
    for (int k = 0; k < N; k++)
        rr &= owner[k] == (k / 2) % T;
    printf("down static,2 round robin %d lastprivate %lld\n", rr, llast);

    /* Unsigned 64-bit counting down with schedule(static). */
    unsigned long long cnt = 0;
#pragma omp parallel for schedule(static) reduction(+ : cnt)
    for (unsigned long long u = 5000000000ULL; u > 4999990000ULL; u -= 10)
        cnt += u % 1000;
    printf("unsigned down sum %llu\n", cnt);
    return 0;
}
