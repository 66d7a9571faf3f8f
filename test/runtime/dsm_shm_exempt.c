/*
 * dsm_shm_exempt.c - an exempt copy (no other writer when it was fetched)
 * must not survive an acquire once another rank wrote the page, even
 * while the "no longer exempt" notice is still on its way.
 *
 * ROUNDS pages homed on rank 0. Rank 1 (the reader) first writes word 0
 * of each: its write misses give it private copies that are exempt (it is
 * the only writer). Then, page by page, rank L (the last rank) announces
 * itself in flag[1] and writes word 8: it registers as writer and the
 * home tells rank 1 the copy is no longer exempt (a message, and with the
 * same-host fast path the registration is direct, so the notice leaves
 * later). Rank 0 (the home) waits for the announcement, writes word 16 =
 * round + 1 - finding rank L registered, it tells nobody and does not
 * wait - and publishes the round in flag[0] with a release. Rank 1 waits
 * for it with an acquire and must read word 16 = round + 1, whether or
 * not the notice has arrived. (Before the fix the same-host fast path
 * kept the stale exempt copy: ordered.c lost a whole rank's log entries.)
 *
 * Pages are visited in a scrambled order so no prefetch run registers
 * several at once. Needs 3 ranks (home, reader, late writer).
 */
#include <sched.h>

#include "dsm_test.h"

#define ROUNDS 256
#define WORDS (4096 / 8)

static uint64_t load(volatile uint64_t *p, int order)
{
    return hcrt__dsm_atomic((void *)p, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_LOAD, 0,
                            0, order);
}

static void store(volatile uint64_t *p, uint64_t v)
{
    hcrt__dsm_atomic((void *)p, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE, v, 0,
                     __ATOMIC_RELEASE);
}

static void wait_for(volatile uint64_t *flag, uint64_t v)
{
    while (load(flag, __ATOMIC_RELAXED) < v)
        sched_yield();
    load(flag, __ATOMIC_ACQUIRE); /* the acquire that pairs with store() */
}

static size_t page_of(int round)
{
    return (size_t)round * 97 % ROUNDS; /* 97 is prime to ROUNDS */
}

static void home(volatile uint64_t *pages, volatile uint64_t *flag)
{
    /* read first, so each write below upgrades one page at a time */
    for (int k = 0; k < ROUNDS; k++)
        (void)pages[k * WORDS + 16];
    hcrt__dsm_barrier();
    for (int k = 0; k < ROUNDS; k++) {
        volatile uint64_t *p = pages + page_of(k) * WORDS;
        wait_for(&flag[1], (uint64_t)k + 1);
        for (volatile int spin = 0; spin < 20000; spin++)
            ; /* let rank L's registration land first */
        p[16] = (uint64_t)k + 1;
        store(&flag[0], (uint64_t)k + 1);
    }
}

static void reader(volatile uint64_t *pages, volatile uint64_t *flag)
{
    for (int k = 0; k < ROUNDS; k++)
        pages[k * WORDS] = 1;
    hcrt__dsm_release();
    hcrt__dsm_barrier();
    int stale = 0;
    for (int k = 0; k < ROUNDS; k++) {
        volatile uint64_t *p = pages + page_of(k) * WORDS;
        wait_for(&flag[0], (uint64_t)k + 1);
        if (p[16] != (uint64_t)k + 1 && ++stale <= 3)
            fprintf(stderr, "rank 1: round %d: stale copy (word 16 = %llu)\n",
                    k, (unsigned long long)p[16]);
    }
    CHECK(stale == 0);
    printf("dsm_shm_exempt: %d rounds, %d stale\n", ROUNDS, stale);
}

static void late_writer(volatile uint64_t *pages, volatile uint64_t *flag)
{
    hcrt__dsm_barrier();
    for (int k = 0; k < ROUNDS; k++) {
        store(&flag[1], (uint64_t)k + 1);
        pages[page_of(k) * WORDS + 8] = 1;
        hcrt__dsm_release();
    }
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    if (nranks < 3) {
        if (me == 0)
            fprintf(stderr, "dsm_shm_exempt needs at least 3 ranks\n");
        hcrt__dsm_fini();
        return 1;
    }
    uint64_t *pages = NULL, *flag = NULL;
    if (me == 0) {
        pages = hcrt__dsm_aligned_alloc(4096, (size_t)ROUNDS * 4096);
        flag = hcrt__dsm_aligned_alloc(4096, 4096);
    }
    pages = dsm_test_share(pages, 0);
    flag = dsm_test_share(flag, 0);
    hcrt__dsm_barrier();
    if (me == 0)
        home(pages, flag);
    else if (me == 1)
        reader(pages, flag);
    else if (me == nranks - 1)
        late_writer(pages, flag);
    else
        hcrt__dsm_barrier(); /* a bystander */
    hcrt__dsm_barrier();
    for (int k = 0; k < ROUNDS; k++) /* and everything arrived home */
        CHECK(((volatile uint64_t *)pages)[page_of(k) * WORDS + 16] ==
              (uint64_t)k + 1);
    return dsm_test_finish("dsm_shm_exempt");
}
