/*
 * dsm_mt_contend.c - several threads of each rank contend on ONE page with
 * the other ranks: two lock-protected counters (plain read-modify-write)
 * and DSM atomics on an int and a double, all in the same page.
 *
 * Catches an acquire that leaves a page valid while another local thread
 * holds it dirty: the acquiring thread then reads other ranks' stale bytes
 * and a lock-protected increment is lost. Rounds are repeated so the
 * window (one update in ~10^4) is hit reliably.
 */
#include <pthread.h>
#include <string.h>

#include "dsm_test.h"

#define MAX_THREADS 8

static int nthreads = 2; /* per rank; argv[1] overrides */
#define ITERS 50
#define ROUNDS 40

typedef struct shared {
    long counter1; /* under lock 1 */
    long counter2; /* under lock 2 */
    int ai;        /* DSM atomic int */
    double ad;     /* DSM atomic double */
} shared_t;

static shared_t *sh;

static void atomic_add_double(double *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    hcrt__dsm_atomic(p, 8, HCRT_DSM_AT_DOUBLE, HCRT_DSM_AOP_ADD, bits, 0,
                     __ATOMIC_SEQ_CST);
}

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        CHECK_EQ(hcrt__dsm_lock(1), HCRT_OK);
        sh->counter1++;
        CHECK_EQ(hcrt__dsm_unlock(1), HCRT_OK);
        CHECK_EQ(hcrt__dsm_lock(2), HCRT_OK);
        sh->counter2++;
        CHECK_EQ(hcrt__dsm_unlock(2), HCRT_OK);
        hcrt__dsm_atomic(&sh->ai, 4, HCRT_DSM_AT_INT, HCRT_DSM_AOP_ADD, 1, 0,
                         __ATOMIC_SEQ_CST);
        atomic_add_double(&sh->ad, 0.5);
    }
    CHECK_EQ(hcrt__dsm_barrier_team(nthreads), HCRT_OK);
    return NULL;
}

static void round_once(int r)
{
    if (me == 0)
        memset(sh, 0, sizeof *sh);
    hcrt__dsm_barrier();
    pthread_t t[MAX_THREADS];
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    long n = (long)ITERS * nthreads * nranks;
    if (sh->counter1 != n || sh->counter2 != n || sh->ai != (int)n ||
        sh->ad != 0.5 * (double)n)
        fprintf(stderr,
                "rank %d round %d: counter1 %ld counter2 %ld int %d "
                "double %g, want %ld\n",
                me, r, sh->counter1, sh->counter2, sh->ai, sh->ad, n);
    CHECK_EQ(sh->counter1, n);
    CHECK_EQ(sh->counter2, n);
    CHECK_EQ(sh->ai, (int)n);
    CHECK_DEQ(sh->ad, 0.5 * (double)n);
    hcrt__dsm_barrier(); /* everyone checked before rank 0 clears */
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    if (argc > 1)
        nthreads = atoi(argv[1]);
    if (nthreads < 1 || nthreads > MAX_THREADS)
        nthreads = 2;
    /* one page, homed on rank 0 */
    sh = dsm_test_share(me == 0 ? hcrt__dsm_calloc(1, sizeof *sh) : NULL, 0);
    for (int r = 0; r < ROUNDS; r++)
        round_once(r);
    return dsm_test_finish("dsm_mt_contend");
}
