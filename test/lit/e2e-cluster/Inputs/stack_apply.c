/* The region half of stack_callback.c: parallel apply()s that call back
 * into the caller's file with the caller's buffers and context. */
void stack_apply(double *buf, int n, void (*fn)(double *, int))
{
#pragma omp parallel for
    for (int i = 0; i < n; i++)
        fn(buf, i);
}

void stack_apply_ctx(int n, void (*fn)(void *, int), void *ctx)
{
#pragma omp parallel for schedule(dynamic, 16)
    for (int i = 0; i < n; i++)
        fn(ctx, i);
}
