// The other file of the xfile_cxx*.cpp tests: regions on containers and
// callables its caller built.
#include <functional>
#include <map>
#include <vector>

#include "cxx_flows.h"

void fill(std::vector<double> &v)
{
#pragma omp parallel for
    for (long i = 0; i < (long)v.size(); i++)
        v[i] = 0.5 * (double)i;
}

void count_keys(std::map<int, long> &m, int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
#pragma omp critical(map_insert)
        m[i % 97]++;
    }
}

void for_each_index(const std::function<void(int)> &f, int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        f(i);
}

/* A static local initialised on first use inside a region: the C++ guard
 * lets one thread construct it; every thread then reads the same value. */
static long made;
static long make_value()
{
#pragma omp atomic
    made++;
    return 42;
}

long guarded_static()
{
    static long value = make_value();
    return value;
}

long constructions()
{
    return made;
}

thread_local long tl_count = 100;
