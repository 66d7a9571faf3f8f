/*
 * dsm_migrate.c - homes that follow their writer (HCRT_DSM_MIGRATE).
 *
 * Rank 0 allocates (homes) an array; then, epoch after epoch, each page is
 * written by one other rank only, everybody checks every word after each
 * barrier. With migration on (message path) the pages move to their
 * writers: the counters say so, and the writers stop faulting on them.
 * Then the writers change (pages move on, some back to rank 0), rank 0
 * writes everything alone (its writes reach every rank from the new
 * homes), two ranks write halves of one page in the same epoch, atomics
 * and lock-protected sums land on moved pages. Every read is checked.
 */
#include "dsm_test.h"

#define NP 48 /* pages of the array */
#define WPP (4096 / 8)
#define EPOCHS 8

static uint64_t *arr;
static int migrate_on;

static uint64_t val(int e, size_t i)
{
    return (uint64_t)e * 1000003ULL + i * 7919ULL + 1;
}

/* Quiet epochs: a rank checks only the pages it writes (a home that
 * reads or writes a page keeps it, migrate.c), so pages can move. */
static int quiet;

/* One epoch: writer_of(p) writes page p, random acquires and releases in
 * between; then everybody checks everything (in quiet epochs, its own). */
static void epoch(int e, int (*writer_of)(size_t p))
{
    uint64_t rng = 0x9876ULL + (uint64_t)me * 131 + (uint64_t)e;
    for (size_t p = 0; p < NP; p++) {
        if (writer_of(p) != me)
            continue;
        for (size_t j = 0; j < WPP; j++)
            arr[p * WPP + j] = val(e, p * WPP + j);
        if (dsm_test_rand(&rng) % 4 == 0)
            (dsm_test_rand(&rng) & 1) ? hcrt__dsm_release()
                                      : hcrt__dsm_acquire();
    }
    hcrt__dsm_barrier();
    for (size_t i = 0; i < NP * WPP; i++)
        if ((!quiet || writer_of(i / WPP) == me) && arr[i] != val(e, i)) {
            CHECK_EQ(arr[i], val(e, i));
            break;
        }
    hcrt__dsm_barrier();
}

static int writer_a(size_t p)
{
    return 1 + (int)(p % (size_t)(nranks - 1));
}

static int writer_b(size_t p)
{
    return (int)((p + 1) % (size_t)nranks);
}

static int writer_head(size_t p)
{
    (void)p;
    return 0;
}

static hcrt_dsm_counters_t now(void)
{
    hcrt_dsm_counters_t c;
    hcrt__dsm_counters(&c);
    return c;
}

/* Pages written in one epoch by two ranks (halves): both halves survive. */
static void shared_pages(int e)
{
    int a = 0, b = nranks - 1;
    for (size_t p = 0; p < NP; p++)
        for (size_t j = 0; j < WPP; j++) {
            int w = j < WPP / 2 ? a : b;
            if (w == me)
                arr[p * WPP + j] = val(e, p * WPP + j);
        }
    hcrt__dsm_barrier();
    for (size_t i = 0; i < NP * WPP; i++)
        if (arr[i] != val(e, i)) {
            CHECK_EQ(arr[i], val(e, i));
            break;
        }
    hcrt__dsm_barrier();
}

/* A page written in two epochs by rank 1 (its copy then exempt), then in
 * the next by rank 2 alone: the home moves to rank 1 at that barrier, and
 * its master must come from the old home (rank 1's own copy lacks rank
 * 2's writes). Needs 3 ranks. */
static void stale_writer(void)
{
    uint64_t *f = me == 0 ? hcrt__dsm_calloc(NP * WPP, 8) : NULL;
    f = dsm_test_share(f, 0);
    hcrt__dsm_barrier();
    for (int e = 1; e <= 3; e++) {
        int w = e < 3 ? 1 : 2;
        for (size_t i = 0; i < NP * WPP; i++)
            if (w == me && (e < 3 || i % WPP < WPP / 2))
                f[i] = val(e, i);
        hcrt__dsm_barrier();
    }
    for (size_t i = 0; i < NP * WPP; i++) {
        uint64_t want = val(i % WPP < WPP / 2 ? 3 : 2, i);
        if (f[i] != want) {
            CHECK_EQ(f[i], want);
            break;
        }
    }
    hcrt__dsm_barrier();
}

