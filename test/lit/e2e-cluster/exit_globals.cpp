// C++ globals whose destructors read their heap objects after the runtime
// shut down: a stream opened before main (its buffer allocated before
// main) and one opened in main (its buffer from inside libstdc++.so, DSM
// memory), each flushed only by its destructor, and a map filled in main.
// Only the head runs the destructors, and the DSM heap stays readable for
// them: the files hold exactly the head's lines, the job ends with 0.
// Without that the head's flush reads unmapped memory (an empty file), or
// a worker's destructors flush the head's buffer a second time.
// RUN: %hcc++ -fopenmp -O2 %s -o %t
// RUN: rm -f %t.early %t.late
// RUN: bash %S/Inputs/status.sh %mpirun -np 2 -x EARLY=%t.early -x LATE=%t.late %t | FileCheck --check-prefixes=OUT,ZERO %s
// RUN: cat %t.early %t.late | FileCheck --check-prefix=FILES %s
// RUN: rm -f %t.early %t.late
// RUN: bash %S/Inputs/status.sh %mpirun -np 4 -x EARLY=%t.early -x LATE=%t.late %t | FileCheck --check-prefixes=OUT,ZERO %s
// RUN: cat %t.early %t.late | FileCheck --check-prefix=FILES %s
// RUN: cat %t.early %t.late | wc -l | FileCheck --check-prefix=LINES %s
// RUN: %mpirun -np 1 -x EARLY=%t.early -x LATE=%t.late %t | FileCheck --check-prefix=OUT %s
// RUN: cat %t.early %t.late | FileCheck --check-prefix=FILES %s
// RUN: cat %t.early %t.late | wc -l | FileCheck --check-prefix=LINES %s
// OUT-NOT: fault
// OUT: sum 499500 map 40000
// OUT-NOT: fault
// ZERO: status 0
// FILES: early sum 499500
// FILES-NEXT: late map 40000
// LINES: {{^2$}}
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

static const char *path(const char *var)
{
    const char *p = getenv(var);
    return p ? p : "/dev/null";
}

std::ofstream early(path("EARLY"));
std::ofstream late;
std::map<int, std::string> names;

int main()
{
    late.open(path("LATE"));
    for (int i = 0; i < 1000; i++)
        names[i] = std::string(40, 'a' + i % 26);
    long s = 0, m = 0;
#pragma omp parallel for reduction(+ : s, m)
    for (int i = 0; i < 1000; i++) {
        s += i;
        m += names.at(i).size();
    }
    early << "early sum " << s << "\n";
    late << "late map " << m << "\n";
    printf("sum %ld map %ld\n", s, m);
    return 0;
}
