/*
 * dsm_test.h - start-up and helpers shared by the DSM's C-API tests.
 *
 * Every test brings the runtime up (MPI with THREAD_MULTIPLE), then the
 * DSM, runs, and returns its failure count from main; ctest runs each at 2
 * and 4 ranks under `timeout`.
 */
#ifndef HCRT_DSM_TEST_H
#define HCRT_DSM_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsm/dsm.h"
#include "libhcrt/runtime.h"
#include "rt_test.h"

static int me, nranks;

static void dsm_test_init(int *argc, char ***argv)
{
    hcrt__dsm_prepare_address_space(*argc, *argv);
    if (hcrt__runtime_init(argc, argv) != HCRT_OK) {
        fprintf(stderr, "runtime init failed\n");
        exit(2);
    }
    hcrt_status_t st = hcrt__dsm_init(hcrt__comm_world());
    if (st != HCRT_OK) {
        fprintf(stderr, "dsm init failed: %s\n", hcrt_strerror(st));
        exit(2);
    }
    me = hcrt__rank();
    nranks = hcrt__size();
}

/* Broadcasts a DSM pointer made on `root` to every rank. */
static void *dsm_test_share(void *p, int root)
{
    uint64_t v = (uintptr_t)p;
    MPI_Bcast(&v, 1, MPI_UINT64_T, root, hcrt__comm_world());
    return (void *)(uintptr_t)v;
}

static int dsm_test_finish(const char *name)
{
    int mine = check_failures, total = 0;
    hcrt__dsm_fini();
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, hcrt__comm_world());
    if (me == 0)
        printf("%s: %s (%d failures over %d ranks)\n", name,
               total ? "FAILED" : "ok", total, nranks);
    return total ? 1 : 0;
}

/* xorshift: deterministic per seed, the same on every rank. */
static uint64_t dsm_test_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

#endif /* HCRT_DSM_TEST_H */
