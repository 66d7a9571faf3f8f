/* One schedule(hetprobe) loop, for tests that look at the decision. */
#include <stdio.h>

int main(void)
{
    long s = 0;
#pragma omp parallel for schedule(hetprobe) reduction(+ : s)
    for (long i = 0; i < 100000; i++)
        s += i % 7;
    printf("sum %ld\n", s);
    return 0;
}
