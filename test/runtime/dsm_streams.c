/*
 * dsm_streams.c - several sequential read streams at once
 * (runtime/dsm/pages.c, the read streams of prefetch_window).
 *
 * Rank 0 fills three arrays of 1024 pages. Every other rank then reads
 * them in one loop, as a sparse matrix-vector product reads its values
 * and column indices beside a gather: a[i] and b[i] page by page, and
 * c[] at scattered pages. Over messages (HCRT_DSM_SHM=0, as between
 * hosts) each of a's and b's streams must keep its own prefetch window:
 * with one window for the rank, every miss of one array ended the other's
 * stream, and both took a fault a page (2048). The sums are checked at
 * every rank count, with the same-host path on and off.
 */
#include "dsm_test.h"

#define PAGES 1024
#define PER (4096 / sizeof(double))
#define N (PAGES * PER)

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    double *a = NULL, *b = NULL, *c = NULL;
    if (me == 0) {
        a = hcrt__dsm_malloc(N * sizeof(double));
        b = hcrt__dsm_malloc(N * sizeof(double));
        c = hcrt__dsm_malloc(N * sizeof(double));
        CHECK(a != NULL && b != NULL && c != NULL);
        for (size_t i = 0; i < N; i++)
            a[i] = (double)i, b[i] = 2.0 * (double)i, c[i] = 1.0;
    }
    a = dsm_test_share(a, 0);
    b = dsm_test_share(b, 0);
    c = dsm_test_share(c, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);

    hcrt_dsm_counters_t c0, c1;
    hcrt__dsm_counters(&c0);
    if (me != 0) {
        double s = 0, want = 0;
        for (size_t p = 0; p < PAGES; p++) {
            for (size_t k = 0; k < PER; k++) {
                size_t i = p * PER + k;
                s += a[i] + b[i];
                want += 3.0 * (double)i;
            }
            /* a gather: one scattered page of c every 16 pages */
            if (p % 16 == 0)
                s += c[((p * 7919) % PAGES) * PER], want += 1.0;
        }
        CHECK(s == want);
    }
    hcrt__dsm_counters(&c1);
    const char *shm = getenv("HCRT_DSM_SHM");
    if (me != 0 && shm && strcmp(shm, "0") == 0) {
        /* a and b: runs doubling up to 64 pages each (~2 x 22 faults);
         * c: 64 single-page misses */
        uint64_t n = c1.read_faults - c0.read_faults;
        if (n > 256)
            fprintf(stderr,
                    "rank %d: %llu read faults for two streams of %d pages "
                    "and 64 scattered ones (want at most 256)\n",
                    me, (unsigned long long)n, PAGES);
        CHECK(n <= 256);
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    if (me == 0) {
        hcrt__dsm_free(a);
        hcrt__dsm_free(b);
        hcrt__dsm_free(c);
    }
    return dsm_test_finish("dsm_streams");
}
