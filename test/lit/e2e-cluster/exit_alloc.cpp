// Destructors of C++ globals that allocate after the runtime shut down: a
// std::string, a copy of a vector filled in main (DSM memory), malloc, and
// realloc of a block allocated in main. After shutdown allocations come
// from the C library (private to the rank, which is leaving), DSM blocks
// are never freed and realloc copies them out of the range, which stays
// mapped. Before, the head's destructor died (std::bad_alloc, or SIGSEGV).
// RUN: %hcc++ -fopenmp -O2 %s -o %t
// RUN: bash %S/Inputs/status.sh %mpirun -np 2 %t | FileCheck --check-prefixes=OUT,ZERO %s
// RUN: bash %S/Inputs/status.sh %mpirun -np 4 %t | FileCheck --check-prefixes=OUT,ZERO %s
// RUN: %mpirun -np 1 %t | FileCheck --check-prefix=OUT %s
// OUT: sum 2000
// OUT-NEXT: dtor string 200 copy 1000 2 malloc ok realloc 'made in main' ok
// OUT-NOT: fault
// ZERO: status 0
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static char *block;

struct Global {
    std::vector<double> v;
    ~Global()
    {
        std::string s(200, 'x');
        std::vector<double> w(v);
        char *p = static_cast<char *>(malloc(100000));
        bool ok = p != nullptr;
        if (p) {
            memset(p, 1, 100000);
            ok = p[99999] == 1;
        }
        free(p);
        char *b = static_cast<char *>(realloc(block, 1 << 20));
        bool grown = b && (b[(1 << 20) - 1] = 'e') == 'e';
        std::printf("dtor string %zu copy %zu %.0f malloc %s realloc '%s' %s\n",
                    s.size(), w.size(), w.empty() ? 0.0 : w[10],
                    ok ? "ok" : "bad", b ? b : "(null)", grown ? "ok" : "bad");
        free(b);
    }
} g;

int main()
{
    double s = 0;
    g.v.assign(1000, 2.0);
    block = static_cast<char *>(malloc(64));
    strcpy(block, "made in main");
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 1000; i++)
        s += g.v[i];
    std::printf("sum %.0f\n", s);
    std::fflush(stdout);
    return 0;
}
