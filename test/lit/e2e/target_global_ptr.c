// Array sections reached through *global* pointer variables in target
// constructs: an explicit map of gp[0:N], a device copy created by enter
// data and used by a later target, and a global pointer used (implicitly
// mapped, attached to the enclosing data region's copy) inside a target.
// A PTR_AND_OBJ kernel parameter is the pointee, not the pointer's address
// (the runtime once passed &gp and the kernel crashed).
// RUN: %e2e --target %s %t
#include <stdlib.h>

#include "e2e.h"

#define N 1024

long *gp;
static long *sp;
int *gx, *gy;

int main(void)
{
    gp = malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        gp[i] = i;
#pragma omp target map(tofrom : gp[0:N])
    for (int i = 0; i < N; i++)
        gp[i] = gp[i] * 2 + 1;
    CHECK(gp[N - 1] == 2 * N - 1, "explicit map: %ld", gp[N - 1]);

    sp = malloc(N * sizeof(long));
    for (int i = 0; i < N; i++)
        sp[i] = i;
#pragma omp target enter data map(to : sp[0:N])
#pragma omp target map(alloc : sp[0:N])
    for (int i = 0; i < N; i++)
        sp[i] += 5;
#pragma omp target exit data map(from : sp[0:N])
    CHECK(sp[0] == 5 && sp[N - 1] == N + 4, "enter/exit: %ld", sp[N - 1]);

    /* as OpenMP_VV's test_target_enter_exit_data_map_malloced_array */
    int *a = malloc(N * sizeof(int)), *b = malloc(N * sizeof(int));
    for (int i = 0; i < N; i++)
        a[i] = N;
    gx = a;
    gy = b;
#pragma omp target data map(tofrom : gx[:N]) map(from : gy[:N])
    {
#pragma omp target exit data map(delete : gx[:N])
        for (int i = 0; i < N; ++i)
            gx[i] = 0;
#pragma omp target map(to : gx[:N])
        for (int i = 0; i < N; i++)
            gy[i] = gx[i];
    }
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += b[i] != 0;
    CHECK(bad == 0, "implicit global pointer: %ld wrong", bad);
    printf("target_global_ptr: %ld %ld %ld\n", gp[N - 1], sp[N - 1], bad);
    free(gp), free(sp), free(a), free(b);
    return e2e_finish("target_global_ptr");
}
