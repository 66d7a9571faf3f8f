// A local array of the head's main whose address another file's code
// reaches through a global pointer, and a parallel loop there writes every
// element (issue 23's variant; before the DSM stacks, 2 ranks lost the
// worker's share, and at 2 threads per rank the worker wrote over its own
// frames and crashed, its report repeated dozens of times).
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --with %S/Inputs/stack_global_fill.c --build separate %s %t
#include <stdio.h>

double *stack_global_out;
int stack_global_n;
void stack_global_fill(double scale);

int main(void)
{
    double a[6000];
    stack_global_out = a;
    stack_global_n = 6000;
    stack_global_fill(0.5);
    double s = 0;
    for (int i = 0; i < 6000; i++)
        s += a[i] * (i % 3 + 1);
    printf("sum %.1f\n", s);
    return 0;
}
