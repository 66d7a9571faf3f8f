/*
 * debug.c - HCRT_DSM_DEBUG_DELAY: randomised delays at the protocol's
 * racy points, to make the torture tests adversarial on purpose.
 *
 * A coherence protocol that is right only when its threads run in the
 * usual order is wrong; the usual order is what an idle machine gives.
 * With HCRT_DSM_DEBUG_DELAY=<max us>[,seed[,sites]] every thread that
 * reaches a delay point (DSM_DELAY in the service thread, the release path, the
 * diff apply, the acquire and the fault path) draws from its own random
 * stream: one time in sixteen each a yield, a busy wait or a sleep of up
 * to <max us>, else nothing. Everything here is async-signal-safe (the
 * fault path runs in a signal handler): a thread-local generator,
 * clock_gettime, nanosleep and sched_yield.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "dsm/dsm_int.h"

unsigned hcrt__dsm_delay_us;
static uint64_t delay_seed;
static unsigned delay_sites = ~0u; /* bit per DLY_* site */
static _Atomic uint64_t delay_threads;
static __thread uint64_t rng; /* 0: not seeded yet */

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t next(void)
{
    if (!rng) /* one stream per thread and rank, all from the seed */
        rng = splitmix(delay_seed ^ ((uint64_t)dsm.rank << 48) ^
                       atomic_fetch_add(&delay_threads, 1)) |
              1;
    rng ^= rng << 13; /* xorshift64 */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void spin_ns(uint64_t ns)
{
    uint64_t t0 = hcrt__dsm_now_ns();
    while (hcrt__dsm_now_ns() - t0 < ns)
        __builtin_ia32_pause();
}

void hcrt__dsm_delay_at(int site)
{
    if (!(delay_sites & (1u << site)))
        return;
    uint64_t r = next() ^ (uint64_t)site;
    uint64_t ns = ((r >> 8) % ((uint64_t)hcrt__dsm_delay_us + 1)) * 1000;
    switch (r & 15) {
    default:
        return;
    case 13:
        sched_yield();
        return;
    case 14:
        spin_ns(ns);
        return;
    case 15: {
        struct timespec ts = {(time_t)(ns / 1000000000),
                              (long)(ns % 1000000000)};
        nanosleep(&ts, NULL);
    }
    }
}

/* Site letters of the optional third field, in DLY_* order from 1. */
static const char site_letters[] = "srdaf";

static int parse_sites(const char *s, char **end)
{
    delay_sites = 0;
    for (; *s && *s != ','; s++) {
        const char *c = strchr(site_letters, *s);
        if (!c)
            break;
        delay_sites |= 1u << (c - site_letters + 1);
    }
    *end = (char *)s;
    return delay_sites != 0;
}

/* Parses HCRT_DSM_DEBUG_DELAY ("" or "0": off; "<max us>[,seed[,sites]]"). */
hcrt_status_t hcrt__dsm_debug_init(void)
{
    const char *v = hcrt__config_string("HCRT_DSM_DEBUG_DELAY");
    char *end = NULL;
    hcrt__dsm_delay_us = 0;
    if (!v || !*v)
        return HCRT_OK;
    unsigned long us = strtoul(v, &end, 10);
    unsigned long long seed = 0;
    int ok = end != v && us <= 1000000;
    if (ok && *end == ',') {
        const char *s = end + 1;
        seed = strtoull(s, &end, 0);
        ok = end != s;
    }
    if (ok && *end == ',')
        ok = parse_sites(end + 1, &end);
    if (!ok || *end) {
        hcrt_error(HCRT_MOD_DSM,
                   "HCRT_DSM_DEBUG_DELAY='%s' is not <max us>[,seed[,sites]] "
                   "with max us at most 1000000 and sites letters of '%s' "
                   "(service, release, diff, acquire, fault); use e.g. "
                   "HCRT_DSM_DEBUG_DELAY=200 or HCRT_DSM_DEBUG_DELAY=200,7,rd",
                   v, site_letters);
        return HCRT_ERR_INVALID;
    }
    if (seed == 0) /* none given (or 0): a different run each time */
        seed = (uint64_t)hcrt__dsm_now_ns() ^ ((uint64_t)getpid() << 20);
    delay_seed = seed;
    hcrt__dsm_delay_us = (unsigned)us;
    if (us)
        hcrt_debug(HCRT_MOD_DSM, "debug delays of up to %lu us, seed %llu", us,
                   (unsigned long long)seed);
    return HCRT_OK;
}
