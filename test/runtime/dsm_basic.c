/*
 * dsm_basic.c - heap semantics across ranks, false sharing on one page,
 * realloc across homes, every home policy's basics.
 */
#include <errno.h>

#include "base/stats.h"

#include "dsm_test.h"

/* Rank 0 allocates and fills; every rank reads after a barrier. */
static void test_publish(void)
{
    size_t n = 100000;
    uint32_t *a = me == 0 ? hcrt__dsm_malloc(n * sizeof *a) : NULL;
    if (me == 0)
        for (size_t i = 0; i < n; i++)
            a[i] = (uint32_t)(i * 2654435761u);
    a = dsm_test_share(a, 0);
    hcrt__dsm_barrier();
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += a[i] != (uint32_t)(i * 2654435761u);
    CHECK_EQ(bad, 0);
    hcrt__dsm_barrier();
    if (me == 0)
        hcrt__dsm_free(a);
}

/* Every rank writes its own bytes of one page between the same barriers;
 * all writes must survive the diffs. */
static void test_false_sharing(void)
{
    uint8_t *pg = me == 0 ? hcrt__dsm_aligned_alloc(4096, 4096) : NULL;
    pg = dsm_test_share(pg, 0);
    CHECK(((uintptr_t)pg & 4095) == 0);
    for (int round = 0; round < 20; round++) {
        for (int i = me; i < 4096; i += nranks)
            pg[i] = (uint8_t)(i + round * 7 + 1);
        hcrt__dsm_barrier();
        size_t bad = 0;
        for (int i = 0; i < 4096; i++)
            bad += pg[i] != (uint8_t)(i + round * 7 + 1);
        CHECK_EQ(bad, 0);
        hcrt__dsm_barrier();
    }
    if (me == 0)
        hcrt__dsm_free(pg);
}

/* A block made on one rank grows on another: contents follow. */
static void test_realloc_across_homes(void)
{
    size_t n = 3000;
    int *a = me == 0 ? hcrt__dsm_malloc(n * sizeof *a) : NULL;
    if (me == 0)
        for (size_t i = 0; i < n; i++)
            a[i] = (int)i - 7;
    a = dsm_test_share(a, 0);
    hcrt__dsm_barrier();
    int last = nranks - 1;
    if (me == last) {
        CHECK(hcrt__dsm_usable_size(a) >= n * sizeof *a);
        int *b = hcrt__dsm_realloc(a, 4 * n * sizeof *b);
        CHECK(b != NULL && b != a);
        for (size_t i = n; i < 4 * n; i++)
            b[i] = (int)i;
        a = b;
    }
    a = dsm_test_share(a, last);
    hcrt__dsm_barrier();
    size_t bad = 0;
    for (size_t i = 0; i < 4 * n; i++)
        bad += a[i] != (i < n ? (int)i - 7 : (int)i);
    CHECK_EQ(bad, 0);
    hcrt__dsm_barrier();
    if (me == 0)
        hcrt__dsm_free(a); /* freed by a rank that is not the owner */
    hcrt__dsm_barrier();
}

static void test_alloc_family(void)
{
    /* Many sizes from every rank: blocks never overlap, calloc is zero. */
    enum { N = 400 };
    static uint8_t *blk[N];
    static size_t len[N];
    uint64_t s = 12345 + (uint64_t)me;
    for (int i = 0; i < N; i++) {
        len[i] = 1 + dsm_test_rand(&s) % (i % 10 == 0 ? 20000 : 600);
        blk[i] = hcrt__dsm_calloc(1, len[i]);
        CHECK(blk[i] != NULL && hcrt__dsm_contains(blk[i]));
        size_t nz = 0;
        for (size_t k = 0; k < len[i]; k++)
            nz += blk[i][k] != 0;
        CHECK_EQ(nz, 0);
        memset(blk[i], i & 0xff, len[i]);
    }
    for (int i = 0; i < N; i += 2) {
        hcrt__dsm_free(blk[i]);
        blk[i] = hcrt__dsm_calloc(len[i], 1); /* reused memory: zeroed */
        for (size_t k = 0; k < len[i]; k++)
            if (blk[i][k]) {
                CHECK(blk[i][k] == 0);
                break;
            }
        memset(blk[i], i & 0xff, len[i]);
    }
    for (int i = 0; i < N; i++) {
        size_t bad = 0;
        for (size_t k = 0; k < len[i]; k++)
            bad += blk[i][k] != (uint8_t)(i & 0xff);
        CHECK_EQ(bad, 0);
        hcrt__dsm_free(blk[i]);
    }
    void *p = NULL;
    CHECK_EQ(hcrt__dsm_posix_memalign(&p, 64, 100), 0);
    CHECK(((uintptr_t)p & 63) == 0);
    hcrt__dsm_free(p);
    CHECK_EQ(hcrt__dsm_posix_memalign(&p, 3, 100), EINVAL);
    p = hcrt__dsm_aligned_alloc(1 << 16, 5000);
    CHECK(p && ((uintptr_t)p & 0xffff) == 0);
    hcrt__dsm_free(p);
    CHECK(hcrt__dsm_malloc(0) != NULL);
    CHECK(!hcrt__dsm_contains(&p));
    hcrt__dsm_barrier();
}