/* Atomics and lock-protected updates on moved pages. */
static void sync_ops(void)
{
    uint64_t *ctr = &arr[3 * WPP + 5], *locked = &arr[7 * WPP + 9];
    if (me == 0)
        *ctr = *locked = 0;
    hcrt__dsm_barrier();
    for (int k = 0; k < 200; k++) {
        hcrt__dsm_atomic(ctr, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_ADD, 1, 0,
                         __ATOMIC_RELAXED);
        if (k % 20 == 0) {
            hcrt__dsm_lock(42);
            *locked += 1;
            hcrt__dsm_unlock(42);
        }
        if (k % 50 == 0) /* homes may move meanwhile: atomics follow */
            hcrt__dsm_barrier();
    }
    hcrt__dsm_barrier();
    CHECK_EQ(*ctr, 200ULL * (uint64_t)nranks);
    CHECK_EQ(*locked, 10ULL * (uint64_t)nranks);
    hcrt__dsm_barrier();
}

int main(int argc, char **argv)
{
    dsm_test_init(&argc, &argv);
    const char *mg = getenv("HCRT_DSM_MIGRATE"), *shm = getenv("HCRT_DSM_SHM");
    migrate_on = hcrt__dsm_migrates();
    /* asked for over messages: it must be on; asked off, or with the
     * same-host fast path forced, off (auto: on between hosts only) */
    int asked = mg && mg[0] == '1';
    if (asked && shm && shm[0] == '0')
        CHECK(migrate_on);
    if (!asked || (shm && shm[0] == '1'))
        CHECK(!migrate_on);
    arr = me == 0 ? hcrt__dsm_calloc(NP * WPP, 8) : NULL;
    arr = dsm_test_share(arr, 0);
    if (nranks >= 3)
        stale_writer();
    int e = 0;
    quiet = 1;
    for (int k = 0; k < EPOCHS; k++, e++)
        epoch(e, writer_a);
    /* moved by now: a last epoch writes without a single write miss */
    hcrt_dsm_counters_t c0 = now();
    epoch(e++, writer_a);
    hcrt_dsm_counters_t c1 = now();
    quiet = 0;
    epoch(e++, writer_a); /* everybody reads them from their new homes */
    size_t mine = 0;
    for (size_t p = 0; p < NP; p++)
        mine += writer_a(p) == me;
    if (migrate_on) {
        if (me == 0)
            CHECK(c1.pages_migrated_out >= NP);
        else
            CHECK(c1.pages_migrated_in >= mine);
        CHECK_EQ(c1.write_faults - c0.write_faults, 0);
    } else {
        CHECK_EQ(c1.pages_migrated_in + c1.pages_migrated_out, 0);
    }
    quiet = 1; /* the pages move on (some back to rank 0) */
    for (int k = 0; k < EPOCHS; k++, e++)
        epoch(e, writer_b);
    quiet = 0;
    epoch(e++, writer_b);
    hcrt_dsm_counters_t c2 = now();
    if (migrate_on && nranks > 2) /* rank 1's pages moved on */
        CHECK(c2.pages_migrated_out > c1.pages_migrated_out ||
              c2.pages_migrated_in > c1.pages_migrated_in);
    epoch(e++, writer_head); /* the head alone: its writes reach all */
    for (int k = 0; k < 3; k++)
        shared_pages(e++);
    sync_ops();
    for (int k = 0; k < 3; k++, e++)
        epoch(e, writer_a);
    hcrt_dsm_counters_t c3 = now();
    if (me == 0)
        printf("dsm_migrate: rank 0 moved %llu pages away, took %llu\n",
               (unsigned long long)c3.pages_migrated_out,
               (unsigned long long)c3.pages_migrated_in);
    return dsm_test_finish("dsm_migrate");
}
