// A C++ program: std::vector data, lambdas and member functions with
// parallel loops, a template reduction, a declare reduction on a class,
// exceptions caught inside a region, tasks capturing by value, and
// std::sort on gathered results.
// RUN: %e2e --O0 %s %t
#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "e2e.h"

struct Vec3 {
    long x = 0, y = 0, z = 0;
    Vec3 &operator+=(const Vec3 &o)
    {
        x += o.x, y += o.y, z += o.z;
        return *this;
    }
};
#pragma omp declare reduction(vplus : Vec3 : omp_out += omp_in) \
    initializer(omp_priv = Vec3())

template <typename T> T parallel_sum(const std::vector<T> &v)
{
    T s = T();
#pragma omp parallel for reduction(+ : s)
    for (size_t i = 0; i < v.size(); i++)
        s += v[i];
    return s;
}

class Grid {
  public:
    explicit Grid(int n) : n_(n), cells_(n * n) {}
    void fill()
    {
#pragma omp parallel for collapse(2)
        for (int i = 0; i < n_; i++)
            for (int j = 0; j < n_; j++)
                cells_[i * n_ + j] = (i * 31 + j * 17) % 97;
    }
    long checksum() const
    {
        long s = 0;
#pragma omp parallel for reduction(+ : s)
        for (int k = 0; k < n_ * n_; k++)
            s += cells_[k] * (k % 13 + 1);
        return s;
    }

  private:
    int n_;
    std::vector<int> cells_;
};

int main()
{
    std::vector<long> v(100000);
    std::iota(v.begin(), v.end(), 1);
    long s = parallel_sum(v);
    std::vector<double> dv(5000, 0.5);
    double ds = parallel_sum(dv);
    CHECK(s == 5000050000L && ds == 2500.0, "template sums %ld %g", s, ds);

    Grid g(300);
    g.fill();
    long gc = g.checksum();

    Vec3 acc;
#pragma omp parallel for reduction(vplus : acc)
    for (int i = 0; i < 3000; i++) {
        acc.x += i;
        acc.y += i % 7;
        acc.z += 1;
    }
    CHECK(acc.x == 4498500 && acc.z == 3000, "Vec3 reduction");

    /* lambdas called from a region, capturing by reference and by value */
    std::vector<int> squares(1000);
    int offset = 3;
    auto sq = [offset](int i) { return i * i + offset; };
#pragma omp parallel for
    for (int i = 0; i < 1000; i++)
        squares[i] = sq(i);

    /* exceptions thrown and caught inside the same thread's iteration */
    int caught = 0;
#pragma omp parallel for reduction(+ : caught)
    for (int i = 0; i < 500; i++) {
        try {
            if (i % 50 == 0)
                throw std::runtime_error("bad " + std::to_string(i));
        } catch (const std::exception &) {
            caught++;
        }
    }
    CHECK(caught == 10, "exceptions caught %d", caught);

    /* tasks gather results into per-task slots; sort for a fixed order */
    std::vector<std::string> names(40);
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 40; i++) {
#pragma omp task firstprivate(i) shared(names)
        names[i] = "item" + std::to_string((i * 7) % 40);
    }
    std::sort(names.begin(), names.end());
    std::map<std::string, int> counts;
    for (auto &n : names)
        counts[n]++;
    CHECK(counts.size() == 40, "task strings %zu", counts.size());

    printf("cxx: sum=%ld dsum=%.1f grid=%ld vec3=(%ld,%ld,%ld) sq=%016llx "
           "caught=%d first=%s last=%s\n",
           s, ds, gc, acc.x, acc.y, acc.z,
           (unsigned long long)e2e_hash_ints(squares.data(), 1000), caught,
           names.front().c_str(), names.back().c_str());
    return e2e_finish("cxx_program");
}
