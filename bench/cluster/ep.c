/* EP-like compute-bound loop (NPB EP in spirit): every iteration draws a
 * pair of pseudo-random numbers from its own index, keeps pairs inside
 * the unit circle and sums a Gaussian deviate. Nothing is shared but the
 * reduction, so the loop should scale with the nodes.
 * Usage: ep [log2 iterations]. Prints the sums, the loop's wall time and
 * the CPU time all threads of all nodes spent in it. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CPU time of the calling thread: unlike wall time it hardly depends on
 * what else the machine runs, so it shows the runtime's own overhead. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
    long n = 1L << (argc > 1 ? atoi(argv[1]) : 25);
    double sx = 0, sy = 0;
    long kept = 0;
    double cpu = 0;

    double t0 = omp_get_wtime();
#pragma omp parallel reduction(+ : sx, sy, kept, cpu)
    {
        double c0 = thread_cpu();
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i++) {
            uint64_t r = mix((uint64_t)i);
            double a = 2.0 * (double)(r >> 11) / 9007199254740992.0 - 1.0;
            double b = 2.0 * (double)(mix(r) >> 11) / 9007199254740992.0 - 1.0;
            double t = a * a + b * b;
            if (t <= 1.0 && t > 0.0) {
                double f = sqrt(-2.0 * log(t) / t);
                sx += a * f, sy += b * f;
                kept++;
            }
        }
        cpu += thread_cpu() - c0; /* before the join: no barrier wait */
    }
    double t1 = omp_get_wtime();
    printf("ep n=%ld kept=%ld sx=%.6e sy=%.6e threads=%d\n", n, kept, sx, sy,
           omp_get_max_threads());
    printf("time_s=%.6f\n", t1 - t0);
    printf("cpu_s=%.6f\n", cpu);
    return 0;
}
