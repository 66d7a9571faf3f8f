/*
 * dsm_globals.c - writable globals made DSM memory (as the pass does with
 * section "hcrt_shared"): the executable is a PIE, so this also checks that
 * the re-execution without address randomisation puts globals at the same
 * address in every rank. Initial values are the same everywhere; writes by
 * any rank reach every rank after a barrier; ordinary globals stay private.
 * A large zero-initialised global takes no memory at start-up, and the
 * home's scattered writes to it take runs of pages on the same-host path
 * (home_writes_big).
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dsm/dsm_int.h"
#include "dsm_test.h"

#define N 3000 /* spans several pages */

static struct {
    long v[N];
    char tail[4096]; /* pads the section to whole pages */
} shared_globals __attribute__((aligned(4096))) = {{1, 2, 3}, {0}};
static long private_counter;

/* A large global array the home (rank 0) writes a page at a time in
 * column order, as FT's transposes and IS's scattered keys do. */
#define BIG_PAGES 1024
#define PER_PAGE (4096 / sizeof(double))
static double big[BIG_PAGES * PER_PAGE] __attribute__((aligned(4096)));

/* On the same-host path the home's write faults on a global take runs of
 * pages and send nothing: the other ranks of its host map its memory and
 * hold no copy to be told of (before, every page cost a fault and a
 * notice round trip to every other rank, ~30 us). Over messages (ranks
 * of other hosts, or HCRT_DSM_SHM=0) each rank holds a seeded copy, so a
 * page a fault: runs come only from a stream's window, which a column
 * order does not grow (it did when the faults of the globals before it
 * had grown a window it then inherited). */
static void home_writes_big(void)
{
    int msg = dsm.copy_holders != 0;
    if (me == 0) {
        hcrt_dsm_counters_t c0, c1;
        hcrt__dsm_counters(&c0);
        for (size_t col = 0; col < 64; col++)
            for (size_t p = col; p < BIG_PAGES; p += 64)
                big[p * PER_PAGE + 1] = (double)p;
        hcrt__dsm_counters(&c1);
        uint64_t n = c1.home_faults - c0.home_faults;
        uint64_t hi = msg ? BIG_PAGES : BIG_PAGES / 32;
        if (n > hi)
            fprintf(stderr,
                    "rank 0: strided writes to %d pages of a global took "
                    "%llu home faults (want at most %llu)\n",
                    BIG_PAGES, (unsigned long long)n, (unsigned long long)hi);
        CHECK(n <= hi);
    }
    hcrt__dsm_barrier();
    long bad = 0;
    for (size_t p = 0; p < BIG_PAGES; p++)
        bad += big[p * PER_PAGE + 1] != (double)p;
    CHECK_EQ(bad, 0);
    hcrt__dsm_barrier();
}

/* A global another rank wrote (a region's output) that the home then
 * writes alone, in order (the program's regions moved to the head):
 * over messages each page's write fault would take its writer's copy away
 * by a round trip; the stream's runs take it for the pages of the run at
 * once (NPB MG class W between 2 hosts: 4 656 home faults, now ~350). */
#define OUT_PAGES 512
static double out[OUT_PAGES * PER_PAGE] __attribute__((aligned(4096)));

static void home_writes_after_worker(void)
{
    if (me == 1)
        for (size_t p = 0; p < OUT_PAGES; p++)
            out[p * PER_PAGE] = (double)p;
    hcrt__dsm_barrier();
    if (me == 0) {
        hcrt_dsm_counters_t c0, c1;
        hcrt__dsm_counters(&c0);
        for (size_t p = 0; p < OUT_PAGES; p++)
            out[p * PER_PAGE + 1] = (double)(2 * p);
        hcrt__dsm_counters(&c1);
        uint64_t n = c1.home_faults - c0.home_faults;
        if (n > OUT_PAGES / 8)
            fprintf(stderr,
                    "rank 0: in-order writes to %d pages rank 1 wrote took "
                    "%llu home faults (want at most %d)\n",
                    OUT_PAGES, (unsigned long long)n, OUT_PAGES / 8);
        CHECK(n <= OUT_PAGES / 8);
    }
    hcrt__dsm_barrier();
    long bad = 0;
    for (size_t p = 0; p < OUT_PAGES; p++)
        bad += out[p * PER_PAGE] != (double)p ||
               out[p * PER_PAGE + 1] != (double)(2 * p);
    CHECK_EQ(bad, 0);
    hcrt__dsm_barrier();
}

/* hcrt__dsm_untouched marks the pages of a private anonymous mapping that
 * nothing touched (they read as zero without being read), and never the
 * touched ones nor those of a file mapping, which hold the file's bytes. */
static void untouched_pages(void)
{
    enum { NP = 64 };
    uint8_t skip[NP];
    char *anon = mmap(NULL, NP * 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(anon != MAP_FAILED);
    anon[3 * 4096] = 1;                    /* written */
    volatile char r = anon[10 * 4096 + 5]; /* read: the zero page */
    (void)r;
    CHECK_EQ(hcrt__dsm_untouched((uintptr_t)anon, NP * 4096, skip), NP - 2);
    CHECK(!skip[3] && !skip[10] && skip[0] && skip[4] && skip[NP - 1]);
    munmap(anon, NP * 4096);
    int fd = open("/proc/self/exe", O_RDONLY);
    CHECK(fd >= 0);
    char *file = mmap(NULL, 4 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    CHECK(file != MAP_FAILED);
    CHECK_EQ(hcrt__dsm_untouched((uintptr_t)file, 4 * 4096, skip), 0);
    munmap(file, 4 * 4096);
    close(fd);
}

int main(int argc, char **argv)
{
    hcrt__dsm_prepare_address_space(argc, argv);
    untouched_pages();
    /* written before the area is added (as a constructor may): the value
     * must reach the DSM's copy */
    big[5 * PER_PAGE + 7] = 42.0;
    char *end = (char *)&shared_globals + (sizeof shared_globals & ~4095UL);
    CHECK_EQ(hcrt__dsm_add_area(&shared_globals, end), HCRT_OK);
    CHECK_EQ(hcrt__dsm_add_area(big, big + BIG_PAGES * PER_PAGE), HCRT_OK);
    CHECK_EQ(hcrt__dsm_add_area(out, out + OUT_PAGES * PER_PAGE), HCRT_OK);
    dsm_test_init(&argc, &argv);
    CHECK(hcrt__dsm_contains(&shared_globals.v[0]));
    /* the zero-initialised global took no memory at start-up: its pages
     * were not copied into the DSM's backing file (1024 resident before) */
    unsigned char in_core[BIG_PAGES];
    CHECK_EQ(mincore(big, sizeof big, in_core), 0);
    int resident = 0;
    for (int i = 0; i < BIG_PAGES; i++)
        resident += in_core[i] & 1;
    if (resident)
        fprintf(stderr, "rank %d: %d of %d zero pages resident\n", me, resident,
                BIG_PAGES);
    CHECK(resident <= 1); /* the page written before start-up */
    CHECK_EQ(big[5 * PER_PAGE + 7], 42.0);
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
    home_writes_big();
    home_writes_after_worker();
    return dsm_test_finish("dsm_globals");
}
