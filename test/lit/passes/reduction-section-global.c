// clang 19 privatizes a global's array section named in a reduction clause
// but leaves the region's references to the global as they are: the
// threads (and nodes) update the shared global directly and lose updates
// (clang-19 itself from 4 threads). hcc says so at compile time, naming
// the variable; a whole array, or a section of a local, is privatized
// right and gets no warning.
// RUN: %clang -fopenmp -g -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o %t.ll 2>&1 | FileCheck %s
// RUN: %clang -fopenmp -g -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o %t2.ll 2>&1 | FileCheck %s
// CHECK: reduction-section-global.c:[[@LINE+13]]: warning: hcc: the region updates the reduction variable 'hist' itself, not its private copy: clang 19 does not privatize a global's array section in a reduction clause
// CHECK-NOT: warning: hcc
#define N 1000
long hist[16], whole[16];

void f(void)
{
    long loc[16] = {0};
#pragma omp parallel for reduction(+ : whole)
    for (int i = 0; i < N; i++)
        whole[i & 15] += 1;
#pragma omp parallel for reduction(+ : hist[0 : 16])
    for (int i = 0; i < N; i++)
        hist[i & 15] += 1;
#pragma omp parallel for reduction(+ : loc[0 : 16])
    for (int i = 0; i < N; i++)
        loc[i & 15] += 1;
    whole[0] += loc[0];
}