/* Region counters: faults inside a region are counted there, and the
 * fault period is the region's time divided by its faults. */
static void test_region_counters(void)
{
    size_t n = 64 * 1024;
    char *a = dsm_test_share(me == 0 ? hcrt__dsm_calloc(n, 1) : NULL, 0);
    hcrt__dsm_barrier();
    hcrt_dsm_counters_t before, after;
    hcrt__dsm_counters(&before);
    hcrt__dsm_region_begin(0xabc);
    volatile char sink = 0;
    for (size_t i = 0; i < n; i += 4096)
        sink += a[i];
    (void)sink;
    double period = hcrt__dsm_region_fault_period_ns();
    hcrt__dsm_region_end(0xabc);
    hcrt__dsm_counters(&after);
    if (me != 0) { /* rank 0 is the home: its accesses are home faults */
        CHECK(after.read_faults > before.read_faults);
        CHECK(after.pages_fetched >= before.pages_fetched + n / 4096);
    }
    CHECK(period > 0);
    hcrt__dsm_barrier();
}

/* A page made resident can be handed to MPI: no DSM fault inside MPI. */
static void test_make_resident(void)
{
    int src = nranks - 1;
    long *buf = dsm_test_share(me == 0 ? hcrt__dsm_malloc(3 * 4096) : NULL, 0);
    if (me == 0)
        for (int i = 0; i < 3 * 512; i++)
            buf[i] = i;
    hcrt__dsm_barrier();
    if (me == src) {
        CHECK_EQ(hcrt__dsm_make_resident(buf, 3 * 4096, 0), HCRT_OK);
        hcrt_dsm_counters_t b, a;
        hcrt__dsm_counters(&b);
        MPI_Send(buf, 3 * 512, MPI_LONG, 0, 9, hcrt__comm_world());
        hcrt__dsm_counters(&a);
        CHECK_EQ(a.read_faults + a.write_faults,
                 b.read_faults + b.write_faults);
    }
    if (me == 0) {
        long *got = malloc(3 * 4096);
        MPI_Recv(got, 3 * 512, MPI_LONG, src, 9, hcrt__comm_world(),
                 MPI_STATUS_IGNORE);
        long bad = 0;
        for (int i = 0; i < 3 * 512; i++)
            bad += got[i] != i;
        CHECK_EQ(bad, 0);
        free(got);
    }
    hcrt__dsm_barrier();
}

/* HCRT_STATS' DSM section lists every rank (asked through its service
 * thread) and the regions seen here. */
static void test_stats_section(void)
{
    if (me == 0) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        hcrt__stats_report(f);
        fclose(f);
        CHECK(strstr(text, "---- DSM ----") != NULL);
        CHECK(strstr(text, "rd-fault") != NULL);
        CHECK(strstr(text, "reg 00000abc") != NULL);
        char row[32];
        snprintf(row, sizeof row, "\n  %-12d", nranks - 1);
        CHECK(strstr(text, row) != NULL);
        if (check_failures)
            fputs(text, stderr);
        free(text);
    }
    hcrt__dsm_barrier();
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    test_publish();
    test_false_sharing();
    test_realloc_across_homes();
    test_alloc_family();
    test_region_counters();
    test_make_resident();
    test_stats_section();
    return dsm_test_finish("dsm_basic");
}
