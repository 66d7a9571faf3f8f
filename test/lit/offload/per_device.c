// Every device has its own data environment (OpenMP 4.5, 2.10): the same
// array entered on each device with different contents stays separate,
// with its own reference count, whether a device(n) clause or the
// default-device ICV names the device (OpenMP_VV's
// test_target_enter_data_set_default_device does this). At 4 ranks there
// are 3 devices, at 2 one; the reference (plain clang) has none, and the
// loops below run zero times there.
// RUN: %offload %s %t
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256

static long check(const int *a, int base, const char *what, int d)
{
    long bad = 0;
    for (int i = 0; i < N; i++)
        bad += a[i] != base + i;
    if (bad)
        fprintf(stderr, "%s, device %d: %ld wrong, a[0] = %d (want %d)\n",
                what, d, bad, a[0], base);
    return bad;
}

int main(void)
{
    int ndev = omp_get_num_devices(), *a = malloc(N * sizeof(int));
    long bad = 0;
    for (int d = 0; d < ndev; d++) { /* device d's copy: 100 d + i */
        for (int i = 0; i < N; i++)
            a[i] = 100 * d + i;
        omp_set_default_device(d);
#pragma omp target enter data map(to : a[0 : N])
    }
    omp_set_default_device(0);
    for (int d = 0; d < ndev; d++) {
        int first = -1;
#pragma omp target device(d) map(from : first) map(present, alloc : a[0 : N])
        first = a[0];
        if (first != 100 * d) {
            fprintf(stderr, "device %d reads %d, want %d\n", d, first, 100 * d);
            bad++;
        }
    }
    for (int d = 0; d < ndev; d++) { /* in place on each device */
#pragma omp target device(d) map(present, alloc : a[0 : N])
        for (int i = 0; i < N; i++)
            a[i] += 1;
    }
    if (ndev > 1) { /* device 0 holds it twice now, no copy */
        for (int i = 0; i < N; i++)
            a[i] = -7;
#pragma omp target enter data map(to : a[0 : N]) device(0)
    }
    for (int d = ndev - 1; d >= 0; d--) {
        for (int i = 0; i < N; i++)
            a[i] = -1;
#pragma omp target exit data map(from : a[0 : N]) device(d)
        if (d == 0 && ndev > 1) { /* a reference is left: nothing moves */
            if (a[0] != -1 || a[N - 1] != -1) {
                fprintf(stderr, "exit with a reference left copied back\n");
                bad++;
            }
        } else
            bad += check(a, 100 * d + 1, "exit", d);
    }
    if (ndev > 1) { /* the last reference: device 0's own copy comes back */
        for (int i = 0; i < N; i++)
            a[i] = -1;
#pragma omp target exit data map(from : a[0 : N]) device(0)
        bad += check(a, 1, "last exit", 0);
    }
    printf("per_device: %s\n", bad ? "WRONG" : "ok");
    free(a);
    return bad != 0;
}
