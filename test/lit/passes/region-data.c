// Regions whose threads work on their own data (RegionData.cpp) get
// HCRT_REGION_OWN_DATA (1) in the descriptor's flags, the field after the
// microtask; every other region 0. Real clang-19 output at -O0 and -O2.
// RUN: %clang -fopenmp -fpass-plugin=%plugin -O0 -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang -fopenmp -fpass-plugin=%plugin -O2 -S -emit-llvm %s -o - | FileCheck %s

double shared_arr[1024];
double scale = 2.0;
double tp[64];
#pragma omp threadprivate(tp)
long counts[8];
void external_fill(double *p, int n);

static void fill(double *p, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = i * scale;
}

// private stores, threadprivate, shared scalar read, reduction, atomic,
// an external function given private pointers, a helper given private ones
// CHECK-DAG: ptr @own.omp_outlined, i32 1, i32 0 }
double own(int n)
{
    double sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
        double mine[16];
        fill(mine, 16);
        external_fill(tp, 64);
#pragma omp for
        for (int i = 0; i < n; i++) {
            sum += mine[i % 16] * scale + tp[i % 64];
#pragma omp atomic
            counts[i % 8]++;
        }
    }
    return sum;
}

// a plain store to a shared array
// CHECK-DAG: ptr @writes.omp_outlined, i32 0, i32 0 }
void writes(int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        shared_arr[i] = i;
}

// a shared array read (its pages move), even into a reduction
// CHECK-DAG: ptr @reads.omp_outlined, i32 0, i32 0 }
double reads(int n)
{
    double s = 0;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += shared_arr[i];
    return s;
}

// the helper gets a shared pointer here
// CHECK-DAG: ptr @helper.omp_outlined, i32 0, i32 0 }
void helper(void)
{
#pragma omp parallel
    {
        double mine[16];
        fill(mine, 16);
#pragma omp single
        fill(shared_arr, 16);
    }
}

// an external function that may write through a shared pointer
// CHECK-DAG: ptr @external.omp_outlined, i32 0, i32 0 }
void external(void)
{
#pragma omp parallel
    external_fill(shared_arr, 1);
}

// a shared scalar written in a critical section
// CHECK-DAG: ptr @critical.omp_outlined, i32 0, i32 0 }
void critical(void)
{
#pragma omp parallel
    {
#pragma omp critical
        scale += 1;
    }
}
