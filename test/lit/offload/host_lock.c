// A lock taken inside a target region. One the host initialised (copied
// in by `firstprivate`, DataRaceBench DRB152) is the host's: on a worker
// its value is a host object or a DSM lock word at another address, and
// omp_set_lock crashed the worker. The pass marks a region that takes a
// lock it does not initialise (hcrt_kernel_desc_t.host_only, an entry
// naming the routine) and the runtime runs it on the head. A region that
// initialises its own lock still goes to a device, and so does one with a
// `critical` (its lock, a global of libomp's, is the running node's own).
// RUN: %offload %s %t
// RUN: %hcc -fopenmp -O2 %s -o %t.bin && env HCRT_LOG=target:2 %hcrun -n 2 %t.bin 2>&1 | FileCheck %s --check-prefix=NOTE
// NOTE: target region {{.*}} runs on the head: it calls omp_set_lock on a lock it does not initialise
// NOTE-NOT: runs on the head
// NOTE: host lock 400, own lock 400, critical 400
#include <omp.h>
#include <stdio.h>

#define N 400

int main(void)
{
    omp_lock_t lck;
    int var = 0, own = 0, crit = 0;

    omp_init_lock(&lck);
#pragma omp target map(tofrom : var)
#pragma omp teams num_teams(1)
#pragma omp distribute parallel for
    for (int i = 0; i < N; i++) {
        omp_set_lock(&lck);
        var++;
        omp_unset_lock(&lck);
    }
    omp_destroy_lock(&lck);

#pragma omp target map(tofrom : own)
    {
        omp_lock_t mine;
        omp_init_lock(&mine);
#pragma omp parallel for
        for (int i = 0; i < N; i++) {
            omp_set_lock(&mine);
            own++;
            omp_unset_lock(&mine);
        }
        omp_destroy_lock(&mine);
    }
#pragma omp target map(tofrom : crit)
#pragma omp parallel for
    for (int i = 0; i < N; i++) {
#pragma omp critical(count)
        crit++;
    }
    printf("host lock %d, own lock %d, critical %d\n", var, own, crit);
    return 0;
}
