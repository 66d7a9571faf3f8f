// Locals of the head's main handed to another file's parallel apply()
// with a callback: a buffer the callback fills, a table it reads through a
// global pointer, and a context struct on the stack holding a pointer to
// yet another local. Before the DSM stacks, 2 ranks printed garbage sums or
// the worker died following the context's pointer.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --with %S/Inputs/stack_apply.c %s %t
#include <stdio.h>

void stack_apply(double *buf, int n, void (*fn)(double *, int));
void stack_apply_ctx(int n, void (*fn)(void *, int), void *ctx);

static double *table_ptr;

static void square(double *b, int i)
{
    b[i] = (double)i * i + table_ptr[i % 4];
}

struct ctx {
    double *out;
    double scale;
};

static void fill(void *c, int i)
{
    struct ctx *x = c;
    x->out[i] = x->scale * i;
}

int main(void)
{
    double table[4] = {1, 2, 3, 4};
    double buf[1000], out[3000];
    table_ptr = table;
    stack_apply(buf, 1000, square);
    struct ctx c = {out, 2.0};
    stack_apply_ctx(3000, fill, &c);
    double s = 0, t = 0;
    for (int i = 0; i < 1000; i++)
        s += buf[i];
    for (int i = 0; i < 3000; i++)
        t += out[i];
    printf("buffer %.1f context %.1f\n", s, t);
    return 0;
}
