/*
 * dsm_direct.c - misses over messages that the faulting thread sends and
 * receives itself (runtime/dsm/direct.c), next to misses that go through
 * the service thread, in several threads at once.
 *
 * Each rank homes an array whose words encode (home, page, word, round).
 * Every round, THREADS threads of every rank read pages of every other
 * rank's array: single pages in random order (fetches of one page), a
 * sequential sweep (runs that grow past the pages a reply carries inline,
 * read-ahead), a column (strided runs), and pages copied by the C
 * library's memcpy (a fault outside the program's code: the service
 * thread's path). Then each rank writes a word of its own into pages
 * homed elsewhere (write misses), and after a barrier every rank checks
 * every word. Over messages (HCRT_DSM_SHM=0) with HCRT_DSM_DIRECT on, the
 * test also checks that both paths were taken; with it off, that no fetch
 * was direct.
 */
#include <pthread.h>

#include "dsm_test.h"

#define PAGES 96
#define WORDS (4096 / sizeof(uint64_t))
#define THREADS 3
#define ROUNDS 4

static uint64_t *arr[64];
static int round_no;
static _Atomic int bad;
/* a call of the C library's memcpy, never inlined: its faults are not the
 * program's code */
static void *(*volatile copy)(void *, const void *, size_t) = memcpy;

static uint64_t want(int home, size_t page, size_t w, int r)
{
    return ((uint64_t)home << 48) ^ ((uint64_t)page << 24) ^ (w << 4) ^
           (uint64_t)r;
}

static void check_page(int home, size_t page, const uint64_t *p)
{
    for (size_t w = 1; w < WORDS; w += 37)
        if (p[w] != want(home, page, w, round_no))
            bad++;
}

static void *reader(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(me * 16 + t + 1);
    for (int k = 0; k < nranks; k++) {
        int home = (me + 1 + k + t) % nranks;
        if (home == me)
            continue;
        uint64_t *a = arr[home];
        for (int i = 0; i < 24; i++) { /* random single pages */
            size_t pg = dsm_test_rand(&seed) % PAGES;
            check_page(home, pg, a + pg * WORDS);
        }
        if (t == 0) /* a sweep: runs, data after the reply, read-ahead */
            for (size_t pg = 0; pg < PAGES; pg++)
                check_page(home, pg, a + pg * WORDS);
        if (t == 1) /* a column: strided runs */
            for (size_t pg = 1; pg < PAGES; pg += 3)
                check_page(home, pg, a + pg * WORDS);
    }
    return NULL;
}

/* Before the threads start: one page of every other home, copied by the C
 * library (a fault there goes through the service thread). */
static void copy_pages(void)
{
    static uint64_t buf[WORDS];
    size_t pg = (size_t)(round_no * 5 + 1) % PAGES;
    for (int home = 0; home < nranks; home++) {
        if (home == me)
            continue;
        copy(buf, arr[home] + pg * WORDS, sizeof buf);
        check_page(home, pg, buf);
    }
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    CHECK(nranks <= 64);
    uint64_t *mine = hcrt__dsm_malloc(PAGES * 4096);
    CHECK(mine != NULL);
    for (int r = 0; r < nranks; r++)
        arr[r] = dsm_test_share(mine, r);
    for (round_no = 0; round_no < ROUNDS; round_no++) {
        for (size_t pg = 0; pg < PAGES; pg++)
            for (size_t w = 0; w < WORDS; w++)
                mine[pg * WORDS + w] = want(me, pg, w, round_no);
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
        copy_pages();
        pthread_t th[THREADS];
        for (int t = 0; t < THREADS; t++)
            pthread_create(&th[t], NULL, reader, (void *)(intptr_t)t);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        CHECK_EQ(bad, 0);
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
        /* write misses: word 0 of page me of every other array */
        for (int h = 0; h < nranks; h++)
            if (h != me)
                arr[h][(size_t)me * WORDS] = want(me, (size_t)h, 0, round_no);
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
        for (int h = 0; h < nranks; h++)
            for (int w = 0; w < nranks; w++)
                if (w != h)
                    CHECK_EQ(arr[h][(size_t)w * WORDS],
                             want(w, (size_t)h, 0, round_no));
        CHECK_EQ(hcrt__dsm_barrier(), HCRT_OK);
    }
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    const char *shm = getenv("HCRT_DSM_SHM"), *d = getenv("HCRT_DSM_DIRECT");
    int msg = shm && strcmp(shm, "0") == 0, off = d && strcmp(d, "0") == 0;
    uint64_t misses = c.read_faults + c.write_faults;
    if (msg && (off ? c.direct_fetches != 0
                    : c.direct_fetches == 0 || c.direct_fetches >= misses))
        fprintf(stderr,
                "rank %d: %llu of %llu misses fetched by the faulting "
                "thread (HCRT_DSM_DIRECT=%s: want %s)\n",
                me, (unsigned long long)c.direct_fetches,
                (unsigned long long)misses, off ? "0" : "1",
                off ? "none" : "some, not all");
    if (msg && off)
        CHECK_EQ(c.direct_fetches, 0);
    if (msg && !off) {
        CHECK(c.direct_fetches > 0);
        CHECK(c.direct_fetches < misses); /* memcpy's went the other way */
    }
    return dsm_test_finish("dsm_direct");
}
