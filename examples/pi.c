/*
 * pi.c - Monte-Carlo estimate of pi with a deterministic random stream.
 *
 * Sample i is the point (x, y) made from a counter-based generator
 * (splitmix64 of i), so which thread or node draws it does not matter: the
 * count of points inside the quarter circle is an exact integer sum, and
 * the printed estimate is identical for any team size.
 *
 *   hcc -O2 pi.c -o pi && HCRT_STATS=1 hcrun -n 2 ./pi
 */
#include <stdint.h>
#include <stdio.h>

#define SAMPLES 40000000L

static inline uint64_t splitmix64(uint64_t i)
{
    uint64_t z = i * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(void)
{
    long inside = 0;
    /* dynamic chunks: nodes and threads that go faster take more */
#pragma omp parallel for reduction(+ : inside) schedule(dynamic, 65536)
    for (long i = 0; i < SAMPLES; i++) {
        uint64_t r = splitmix64((uint64_t)i);
        double x = (double)(r >> 32) / 4294967296.0;
        double y = (double)(r & 0xffffffffu) / 4294967296.0;
        inside += x * x + y * y < 1.0;
    }
    printf("pi: %ld samples, %ld inside the quarter circle\n", SAMPLES, inside);
    printf("pi: estimate %.9f\n", 4.0 * (double)inside / (double)SAMPLES);
    return 0;
}
