// C++ objects on the head's stack used by regions of another file: a local
// std::vector and std::map filled there, and a std::function whose lambda
// captures locals by reference. The objects' own bytes (the vector's
// pointers, the map's header, the closure) are on the head's stack frame,
// which a per-module analysis of this file cannot see escape.
// They are valid on every node because the head's main runs on a DSM stack.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh \
// RUN:   -I %S/Inputs/xfile --src %S/Inputs/xfile/cxx_b.cpp %s %t
#include <cstdio>

#include "cxx_flows.h"

int main()
{
    std::vector<double> v(4000);
    fill(v);
    double s = 0;
    for (double x : v)
        s += x;
    std::map<int, long> m;
    count_keys(m, 970);
    long ok = m.size() == 97;
    for (auto &kv : m)
        ok &= kv.second == 10;
    long sum = 0, hits[16] = {0};
    std::function<void(int)> f = [&](int i) {
#pragma omp atomic
        sum += i;
#pragma omp atomic
        hits[i % 16]++;
    };
    for_each_index(f, 1600);
    printf("local vector %.1f, local map right %ld, lambda by reference "
           "%ld %ld %ld\n",
           s, ok, sum, hits[0], hits[15]);
    return 0;
}
