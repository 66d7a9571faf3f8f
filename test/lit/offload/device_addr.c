// Device addresses handed to host code (use_device_addr, use_device_ptr)
// stay meaningful for the whole run: the address a kernel sees for mapped
// data equals the one use_device_addr gives and has_device_addr passes on,
// and a device pointer kept after its use_device_ptr construct ends still
// reaches the mapped data in a later is_device_ptr kernel, whose writes
// exit data brings home. (A program doing this runs its target regions on
// the head: before, the first kernel ran on a worker and the addresses
// differed, and the later kernel wrote the host's copy on a worker.)
// RUN: %offload %s %t
#include <omp.h>
#include <stdio.h>

#define N 256

int main(void)
{
    int x = 10, arr[N], *a1, *x1, *a2, *x2;
    for (int i = 0; i < N; i++)
        arr[i] = i;
#pragma omp target enter data map(to : x, arr)
#pragma omp target map(from : x1, a1) map(to : x, arr)
    {
        x1 = &x;
        a1 = &arr[0];
    }
#pragma omp target data use_device_addr(x, arr)
#pragma omp target map(from : x2, a2) has_device_addr(x, arr)
    {
        x2 = &x;
        a2 = &arr[0];
    }
    printf("has_device_addr: same addresses %d %d\n", x1 == x2, a1 == a2);

    int *dp;
    int *p = arr;
#pragma omp target data use_device_ptr(p)
    dp = p;
#pragma omp target is_device_ptr(dp)
    for (int i = 0; i < N; i++)
        dp[i] += 1000;
#pragma omp target exit data map(from : x, arr)
    long s = 0;
    for (int i = 0; i < N; i++)
        s += arr[i];
    printf("is_device_ptr after the data construct: sum %ld\n", s);
    return 0;
}
