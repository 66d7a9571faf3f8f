/*
 * clock.c - monotonic time for every layer (timeouts, statistics, traces).
 */
#include <time.h>

#include "base/clock.h"

uint64_t hcrt__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
