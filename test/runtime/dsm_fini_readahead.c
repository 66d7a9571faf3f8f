/*
 * dsm_fini_readahead.c - shutdown with read-ahead fetches in flight.
 *
 * Every rank but 0 streams through rank 0's pages, so the DSM fetches runs
 * ahead of the reader (nobody waits for those), and shuts the DSM down at
 * once. Before hcrt__dsm_fini drained them, a read-ahead answered after
 * the closing barrier found the reader's service thread gone, and the
 * home's service thread waited forever for its page data to be received
 * (seen as an occasional hang of hcrt-calibrate at exit). ctest runs it
 * over messages (HCRT_DSM_SHM=0: the same-host path maps pages instead of
 * fetching them) under a timeout; a hang is the failure.
 */
#include "dsm_test.h"

#define PAGES 4096

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    size_t page = 4096, n = (size_t)PAGES * page;
    unsigned char *a = NULL;
    if (me == 0) {
        a = hcrt__dsm_malloc(n);
        CHECK(a != NULL);
        for (size_t i = 0; i < n; i += page)
            a[i] = (unsigned char)(i / page);
    }
    a = dsm_test_share(a, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    unsigned long sum = 0, want = 0;
    if (me != 0) {
        /* Only part of the region: the read-ahead runs past the last page
         * read when fini starts. */
        for (size_t i = 0; i < n / 2; i += page) {
            sum += a[i];
            want += (unsigned char)(i / page);
        }
        CHECK_EQ(sum, want);
    }
    return dsm_test_finish("dsm_fini_readahead");
}
