/*
 * unsupported.c - use_device_ptr and is_device_ptr: forms target offload
 * across nodes does not support run on the head with a diagnostic and give
 * the right result, also for data the devices hold (run_engine.sh checks
 * the diagnostic when there are devices).
 */
#include <omp.h>
#include <stdio.h>
int main(void)
{
    int a[16], fails = 0;
    int *q = a;
    for (int i = 0; i < 16; i++)
        a[i] = i;
#pragma omp target data map(tofrom : a)
    {
#pragma omp target /* on a device: the host copy is stale after this */
        for (int i = 0; i < 16; i++)
            a[i] *= 2;
#pragma omp target data map(tofrom : q[0 : 16]) use_device_ptr(q)
        {
            int *p = q;
#pragma omp target is_device_ptr(p)
            for (int i = 0; i < 16; i++)
                p[i] += 1;
        }
#pragma omp target
        for (int i = 0; i < 16; i++)
            a[i] *= 3;
    }
    for (int i = 0; i < 16; i++)
        if (a[i] != (2 * i + 1) * 3)
            fails++;
    printf("unsupported: %d device(s), %d failure(s)\n", omp_get_num_devices(),
           fails);
    return fails != 0;
}
