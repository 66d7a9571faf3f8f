/*
 * guard.c - C++ function-local statics initialised once per program.
 *
 * The Itanium C++ ABI guards a function-local static with a 64-bit guard
 * variable (byte 0: initialised) and __cxa_guard_acquire/release/abort,
 * whose waiting is node-local (futexes). A guard in DSM memory (a global of
 * an hcc-compiled module) is shared by all nodes, so in cluster mode the
 * pass's __hcrt_cxa_guard_* run the protocol with DSM atomics at the
 * guard's home: one thread of the whole program initialises the static
 * (byte 1 marks it pending), the others wait, and release publishes the
 * object before the guard (release, then the store). A node may use the
 * static only after it acquired past the initialisation: the inline fast
 * path asks __hcrt_cxa_guard_done, which answers from a table of the guards
 * this node has acquired past (its copy of the guard's page alone could be
 * newer than its copy of the object's). Anything else, and one node, is
 * libstdc++'s protocol.
 */
#include <stdint.h>
#include <time.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"

/* libstdc++'s (only C++ programs call the functions below) */
int __cxa_guard_acquire(uint64_t *g) __attribute__((weak));
void __cxa_guard_release(uint64_t *g) __attribute__((weak));
void __cxa_guard_abort(uint64_t *g) __attribute__((weak));

#define IN_DSM(g) (HCRT_UNLIKELY(hcrt__cluster_on) && hcrt__dsm_contains(g))
#define PENDING 0x100ULL /* byte 1, as libstdc++ marks it */

/* Guards this node has acquired past (open addressing, never removed). */
#define DONE_SLOTS 4096
static uintptr_t done_tab[DONE_SLOTS];

static size_t slot_of(const void *g)
{
    return (size_t)(((uintptr_t)g >> 3) * 0x9E3779B97F4A7C15ULL >> 52);
}

static int done_here(const void *g)
{
    size_t h = slot_of(g);

    for (size_t i = 0; i < DONE_SLOTS; i++) {
        uintptr_t v =
            __atomic_load_n(&done_tab[(h + i) % DONE_SLOTS], __ATOMIC_ACQUIRE);
        if (v == (uintptr_t)g)
            return 1;
        if (v == 0)
            return 0;
    }
    return 0;
}

/* Full table: the guard keeps asking its home (correct, slower). */
static void mark_done(const void *g)
{
    size_t h = slot_of(g);

    for (size_t i = 0; i < DONE_SLOTS; i++) {
        uintptr_t *s = &done_tab[(h + i) % DONE_SLOTS], v = 0;
        if (__atomic_compare_exchange_n(s, &v, (uintptr_t)g, 0,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED) ||
            v == (uintptr_t)g)
            return;
    }
}

/* Guards the calling thread is initialising: waiting on one of them is a
 * recursive initialisation, which would otherwise wait forever. */
#define MAX_NESTED_INIT 16
static _Thread_local const void *initing[MAX_NESTED_INIT];
static _Thread_local int ninit;

static uint64_t guard_cas(uint64_t *g, uint64_t expect, uint64_t val)
{
    return hcrt__dsm_atomic(g, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_CAS, val,
                            expect, __ATOMIC_RELAXED);
}

static void check_recursion(const void *g)
{
    for (int i = 0; i < ninit; i++)
        if (initing[i] == g)
            hcrt_fatal(HCRT_MOD_CORE,
                       "a function-local static at %p is used by its own "
                       "initialiser (recursive initialisation, undefined "
                       "in C++)",
                       g);
}

HCRT_ABI_EXPORT uint8_t __hcrt_cxa_guard_done(uint64_t *g)
{
    if (!IN_DSM(g))
        return __atomic_load_n((uint8_t *)g, __ATOMIC_ACQUIRE);
    return (uint8_t)done_here(g);
}

/* Waits with a growing nap: the initialiser may be on another node. */
HCRT_ABI_EXPORT int __hcrt_cxa_guard_acquire(uint64_t *g)
{
    long nap_ns = 1000;

    if (!IN_DSM(g))
        return __cxa_guard_acquire(g);
    for (;;) {
        uint64_t old = guard_cas(g, 0, PENDING);
        if (old == 0) {
            if (ninit < MAX_NESTED_INIT)
                initing[ninit++] = g;
            return 1;
        }
        if (old & 0xff) {
            hcrt__dsm_acquire(); /* the initialiser's writes */
            mark_done(g);
            return 0;
        }
        check_recursion(g);
        struct timespec ts = {0, nap_ns};
        nanosleep(&ts, NULL);
        if (nap_ns < 100000)
            nap_ns *= 2;
    }
}

static void forget(const void *g)
{
    for (int i = ninit - 1; i >= 0; i--)
        if (initing[i] == g) {
            initing[i] = initing[--ninit];
            return;
        }
}

HCRT_ABI_EXPORT void __hcrt_cxa_guard_release(uint64_t *g)
{
    if (!IN_DSM(g)) {
        __cxa_guard_release(g);
        return;
    }
    forget(g);
    /* release order: the object reaches its home before the guard says so */
    hcrt__dsm_atomic(g, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE, 1, 0,
                     __ATOMIC_RELEASE);
    mark_done(g);
}

HCRT_ABI_EXPORT void __hcrt_cxa_guard_abort(uint64_t *g)
{
    if (!IN_DSM(g)) {
        __cxa_guard_abort(g);
        return;
    }
    forget(g);
    hcrt__dsm_atomic(g, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE, 0, 0,
                     __ATOMIC_RELAXED);
}
