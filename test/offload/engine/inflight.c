/*
 * inflight.c - many target nowait regions in flight at once, dependences
 * across devices, and the placement policies. With HCRT_STATS=1 the head
 * reports the most tasks in flight at once (run_engine.sh checks >= 1000
 * when there are devices): the head keeps no thread per in-flight region.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

/* Each region of the first loop busies device 0 for SPIN seconds, far
 * longer than the head takes to issue one, so >= 1000 are in flight at
 * once whatever the thread counts and the load - as long as the head and
 * device 0 do not share a core (run_engine.sh binds them apart; sharing,
 * the head issued one region per region finished). (Spread over the devices,
 * the three devices of a 4-rank run finish them about as fast as a head
 * sharing two cores with their spinning kernels issues them: 117-1750 in
 * flight.) */
#define NT 2000
#define SPIN 1e-3
#define CH 64

int main(void)
{
    int nd = omp_get_num_devices(), fails = 0;
    int *x = calloc(NT, sizeof(int));
    long chain[4] = {1, 1, 1, 1};
    double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
    {
        for (int i = 0; i < NT; i++) {
#pragma omp target nowait depend(out : x[i]) map(tofrom : x[i : 1]) device(0)
            {
                double t = omp_get_wtime();
                while (omp_get_wtime() - t < SPIN)
                    ;
                x[i] = 3 * i + 1;
            }
        }
#pragma omp taskwait
        /* four chains of inout tasks, each hopping over the devices: the
         * data of a chain moves worker to worker */
        for (int s = 0; s < CH; s++)
            for (int c = 0; c < 4; c++) {
#pragma omp target nowait depend(inout : chain[c]) map(tofrom : chain[c : 1])
                chain[c] = (chain[c] * 31 + s + c) % 1000003;
            }
    }
    double t1 = omp_get_wtime();
    for (int i = 0; i < NT; i++)
        if (x[i] != 3 * i + 1)
            fails++;
    for (int c = 0; c < 4; c++) {
        long want = 1;
        for (int s = 0; s < CH; s++)
            want = (want * 31 + s + c) % 1000003;
        if (chain[c] != want) {
            fprintf(stderr, "chain %d: %ld, want %ld\n", c, chain[c], want);
            fails++;
        }
    }
    printf("inflight: %d device(s), %d tasks in %.3f s, %d failure(s)\n", nd,
           NT + 4 * CH, t1 - t0, fails);
    free(x);
    return fails != 0;
}
