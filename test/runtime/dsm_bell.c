/*
 * dsm_bell.c - service-thread wake-ups (runtime/dsm/bell.c) over the
 * message path: requests reach a home whose core is busy computing.
 *
 * Rank 0 homes 256 pages and pins itself, its service thread included, to
 * one core, then computes for 300 ms. The other ranks read the pages one
 * at a time in a scattered order (no prefetch runs), each a request to a
 * home whose service thread must be woken to answer, and check every
 * value. With HCRT_DSM_BELL=1 start-up fails unless every rank's
 * datagrams reach every other; afterwards rank 0 checks that bells did
 * wake its service thread. ctest runs it at 2 and 4 ranks.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <time.h>

#include "dsm/dsm_int.h"
#include "dsm_test.h"

#define NPAGES 256
#define PER_PAGE (4096 / sizeof(double))

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    /* before the service thread starts: it inherits the one core */
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r || strcmp(r, "0") == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0);
    }
    dsm_test_init(&argc, &argv);
    double *a = NULL;
    if (me == 0) {
        a = hcrt__dsm_malloc(NPAGES * 4096);
        CHECK(a != NULL);
        for (size_t i = 0; i < NPAGES * PER_PAGE; i++)
            a[i] = (double)i;
    }
    a = dsm_test_share(a, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);

    uint64_t woken0 = hcrt__bell_wakeups(&hcrt__dsm_bell);
    if (me == 0) {
        volatile double x = 1.0;
        double t0 = now_ms();
        while (now_ms() - t0 < 300.0)
            for (int i = 0; i < 10000; i++)
                x = x * 1.0000001 + 1e-9;
    } else {
        size_t bad = 0;
        /* every page once, in an order with no stride the prefetcher
         * follows: a permutation by a multiplier coprime with NPAGES */
        for (size_t k = 0; k < NPAGES; k++) {
            size_t p = (k * 97) % NPAGES;
            size_t i = p * PER_PAGE + (size_t)me % PER_PAGE;
            if (a[i] != (double)i && bad++ < 3)
                fprintf(stderr, "rank %d: a[%zu] = %g\n", me, i, a[i]);
        }
        CHECK_EQ(bad, 0);
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    if (me == 0) {
        uint64_t woken = hcrt__bell_wakeups(&hcrt__dsm_bell) - woken0;
        printf("dsm_bell: rank 0's service thread woken by %llu bells\n",
               (unsigned long long)woken);
        CHECK(woken > 0);
        hcrt__dsm_free(a);
    }
    return dsm_test_finish("dsm_bell");
}
