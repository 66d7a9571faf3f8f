/* No parallel region, no target region: nothing for the statistics of
 * HCRT_STATS=1 to say. */
#include <stdio.h>

int main(void)
{
    long s = 0;
    for (int i = 0; i < 1000; i++)
        s += i;
    printf("s=%ld\n", s);
    return 0;
}
