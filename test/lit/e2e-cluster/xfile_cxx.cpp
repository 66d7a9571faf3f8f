// C++ objects flowing between separately compiled files, kept off the
// head's stack: a std::vector and a std::map built here (on the heap)
// and filled in regions of another file, a std::function on the heap whose
// lambda captures heap memory and updates it atomically (the lambda runs in
// another file's region, reached through std::function's invoker: its
// atomics must be cluster-wide too), a lambda capturing locals by reference
// used by a region in its own file, a thread_local defined in the other
// file (one copy per thread of every node, kept across regions of the same
// team), and a static local initialised on first use inside a region.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   -I %S/Inputs/xfile --src %S/Inputs/xfile/cxx_b.cpp %s %t
#include <cstdio>
#include <omp.h>

#include "cxx_flows.h"

/* Globals pointing to containers made in main: static constructors run
 * before the DSM exists, and destructors of C++ globals after it is gone
 * (docs/runtime.md, "Memory"). */
static std::vector<double> *gvec;
static std::map<int, long> *gmap;

template <class F> static void run_here(F f, int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        f(i);
}

int main()
{
    gvec = new std::vector<double>(5000);
    gmap = new std::map<int, long>;
    fill(*gvec);
    double s = 0;
    for (double x : *gvec)
        s += x;
    auto *hv = new std::vector<double>(3000);
    fill(*hv);
    double s2 = 0;
    for (double x : *hv)
        s2 += x;
    printf("vectors filled in another file: %.1f %.1f\n", s, s2);

    count_keys(*gmap, 9700);
    auto *hm = new std::map<int, long>;
    count_keys(*hm, 970);
    long keys = 0, ok = 1;
    for (auto &kv : *gmap)
        keys++, ok &= kv.second == 100;
    for (auto &kv : *hm)
        ok &= kv.second == 10;
    printf("maps filled in another file: %ld keys, counts right %ld, %zu\n",
           keys, ok, hm->size());

    long *hits = new long[64]();
    auto *fn = new std::function<void(int)>([hits](int i) {
#pragma omp atomic
        hits[i % 64]++;
    });
    for_each_index(*fn, 6400);
    long all = 1;
    for (int k = 0; k < 64; k++)
        all &= hits[k] == 100;
    printf("heap std::function with a heap capture: every slot 100 %ld\n",
           all);

    long local_sum = 0;
    double local_arr[8] = {0};
    run_here(
        [&](int i) {
#pragma omp atomic
            local_sum += i;
#pragma omp atomic
            local_arr[i % 8] += 1.0;
        },
        800);
    printf("lambda capturing locals by reference: %ld %.0f %.0f\n",
           local_sum, local_arr[0], local_arr[7]);

    long tls_ok = 0;
#pragma omp parallel reduction(+ : tls_ok)
    {
#pragma omp for
        for (int i = 0; i < 64; i++)
            ;
        tl_count += omp_get_thread_num();
    }
#pragma omp parallel reduction(+ : tls_ok)
    {
#pragma omp for
        for (int i = 0; i < 64; i++)
            ;
        tls_ok += tl_count == 100 + omp_get_thread_num();
    }
    printf("thread_local kept per thread: %d\n",
           tls_ok == omp_get_max_threads());

    long bad = 0;
#pragma omp parallel for reduction(+ : bad)
    for (int i = 0; i < 1000; i++)
        bad += guarded_static() != 42;
    printf("static local initialised in a region: %ld wrong, constructed "
           "once %d\n",
           bad, constructions() == 1);
    return 0;
}
