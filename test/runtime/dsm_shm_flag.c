/*
 * dsm_shm_flag.c - on one host, a rank that sees another rank's flag sees
 * the data that rank wrote before it, acquire or not (the same-host fast
 * path maps pages in place: no rank holds a copy of a same-host home's
 * page, so there is nothing to go stale).
 *
 * The pattern of NPB3.0-omp's LU (threads hand rows to their neighbours
 * through flags, `while (flag == 0) { flush(flag) }`, no flush after the
 * loop): a rank whose first test of the flag already succeeds runs no
 * acquire at all before reading the data. Rank r of a pipeline waits for
 * flag[r-1] = round, reads data[r-1] (must be round), writes data[r] and
 * then flag[r] = round for rank r+1 - plain stores, no release. Rank 0
 * (the home of both pages) starts each round. Before the round each
 * consumer writes a word of the data page of its own, as LU's first loop
 * writes the consumer's row next to the producer's: with private copies
 * that write took a snapshot of the page, and the consumer then read the
 * producer's data from that stale snapshot (rounds 2..: every one) - or,
 * for a producer that is not the home, saw the flag before a release that
 * applied the flag's page first had applied the data's. Half the rounds
 * spin with acquires (LU), half with plain loads; a flag that does not
 * come within 10 s is a failure too (stores that stay in a copy).
 *
 * HCRT_DSM_SHM=1: the property is the fast path's (messages need the
 * acquire after the loop; hcc's pass adds it to such loops, compiler.md).
 */
#include <time.h>

#include "dsm_test.h"

#define ROUNDS 300
#define SLOTS 16 /* per page: flag or data word of each rank (<= 16 ranks) */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Waits until *f == want: with an acquire after each test that fails, or
 * with plain loads; 0 if it did not come within 10 s. */
static int wait_for(volatile uint64_t *f, uint64_t want, int acquire)
{
    double t0 = now_s();
    for (unsigned n = 0; *f != want; n++) {
        if (acquire)
            hcrt__dsm_acquire();
        if ((n & 1023) == 1023 && now_s() - t0 > 10.0)
            return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    /* flags on the page before the data's: a release applies them first */
    char *base = NULL;
    if (me == 0)
        base = hcrt__dsm_aligned_alloc(4096, 2 * 4096);
    base = dsm_test_share(base, 0);
    volatile uint64_t *flag = (volatile uint64_t *)base;
    volatile uint64_t *data = (volatile uint64_t *)(base + 4096);
    volatile uint64_t *mine = data + 8 * SLOTS; /* a consumer's own word */
    CHECK(nranks <= SLOTS);
    hcrt__dsm_barrier();
    long stale = 0, lost = 0;
    for (uint64_t round = 1; round <= ROUNDS; round++) {
        int acquire = (int)(round & 1);
        if (me > 0)
            mine[me] = round; /* the consumer's write next to the data */
        MPI_Barrier(hcrt__comm_world());
        if (me > 0 && !wait_for(&flag[me - 1], round, acquire)) {
            if (lost++ < 3)
                fprintf(stderr, "rank %d round %llu: flag %d never came\n", me,
                        (unsigned long long)round, me - 1);
        } else if (me > 0 && data[me - 1] != round && stale++ < 3) {
            fprintf(stderr,
                    "rank %d round %llu: saw flag %d but data %d = %llu "
                    "(%s)\n",
                    me, (unsigned long long)round, me - 1, me - 1,
                    (unsigned long long)data[me - 1],
                    acquire ? "acquires in the wait" : "plain loads");
        }
        data[me] = round;
        flag[me] = round;
        hcrt__dsm_barrier();
    }
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    if (me > 0)
        CHECK(c.shm_pages > 0); /* the fast path served the pages */
    CHECK_EQ(stale, 0);
    CHECK_EQ(lost, 0);
    if (me == nranks - 1)
        printf("dsm_shm_flag: rank %d, %d rounds, %ld stale, %ld lost\n", me,
               ROUNDS, stale, lost);
    return dsm_test_finish("dsm_shm_flag");
}
