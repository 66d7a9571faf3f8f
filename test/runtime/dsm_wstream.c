/*
 * dsm_wstream.c - sequential write streams fault once per run, not once
 * per page (runtime/dsm/pages.c, write_run).
 *
 * Rank 0 owns three arrays of 4096 pages. Rank 1 writes the first from
 * start to end without reading it (write misses), reads the second and
 * then writes it (write faults on valid pages: live views of rank 0's
 * memory on the same-host path, cached copies over messages); rank 0
 * reads the third, its own, and then writes it (home faults on pages it
 * holds read-only). Each write pass must take at most 4096 / 32 faults:
 * the pages a stream writes next are made writable with the faulting one,
 * in runs whose window doubles up to HCRT_DSM_PREFETCH pages. A rank that
 * writes every other page (no stream) must still fault for each. After a
 * barrier every rank checks every value. Then the same, with three
 * arrays of 1024 pages written in turn a page at a time (interleaved
 * streams, as a loop nest that writes two planes of one array, or two
 * arrays, makes them): at most 3 * 1024 / 32 faults (on the same-host
 * path none for the home: no rank holds a copy, so its reads made its
 * pages writable at once). ctest runs it at 2
 * and 4 ranks, with the same-host path on and off.
 */
#include "dsm_test.h"

#define PAGES 4096
#define PER (4096 / sizeof(double))
#define N (PAGES * PER)
#define MAX_FAULTS (PAGES / 32)

static double value(int arr, size_t i)
{
    return (double)arr * 1e7 + (double)i;
}

static double read_all(const double *a)
{
    double s = 0;
    for (size_t i = 0; i < N; i++)
        s += a[i];
    return s;
}

static void write_all(double *a, int arr)
{
    for (size_t i = 0; i < N; i++)
        a[i] = value(arr, i);
}

/* The faults (`which`: write or home) of one write pass over `a`. */
static uint64_t write_pass(double *a, int arr, int home)
{
    hcrt_dsm_counters_t c0, c1;
    hcrt__dsm_counters(&c0);
    write_all(a, arr);
    hcrt__dsm_counters(&c1);
    return home ? c1.home_faults - c0.home_faults
                : c1.write_faults - c0.write_faults;
}

static void check_faults(const char *what, uint64_t n, uint64_t lo, uint64_t hi)
{
    if (n < lo || n > hi)
        fprintf(stderr, "rank %d: %s took %llu faults (want %llu..%llu)\n", me,
                what, (unsigned long long)n, (unsigned long long)lo,
                (unsigned long long)hi);
    CHECK(n >= lo && n <= hi);
}

/* Interleaved streams: page p of arrays b[0], b[1], b[2], then page p + 1
 * of each, ... (arrays of PAGES / 4 pages, numbered arr, arr + 1, ...);
 * returns the write (or home) faults they took. */
static uint64_t write_3(double **b, int arr, int home)
{
    hcrt_dsm_counters_t c0, c1;
    hcrt__dsm_counters(&c0);
    for (size_t p = 0; p < PAGES / 4; p++)
        for (int k = 0; k < 3; k++)
            for (size_t i = p * PER; i < (p + 1) * PER; i++)
                b[k][i] = value(arr + k, i);
    hcrt__dsm_counters(&c1);
    return home ? c1.home_faults - c0.home_faults
                : c1.write_faults - c0.write_faults;
}

static double read_3(double **b)
{
    double s = 0;
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < N / 4; i++)
            s += b[k][i];
    return s;
}

static void check_all(const double *a, int arr, size_t step, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        double want = (i / PER) % step == 0 ? value(arr, i) : 0;
        if (a[i] != want && bad++ < 3)
            fprintf(stderr, "rank %d: array %d [%zu] = %g, want %g\n", me, arr,
                    i, a[i], want);
    }
    CHECK_EQ(bad, 0);
}

/* The home's stream over w (1000 pages it read) must stop before x, the
 * pages right after it that rank 1 writes: registering the home as a
 * second writer of x would take rank 1's exempt copy away for good (over
 * messages: a refetch of x after every barrier). w and x share one
 * page-aligned block of N / 2 doubles; w's length is no multiple of the
 * window, so the stream's last run (up to 64 pages) reaches into x. */
