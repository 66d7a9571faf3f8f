/*
 * dsm_lock.c - cluster locks: lock-protected counters (several threads per
 * rank), and producer/consumer through a locked ring buffer in DSM memory.
 */
#include <pthread.h>

#include "dsm_test.h"

#define ITERS 150
#define THREADS 2

typedef struct counters {
    long count;    /* incremented under the lock */
    long weighted; /* += rank + 1 */
    char pad[4096];
    long other_page; /* same lock, another page */
} counters_t;

static counters_t *ctr;

static void *bump(void *arg)
{
    (void)arg;
    for (int i = 0; i < ITERS; i++) {
        CHECK_EQ(hcrt__dsm_lock(42), HCRT_OK);
        long c = ctr->count; /* read-modify-write, not atomic on purpose */
        ctr->count = c + 1;
        ctr->weighted += me + 1;
        ctr->other_page += 2;
        CHECK_EQ(hcrt__dsm_unlock(42), HCRT_OK);
    }
    return NULL;
}

static void test_counters(void)
{
    ctr = dsm_test_share(me == 0 ? hcrt__dsm_calloc(1, sizeof *ctr) : NULL, 0);
    hcrt__dsm_barrier();
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, bump, NULL);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    hcrt__dsm_barrier();
    long n = (long)ITERS * THREADS;
    CHECK_EQ(ctr->count, n * nranks);
    CHECK_EQ(ctr->weighted, n * nranks * (nranks + 1) / 2);
    CHECK_EQ(ctr->other_page, 2 * n * nranks);
    hcrt__dsm_barrier();
}

#define CAP 16
#define ITEMS 400

typedef struct ring {
    long head, tail, done;
    long slot[CAP];
} ring_t;

/* Rank 0 produces ITEMS values; every other rank consumes. Each item must
 * be consumed exactly once: the consumers' sums add up to the total. */
static void test_producer_consumer(void)
{
    ring_t *r =
        dsm_test_share(me == 0 ? hcrt__dsm_calloc(1, sizeof *r) : NULL, 0);
    hcrt__dsm_barrier();
    long sum = 0, got = 0;
    if (me == 0) {
        for (long v = 1; v <= ITEMS;) {
            hcrt__dsm_lock(7);
            if (r->tail - r->head < CAP)
                r->slot[r->tail++ % CAP] = v++;
            hcrt__dsm_unlock(7);
        }
        hcrt__dsm_lock(7);
        r->done = 1;
        hcrt__dsm_unlock(7);
    }
    if (me != 0 || nranks == 1) {
        for (;;) {
            hcrt__dsm_lock(7);
            int empty = r->head == r->tail, done = r->done;
            if (!empty) {
                long v = r->slot[r->head++ % CAP];
                CHECK(v >= 1 && v <= ITEMS);
                sum += v;
                got++;
            }
            hcrt__dsm_unlock(7);
            if (empty && done)
                break;
        }
    }
    long tot[2] = {sum, got}, all[2];
    MPI_Allreduce(tot, all, 2, MPI_LONG, MPI_SUM, hcrt__comm_world());
    CHECK_EQ(all[1], ITEMS);
    CHECK_EQ(all[0], (long)ITEMS * (ITEMS + 1) / 2);
    hcrt__dsm_barrier();
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    test_counters();
    test_producer_consumer();
    return dsm_test_finish("dsm_lock");
}
