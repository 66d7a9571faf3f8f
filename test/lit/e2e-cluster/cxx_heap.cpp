// C++ heap memory across nodes: every replaceable form of operator new and
// delete (plain, array, nothrow, aligned, sized) gives DSM memory that
// threads of every node read and write inside cluster regions; std::vector,
// std::map nodes and a class with an over-aligned member too. Without the
// DSM heap for `new`, a worker faults on the head's libc memory.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <cstdio>
#include <map>
#include <new>
#include <vector>

struct alignas(256) Block {
    long v[8];
};

int main()
{
    const int n = 4000;
    std::vector<long> vec(n, 1);
    long *arr = new long[n];
    long *one = new long(7);
    long *nt = new (std::nothrow) long[n];
    Block *blocks = new Block[16];
    Block *b1 = new Block();
    std::map<int, long> m;
    for (int k = 0; k < 64; k++)
        m[k] = k * 10;
    std::vector<const long *> mv; /* map nodes reached by address */
    for (auto &kv : m)
        mv.push_back(&kv.second);
    bool aligned = ((unsigned long)blocks % 256 == 0) &&
                   ((unsigned long)b1 % 256 == 0);

    long sum = 0, msum = 0;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < n; i++) {
        arr[i] = i + *one;
        nt[i] = 2 * i;
        vec[i] += i;
        blocks[i % 16].v[i % 8] = 100 + i % 16; /* same value per slot */
        sum += vec[i];
    }
#pragma omp parallel for reduction(+ : msum)
    for (int k = 0; k < 64; k++)
        msum += *mv[k];
    long check = 0;
    for (int i = 0; i < n; i++)
        check += arr[i] + nt[i];
    std::printf("sum %ld check %ld map %ld aligned %d block %ld\n", sum,
                check, msum, (int)aligned, blocks[3].v[3]);
    delete b1;
    delete[] blocks;
    delete[] nt;
    delete one;
    delete[] arr;
    return 0;
}
