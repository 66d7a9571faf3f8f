/*
 * dsm_stride.c - columns of row-major arrays: strided read runs and
 * strided writer registration (runtime/dsm/pages.c, prefetch_window).
 *
 * Rank 0 owns two matrices (rows of 4 pages and of 3 pages). Every rank
 * updates its own columns in place, top to bottom (read, then write, row
 * by row: a stencil's column sweep), one column downwards, and after a
 * barrier every rank checks every element. Over messages
 * (HCRT_DSM_SHM=0, as between hosts) the DSM must fetch a column's pages
 * in strided runs: reading a 1024-row column takes far fewer faults than
 * rows, registering as writer far fewer round trips, and updating it in
 * place far fewer write faults (write-ahead: the runs of a stream that
 * writes what it reads arrive writable). ctest runs it at 2 and 4 ranks,
 * with the same-host path on and off.
 */
#include "dsm_test.h"

#define ROWS 1024

static double value(size_t i, size_t j, size_t cols)
{
    return (double)(i * cols + j);
}

/* Columns of rank r: j = r, r + nranks, ... below `ncols` (the first
 * `ncols` of the matrix); rank r also sweeps one of them upwards. */
static void sweep(double *a, size_t cols, size_t ncols, int upwards)
{
    for (size_t j = (size_t)me; j < ncols; j += (size_t)nranks) {
        if (upwards && j == (size_t)me) {
            for (size_t i = ROWS; i-- > 0;)
                a[i * cols + j] = 2 * a[i * cols + j] + 1;
            continue;
        }
        for (size_t i = 0; i < ROWS; i++)
            a[i * cols + j] = 2 * a[i * cols + j] + 1;
    }
}

static void check(const double *a, size_t cols, size_t ncols)
{
    size_t bad = 0;
    for (size_t i = 0; i < ROWS; i++)
        for (size_t j = 0; j < cols; j++) {
            double v = value(i, j, cols), want = j < ncols ? 2 * v + 1 : v;
            if (a[i * cols + j] != want && bad++ < 3)
                fprintf(stderr, "rank %d: a[%zu][%zu] = %g, want %g\n", me, i,
                        j, a[i * cols + j], want);
        }
    CHECK_EQ(bad, 0);
}

/* Counts of one column's sweep: within [lo, hi], or says which. */
static void check_count(const char *what, uint64_t n, uint64_t lo, uint64_t hi)
{
    if (n < lo || n > hi)
        fprintf(stderr, "rank %d: %llu %s for a column (want %llu..%llu)\n", me,
                (unsigned long long)n, what, (unsigned long long)lo,
                (unsigned long long)hi);
    CHECK(n >= lo && n <= hi);
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    size_t c4 = 4 * 4096 / sizeof(double), c3 = 3 * 4096 / sizeof(double);
    double *a = NULL, *b = NULL;
    if (me == 0) {
        a = hcrt__dsm_malloc(ROWS * c4 * sizeof(double));
        b = hcrt__dsm_malloc(ROWS * c3 * sizeof(double));
        CHECK(a != NULL && b != NULL);
        for (size_t i = 0; i < ROWS; i++) {
            for (size_t j = 0; j < c4; j++)
                a[i * c4 + j] = value(i, j, c4);
            for (size_t j = 0; j < c3; j++)
                b[i * c3 + j] = value(i, j, c3);
        }
    }
    a = dsm_test_share(a, 0);
    b = dsm_test_share(b, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);

    hcrt_dsm_counters_t c0, c1;
    hcrt__dsm_counters(&c0);
    if (me != 0) { /* one column top to bottom, read only, alone */
        double s = 0, want = 0;
        for (size_t i = 0; i < ROWS; i++) {
            s += a[i * c4 + c4 - 1];
            want += value(i, c4 - 1, c4);
        }
        CHECK(s == want);
    }
    hcrt__dsm_counters(&c1);
    const char *shm = getenv("HCRT_DSM_SHM");
    if (me != 0 && shm && strcmp(shm, "0") == 0) {
        /* 1024 rows, one page each: the runs double up to 64 pages */
        check_count("read faults", c1.read_faults - c0.read_faults, 1,
                    ROWS / 8);
        /* the last run may reach past the matrix, and so may the two
         * read-ahead runs in flight after it: not more than three runs */
        check_count("pages fetched", c1.pages_fetched - c0.pages_fetched, ROWS,
                    ROWS + 3 * 64);
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);

    size_t n4 = 3 * (size_t)nranks, n3 = 2 * (size_t)nranks;
    sweep(a, c4, n4, 1);
    hcrt__dsm_counters(&c0);
    sweep(b, c3, n3, 0);
    hcrt__dsm_counters(&c1);
    if (me != 0 && shm && strcmp(shm, "0") == 0) {
        /* b's columns of this rank share their pages: one column updated
         * in place, 1024 pages, once a write fault each */
        check_count("write faults", c1.write_faults - c0.write_faults, 1,
                    ROWS / 8);
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    check(a, c4, n4);
    check(b, c3, n3);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    if (me == 0) {
        hcrt__dsm_free(a);
        hcrt__dsm_free(b);
    }
    return dsm_test_finish("dsm_stride");
}
