// A C++ target region on a worker node sees omp_is_initial_device() == 0,
// as a C one does: omp.h's host variant of the routine (in C++ a static
// function with a mangled name) must not fold to 1 inside kernels. OpenMP_VV
// probes offloading this way; before the fix its C++ tests ran their
// kernels on the workers but reported "on the host".
// RUN: %hcc++ -O2 %s -o %t
// RUN: timeout -k 5 120 %hcrun -n 2 --threads 1 %t | FileCheck --check-prefix=DEV %s
// RUN: timeout -k 5 120 %hcrun -n 1 --threads 1 %t | FileCheck --check-prefix=HOST %s
// DEV: kernel initial=0 (global 0) host initial=1
// HOST: kernel initial=1 (global 1) host initial=1
#include <cstdio>
#include <omp.h>

int probe = -1; // a global, mapped like OpenMP_VV's _ompvv_isOffloadingOn

struct S {
    static int where() { return omp_is_initial_device(); }
};

int main() {
    int r = -1;
#pragma omp target map(from : r)
    r = S::where();
#pragma omp target map(from : probe)
    probe = omp_is_initial_device();
    std::printf("kernel initial=%d (global %d) host initial=%d\n", r, probe,
                omp_is_initial_device());
    return 0;
}
