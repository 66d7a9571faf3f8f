// Memory the pass's renamed calls do not allocate, read by every node's
// threads in cluster regions: std::string growth and a string stream's
// buffer inside libstdc++.so, strdup, asprintf and getline inside the C
// library, and blocks allocated before main (a C++ global vector and string,
// a C constructor's malloc) that the head changes in main. Without the
// process-wide allocator and the arena a worker reads its own heap at the
// head's addresses: wrong sums, silently (each case prints its own line).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh %s %t
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <omp.h>
#include <sstream>
#include <string>
#include <vector>

static std::vector<double> table(4096, 1.0); // before main (C++)
static std::string label(300, 'a');          // built inside libstdc++.so
static double *pre;                          // before main (C)
__attribute__((constructor)) static void mk(void)
{
    pre = (double *)malloc(4096 * sizeof(double));
    for (int i = 0; i < 4096; i++)
        pre[i] = 2.0;
}

static long sum_string(const std::string &s)
{
    long t = 0;
#pragma omp parallel for reduction(+ : t)
    for (long i = 0; i < (long)s.size(); i++)
        t += s[i] - 'a';
    return t;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "all";
    if (!strcmp(which, "all") || !strcmp(which, "string")) {
        std::string s;
        for (int i = 0; i < 5000; i++)
            s += (char)('a' + i % 7); // growth inside libstdc++.so
        printf("string: %ld\n", sum_string(s));
    }
    if (!strcmp(which, "all") || !strcmp(which, "sstream")) {
        std::ostringstream os;
        for (int i = 0; i < 2000; i++)
            os << (char)('a' + i % 5);
        std::string s = os.str();
        printf("sstream: %ld\n", sum_string(s));
    }
    if (!strcmp(which, "all") || !strcmp(which, "strdup")) {
        char buf[3000];
        for (int i = 0; i < 2999; i++)
            buf[i] = 'a' + i % 3;
        buf[2999] = 0;
        char *d = strdup(buf);
        long t = 0;
#pragma omp parallel for reduction(+ : t)
        for (int i = 0; i < 2999; i++)
            t += d[i] - 'a';
        printf("strdup: %ld\n", t);
        free(d);
    }
    if (!strcmp(which, "all") || !strcmp(which, "asprintf")) {
        char *d = NULL;
        if (asprintf(&d, "%03000d", 7) < 0)
            return 1;
        long t = 0;
#pragma omp parallel for reduction(+ : t)
        for (int i = 0; i < 3000; i++)
            t += d[i] - '0';
        printf("asprintf: %ld\n", t);
        free(d);
    }
    if (!strcmp(which, "all") || !strcmp(which, "getline")) {
        static char text[] = "0123456789012345678901234567890123456789\n";
        FILE *f = fmemopen(text, sizeof text - 1, "r");
        char *line = NULL;
        size_t cap = 0;
        ssize_t n = getline(&line, &cap, f);
        long t = 0;
#pragma omp parallel for reduction(+ : t)
        for (int i = 0; i < (int)n - 1; i++)
            t += line[i] - '0';
        printf("getline: %ld\n", t);
        free(line);
        fclose(f);
    }
    if (!strcmp(which, "all") || !strcmp(which, "premain")) {
        double t = 0;
        table[4000] = 5.0;
        pre[4000] = 6.0; // the head changes them
        label[299] = 'z';
#pragma omp parallel for reduction(+ : t)
        for (int i = 0; i < 4096; i++)
            t += table[i] + pre[i];
        printf("premain: %.0f, string %ld\n", t, sum_string(label));
    }
    return 0;
}
