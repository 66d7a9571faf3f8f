// A stack array of the head's sequential code, passed to a function in
// another file that updates it inside a parallel region (issue 23: NPB's
// verify() -> error_norm(double rms[5])). The pass sees one file at a
// time; the head's main runs on a DSM stack, so the array is shared memory
// whatever the build: one hcc command, separately compiled files, the
// region function in a static library, and a plain clang-19 build with
// -fpass-plugin=HCCPasses.so. Each must print the reference's sums at 1, 2
// and 4 ranks (before the DSM stacks, 2 ranks printed half of them).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --with %S/Inputs/stack_norm.c %s %t.together
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --with %S/Inputs/stack_norm.c --build separate --threads 2 %s %t.separate
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --with %S/Inputs/stack_norm.c --build archive --threads 1 %s %t.archive
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' PLUGIN=%plugin HCRT_LIB=%runtime_lib bash %S/Inputs/run.sh --with %S/Inputs/stack_norm.c --build plugin --threads 2 %s %t.plugin
#include <stdio.h>

extern double grid[4096];
void norm(double rms[5]);

static void verify(void)
{
    double x[5];
    norm(x);
    printf("%.1f %.1f %.1f %.1f %.1f\n", x[0], x[1], x[2], x[3], x[4]);
}

int main(void)
{
    for (int i = 0; i < 4096; i++)
        grid[i] = i % 10;
    verify();
    return 0;
}
