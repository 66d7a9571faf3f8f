/* The region half of stack_global.c: a loop writes through a pointer that
 * another file stored in a global. */
extern double *stack_global_out;
extern int stack_global_n;

void stack_global_fill(double scale)
{
#pragma omp parallel for
    for (int i = 0; i < stack_global_n; i++)
        stack_global_out[i] = scale * i + (i % 7);
}
