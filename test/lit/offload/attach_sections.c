// Pointer attachment for sections that do not start at the pointee: the
// node's copy of the pointer must point where the host pointer does
// (element 0), not at the section's first element, so that p[i] indexes
// the same element on every node. A struct member and a global pointer,
// mapped with sections starting at 0 and after it, by target data and by
// a kernel's own map. Before the fix, every kernel below read and wrote
// 10 elements past its section (OpenMP_VV's Fortran array-section tests
// crashed with heap corruption: an allocatable's descriptor is such a
// pointer).
//
// RUN: %offload %s %t
#include <stdio.h>
#include <stdlib.h>

#define N 100
#define LO 10
#define LEN 80

struct holder {
    long tag;
    int *p;
};

int *gp;

int main(void)
{
    struct holder s = {7, malloc(N * sizeof(int))};
    gp = malloc(N * sizeof(int));
    long want = 0, got = 0;
    for (int i = 0; i < N; i++)
        s.p[i] = i, gp[i] = 2 * i;

    /* a member section inside target data, then a kernel that uses it */
#pragma omp target data map(tofrom : s.p[LO : LEN])
    {
#pragma omp target map(tofrom : s.p[LO : LEN])
        for (int i = LO; i < LO + LEN; i++)
            s.p[i] += 1000;
    }
    /* a global pointer's section, mapped by the kernel itself */
#pragma omp target map(tofrom : gp[LO : LEN])
    for (int i = LO; i < LO + LEN; i++)
        gp[i] = gp[i] * 3 + i;
    /* a section starting at the pointee, for comparison */
#pragma omp target map(tofrom : gp[0 : LO])
    for (int i = 0; i < LO; i++)
        gp[i] = -gp[i];

    for (int i = 0; i < N; i++) {
        int in = i >= LO && i < LO + LEN;
        want += (in ? i + 1000 : i) + (in ? 7 * i : i < LO ? -2 * i : 2 * i);
        got += s.p[i] + gp[i];
    }
    printf("attach_sections: tag %ld sum %ld (%s)\n", s.tag, got,
           got == want ? "ok" : "WRONG");
    free(s.p);
    free(gp);
    return got != want;
}
