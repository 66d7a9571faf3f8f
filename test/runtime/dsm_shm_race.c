/*
 * dsm_shm_race.c - diffs applied to a home's master copy while other ranks
 * fetch it: no fetch may ever see a half-applied diff (the message path;
 * on one host with the fast path nothing is copied or diffed: pages are
 * mapped in place, see dsm_shm_flag).
 *
 * One page is homed on rank 0. Rank 1 writes the round number k into every
 * one of its first 504 words, then releases, round after round until every
 * reader is done: each release is a diff touching 504 separate bytes of
 * the master. Ranks 2.. meanwhile (READS times)
 * acquire and write one scratch byte of their own at the end of the page,
 * so each round is a write miss that copies the master page (a message:
 * the test runs with HCRT_DSM_SHM=0), then check their private copy: all 504
 * words equal (no torn diff) and k never going back (copies are taken from
 * one master at increasing times). Their scratch-byte releases are diffs
 * to the same page too, from several ranks at once.
 *
 * Needs 3 ranks (home, writer, reader), and checks that no page was
 * mapped in place (the fast path was off).
 */
#include "dsm_test.h"

#define WORDS 504 /* 4032 bytes; the last 64 bytes are scratch */
#define READS 1500

/* Returns the last round written. */
static uint64_t writer(volatile uint64_t *w)
{
    int nr = nranks - 2, done = 0, token[4];
    MPI_Request req[4];
    for (int r = 0; r < nr; r++)
        MPI_Irecv(&token[r], 1, MPI_INT, r + 2, 7, hcrt__comm_world(), &req[r]);
    uint64_t k = 0;
    while (!done) {
        k++;
        for (int i = 0; i < WORDS; i++)
            w[i] = k;
        hcrt__dsm_release();
        if (k % 128 == 0) /* Open MPI yields the core in MPI_Testall */
            MPI_Testall(nr, req, &done, MPI_STATUSES_IGNORE);
    }
    return k;
}

/* One read: a write miss (fresh copy of the master), then the check. */
static void check_copy(volatile uint64_t *w, uint64_t *last, long *torn)
{
    hcrt__dsm_acquire();
    ((volatile uint8_t *)w)[WORDS * 8 + me] = (uint8_t)*last;
    uint64_t k = w[0];
    for (int i = 1; i < WORDS; i++)
        if (w[i] != k) {
            if (++*torn <= 3)
                fprintf(stderr,
                        "rank %d: torn copy: word 0 = %llu, word %d = "
                        "%llu\n",
                        me, (unsigned long long)k, i, (unsigned long long)w[i]);
            break;
        }
    CHECK(k >= *last);
    *last = k;
    hcrt__dsm_release();
}

static void reader(volatile uint64_t *w)
{
    uint64_t last = 0;
    long torn = 0;
    int token = 1;
    for (int i = 0; i < READS; i++)
        check_copy(w, &last, &torn);
    MPI_Send(&token, 1, MPI_INT, 1, 7, hcrt__comm_world());
    CHECK(torn == 0);
    if (me == 2)
        printf("dsm_shm_race: rank 2 made %d copies, saw rounds up to %llu, "
               "%ld torn\n",
               READS, (unsigned long long)last, torn);
}

static void check_path(void)
{
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    CHECK(c.shm_pages == 0); /* copies and diffs travelled as messages */
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    if (nranks < 3 || nranks > 6) {
        if (me == 0)
            fprintf(stderr, "dsm_shm_race needs 3 to 6 ranks\n");
        hcrt__dsm_fini();
        return 1;
    }
    uint64_t *page = NULL;
    if (me == 0)
        page = hcrt__dsm_aligned_alloc(4096, 4096);
    page = dsm_test_share(page, 0);
    hcrt__dsm_barrier();
    uint64_t rounds = 0;
    if (me == 1)
        rounds = writer(page);
    else if (me >= 2)
        reader(page);
    MPI_Bcast(&rounds, 1, MPI_UINT64_T, 1, hcrt__comm_world());
    hcrt__dsm_barrier();
    /* after the barrier everyone sees the last round */
    CHECK(((volatile uint64_t *)page)[WORDS - 1] == rounds);
    check_path();
    return dsm_test_finish("dsm_shm_race");
}
