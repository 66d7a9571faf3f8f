/*
 * dsm_reread.c - input the home wrote, read again after every barrier
 * (runtime/dsm/pages.c, retire_home_writes), and what happens when it is
 * written afterwards.
 *
 * Rank 0 initialises an array; the other ranks read it after every
 * barrier, as the loops of an iterative program read input the head set
 * up. Over messages (HCRT_DSM_SHM=0) the first read fetches it, the second
 * fetches it again (the home wrote the pages: the copies were not exempt)
 * and the home then drops its writer registration, so from the third on
 * the copies survive the barriers: no fetch. Then the pages are written
 * again, by the home and by another rank, page by page over many rounds,
 * and every rank checks every value after each barrier: a copy left
 * exempt after a write would show an old value.
 */
#include "dsm_test.h"

#define PAGES 64
#define PER (4096 / sizeof(long))
#define ROUNDS 24

static long sum_all(const long *a)
{
    long s = 0;
    for (size_t i = 0; i < PAGES * PER; i++)
        s += a[i];
    return s;
}

static long want_sum(const long *v)
{
    long s = 0;
    for (size_t i = 0; i < PAGES * PER; i++)
        s += v[i];
    return s;
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    const char *shm = getenv("HCRT_DSM_SHM");
    int msg = shm && strcmp(shm, "0") == 0;
    long *a = NULL, *ref = malloc(PAGES * PER * sizeof(long));
    CHECK(ref != NULL);
    if (me == 0) {
        a = hcrt__dsm_malloc(PAGES * PER * sizeof(long));
        CHECK(a != NULL);
    }
    for (size_t i = 0; i < PAGES * PER; i++)
        ref[i] = (long)(i * 3 + 1);
    if (me == 0)
        memcpy(a, ref, PAGES * PER * sizeof(long));
    a = dsm_test_share(a, 0);
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);

    /* three reads, a barrier after each */
    uint64_t fetched[3];
    hcrt_dsm_counters_t c0, c1;
    for (int r = 0; r < 3; r++) {
        hcrt__dsm_counters(&c0);
        if (me != 0)
            CHECK_EQ(sum_all(a), want_sum(ref));
        hcrt__dsm_counters(&c1);
        fetched[r] = c1.pages_fetched - c0.pages_fetched;
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    }
    hcrt__dsm_counters(&c1);
    uint64_t mine = c1.home_reprotects, reprot = 0;
    MPI_Allreduce(&mine, &reprot, 1, MPI_UINT64_T, MPI_SUM, hcrt__comm_world());
    if (msg && me != 0) {
        if (fetched[0] < PAGES || fetched[1] < PAGES || fetched[2] != 0)
            fprintf(stderr,
                    "rank %d: pages fetched by the three reads: "
                    "%llu %llu %llu (want >= %d, >= %d, 0)\n",
                    me, (unsigned long long)fetched[0],
                    (unsigned long long)fetched[1],
                    (unsigned long long)fetched[2], PAGES, PAGES);
        CHECK(fetched[0] >= PAGES && fetched[1] >= PAGES);
        CHECK_EQ(fetched[2], 0);
    }
    if (msg && me == 0) /* each page once, however many readers */
        CHECK_EQ(reprot, PAGES);

    /* writes after the copies turned exempt: the home in even rounds, the
     * last rank in odd ones, a page each, then everyone checks */
    for (int r = 0; r < ROUNDS; r++) {
        size_t p = (size_t)(r * 7) % PAGES, i = p * PER + (size_t)r % PER;
        int writer = r % 2 ? nranks - 1 : 0;
        ref[i] = 1000 + r;
        if (me == writer)
            a[i] = ref[i];
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
        CHECK_EQ(sum_all(a), want_sum(ref));
        CHECK_EQ(a[i], ref[i]);
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    }
    for (size_t i = 0; i < PAGES * PER; i++)
        if (a[i] != ref[i]) {
            fprintf(stderr, "rank %d: a[%zu] = %ld, want %ld\n", me, i, a[i],
                    ref[i]);
            CHECK_EQ(a[i], ref[i]);
            break;
        }
    CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    if (me == 0)
        hcrt__dsm_free(a);
    free(ref);
    return dsm_test_finish("dsm_reread");
}
