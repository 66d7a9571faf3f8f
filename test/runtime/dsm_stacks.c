/*
 * dsm_stacks.c - stacks in DSM memory (runtime/dsm/stacks.c).
 *
 * Every rank takes a stack from its region and fills it; every rank reads
 * every other rank's stack at the same address. The home keeps writing its
 * stack without a single protocol fault (its pages are pinned writable:
 * a fault there could not push a signal frame), even after other ranks
 * read the pages twice (the second fetch of a page only its home writes
 * would make the home protect a heap page again), and each acquire shows
 * the readers the new bytes (no copy of a stack page is ever exempt). A
 * stack given back and taken again is found by hcrt__dsm_stack_find; the
 * stacks are homed on their rank whatever HCRT_DSM_HOME says (run again
 * with cyclic and first-touch homes).
 */
#include "dsm/dsm_int.h"
#include "dsm_test.h"

#define WORDS (256 * 1024) /* 2 MiB of stack per rank */

static uint64_t pattern(int rank, int round, size_t i)
{
    return ((uint64_t)rank << 48) ^ ((uint64_t)round << 32) ^ i;
}

static void fill(uint64_t *s, int round)
{
    for (size_t i = 0; i < WORDS; i++)
        s[i] = pattern(me, round, i);
}

static void check_peers(uint64_t **all, int round)
{
    for (int r = 0; r < nranks; r++) {
        size_t bad = 0;
        for (size_t i = 0; i < WORDS; i += 509)
            bad += all[r][i] != pattern(r, round, i);
        CHECK_EQ(bad, 0);
    }
}

static uint64_t home_faults(void)
{
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    return c.home_faults;
}

int main(int argc, char **argv)
{
    hcrt__dsm_stacks_reserve(8 << 20, 16 << 20);
    dsm_test_init(&argc, &argv);
    CHECK(hcrt__dsm_stacks_size() >= (8 << 20));
    uint64_t *mine = hcrt__dsm_stack_new(WORDS * 8, 64 << 10, "t", "h");
    CHECK(mine != NULL);
    CHECK(hcrt__dsm_contains(mine));
    long idx = hcrt__dsm_page_index((uintptr_t)mine, NULL);
    CHECK_EQ(hcrt__dsm_home((size_t)idx), me);
    uint64_t *all[64];
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE,
                  hcrt__comm_world());
    uint64_t f0 = home_faults();
    for (int round = 0; round < 3; round++) {
        fill(mine, round); /* pinned: never a fault at the home */
        hcrt__dsm_barrier();
        check_peers(all, round);
        hcrt__dsm_barrier();
    }
    CHECK_EQ(home_faults() - f0, 0);
    /* the guard below the stack is never valid at its home */
    CHECK_EQ(atomic_load(&dsm.pages[idx - 1].state), PG_GUARD);
    void *lo;
    size_t size;
    CHECK(hcrt__dsm_stack_find(mine + 100, &lo, &size));
    CHECK(lo == mine && size == WORDS * 8);
    hcrt__dsm_barrier(); /* nobody reads my stack any more */
    hcrt__dsm_stack_free(mine);
    CHECK(!hcrt__dsm_stack_find(mine + 100, &lo, &size));
    uint64_t *again = hcrt__dsm_stack_new(WORDS * 8, 64 << 10, "t", "h");
    CHECK(again == mine); /* the freed block, zeroed */
    CHECK_EQ(again[7], 0);
    again[7] = 1;
    CHECK_EQ(home_faults() - f0, 0);
    return dsm_test_finish("dsm_stacks");
}
