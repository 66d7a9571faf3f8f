/*
 * dsm_globals.c - writable globals made DSM memory (as the pass does with
 * section "hcrt_shared"): the executable is a PIE, so this also checks that
 * the re-execution without address randomisation puts globals at the same
 * address in every rank. Initial values are the same everywhere; writes by
 * any rank reach every rank after a barrier; ordinary globals stay private.
 */
#include "dsm_test.h"

#define N 3000 /* spans several pages */

static struct {
    long v[N];
    char tail[4096]; /* pads the section to whole pages */
} shared_globals __attribute__((aligned(4096))) = {{1, 2, 3}, {0}};
static long private_counter;

int main(int argc, char **argv)
{
    hcrt__dsm_prepare_address_space(argc, argv);
    char *end = (char *)&shared_globals + (sizeof shared_globals & ~4095UL);
    CHECK_EQ(hcrt__dsm_add_area(&shared_globals, end), HCRT_OK);
    dsm_test_init(&argc, &argv);
    CHECK(hcrt__dsm_contains(&shared_globals.v[0]));
    CHECK(!hcrt__dsm_contains(&private_counter));
    uint64_t addr = (uintptr_t)&shared_globals, root_addr = addr;
    MPI_Bcast(&root_addr, 1, MPI_UINT64_T, 0, hcrt__comm_world());
    CHECK_EQ(addr, root_addr);
    CHECK_EQ(shared_globals.v[0] + shared_globals.v[1] + shared_globals.v[2],
             6);
    hcrt__dsm_barrier();
    for (int round = 0; round < 3; round++) {
        for (int i = me; i < N; i += nranks)
            shared_globals.v[i] = (long)i * 10 + round;
        private_counter = me;
        hcrt__dsm_barrier();
        long bad = 0;
        for (int i = 0; i < N; i++)
            bad += shared_globals.v[i] != (long)i * 10 + round;
        CHECK_EQ(bad, 0);
        CHECK_EQ(private_counter, me);
        hcrt__dsm_barrier();
    }
    return dsm_test_finish("dsm_globals");
}