#define W_LEN (1000 * PER)
#define X_LEN (N / 2 - W_LEN)

static double sum(const double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static void other_writer_kept(double *w)
{
    double *x = w + W_LEN;
    if (me == 1)
        for (size_t i = 0; i < X_LEN; i++)
            x[i] = 1;
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    if (me == 0) {
        CHECK(sum(w, W_LEN) == 0 && sum(x, X_LEN) == (double)X_LEN);
        for (size_t i = 0; i < W_LEN; i++)
            w[i] = 2;
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    hcrt_dsm_counters_t c0, c1;
    hcrt__dsm_counters(&c0);
    if (me == 1)
        CHECK(sum(x, X_LEN) == (double)X_LEN);
    hcrt__dsm_counters(&c1);
    const char *shm = getenv("HCRT_DSM_SHM");
    if (me == 1 && shm && strcmp(shm, "0") == 0)
        check_faults("pages of its own array fetched again after the home "
                     "wrote the array before it",
                     c1.pages_fetched - c0.pages_fetched, 0, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    CHECK(sum(w, W_LEN) == 2.0 * W_LEN && sum(x, X_LEN) == (double)X_LEN);
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    /* a[0..3]: PAGES pages each; a[4..12]: PAGES / 4 */
    double *a[13] = {NULL};
    for (int k = 0; k < 13; k++) {
        if (me == 0) {
            a[k] = hcrt__dsm_calloc(k < 4 ? N : N / 4, sizeof(double));
            CHECK(a[k] != NULL);
        }
        a[k] = dsm_test_share(a[k], 0);
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);

    if (me == 1) {
        check_faults("a write stream over fresh pages", write_pass(a[0], 0, 0),
                     1, MAX_FAULTS);
        CHECK(read_all(a[1]) == 0);
        check_faults("a write stream over pages it read",
                     write_pass(a[1], 1, 0), 1, MAX_FAULTS);
        /* every other page: no stream, one fault a page */
        hcrt_dsm_counters_t c0, c1;
        CHECK(read_all(a[3]) == 0);
        hcrt__dsm_counters(&c0);
        for (size_t p = 0; p < PAGES; p += 2)
            for (size_t i = 0; i < PER; i++)
                a[3][p * PER + i] = value(3, p * PER + i);
        hcrt__dsm_counters(&c1);
        check_faults("writes to every other page",
                     c1.write_faults - c0.write_faults, PAGES / 2, PAGES / 2);
    }
    if (me == 1) {
        check_faults("three interleaved write streams over fresh pages",
                     write_3(a + 4, 4, 0), 1, 3 * MAX_FAULTS / 4);
        CHECK(read_3(a + 7) == 0);
        check_faults("three interleaved write streams over pages it read",
                     write_3(a + 7, 7, 0), 1, 3 * MAX_FAULTS / 4);
    }
    if (me == 0) {
        /* with every rank on this host nobody holds a copy: the home's
         * reads made its pages writable at once */
        const char *shm = getenv("HCRT_DSM_SHM");
        uint64_t lo = shm && strcmp(shm, "0") == 0 ? 1 : 0;
        CHECK(read_all(a[2]) == 0);
        check_faults("the home's write stream over pages it read",
                     write_pass(a[2], 2, 1), lo, MAX_FAULTS);
        CHECK(read_3(a + 10) == 0);
        check_faults("the home's three interleaved write streams",
                     write_3(a + 10, 10, 1), lo, 3 * MAX_FAULTS / 4);
    }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    double *wx = NULL;
    if (me == 0) {
        /* fresh pages: zero without a store, invalid at the home */
        wx = hcrt__dsm_calloc(N / 2, sizeof(double));
        CHECK(wx != NULL && (uintptr_t)wx % 4096 == 0);
    }
    wx = dsm_test_share(wx, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    other_writer_kept(wx);
    for (int k = 0; k < 13; k++)
        check_all(a[k], k, k == 3 ? 2 : 1, k < 4 ? N : N / 4);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    if (me == 0)
        for (int k = 0; k < 13; k++)
            hcrt__dsm_free(a[k]);
    if (me == 0)
        hcrt__dsm_free(wx);
    return dsm_test_finish("dsm_wstream");
}
