/*
 * event_test.h - start-up and helpers shared by the event system's tests.
 *
 * Each test brings the runtime up (MPI with THREAD_MULTIPLE), then the
 * event system with explicit options (a test may shrink the fragment size
 * or the deadlines), runs, shuts the event system down and returns the
 * failure count of all ranks; ctest runs each at 2 and 4 ranks under a
 * timeout.
 */
#ifndef HCRT_EVENT_TEST_H
#define HCRT_EVENT_TEST_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libhcrt/event/event.h"
#include "libhcrt/runtime.h"
#include "rt_test.h"

static int me, nranks;

static void ev_test_init(int *argc, char ***argv, const hcrt__event_opts_t *o)
{
    if (hcrt__runtime_init(argc, argv) != HCRT_OK) {
        fprintf(stderr, "runtime init failed\n");
        exit(2);
    }
    me = hcrt__rank();
    nranks = hcrt__size();
    /* The tests need their own options: restart the event system if the
     * runtime already brought it up with the settings. */
    if (hcrt__event_is_up() && hcrt__event_fini() != HCRT_OK) {
        fprintf(stderr, "event fini of the runtime's instance failed\n");
        exit(2);
    }
    hcrt_status_t st = hcrt__event_init(hcrt__comm_world(), o);
    if (st != HCRT_OK) {
        fprintf(stderr, "event init failed: %s\n", hcrt_strerror(st));
        exit(2);
    }
}

/* Shuts the event system down expecting `want` from fini, and sums the
 * failures of every rank. */
static int ev_test_finish(const char *name, hcrt_status_t want)
{
    hcrt_status_t st = hcrt__event_fini();
    CHECK_EQ(st, want);
    int mine = check_failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, hcrt__comm_world());
    if (me == 0)
        printf("%s: %s (%d failures over %d ranks)\n", name,
               total ? "FAILED" : "ok", total, nranks);
    return total ? 1 : 0;
}

static double ev_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Threads of this process (entries of /proc/self/task). */
static int ev_thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static uint8_t ev_pattern(uint64_t seed, size_t i)
{
    uint64_t x = (seed + i) * 0x9E3779B97F4A7C15ull;
    return (uint8_t)(x >> 56);
}

static void ev_fill(void *p, size_t n, uint64_t seed)
{
    uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        b[i] = ev_pattern(seed, i);
}

/* Index of the first byte that differs from the pattern, or n. */
static size_t ev_check(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != ev_pattern(seed, i))
            return i;
    return n;
}

#endif /* HCRT_EVENT_TEST_H */
