/*
 * migrate.c - homes that follow their writer (HCRT_DSM_MIGRATE).
 *
 * A home receives every diff of its pages, so it knows who wrote which
 * page in each epoch (the interval between two DSM barriers). A page whose
 * last MIG_AFTER written epochs each had one and the same writer W, not
 * the home, and that the home itself did not write meanwhile, moves its
 * home to W at the next barrier. Every rank takes part in the move at the
 * same point (docs/dsm.md, "Home migration", has the argument):
 *
 *   flush; scan (each home lists its movers); allgather of the counts
 *   (this is the barrier itself); flush; invalidate;
 *   if anything moves: allgatherv of the lists, then on every rank each
 *   moving page is taken BUSY and PROT_NONE (a dirty copy's diff goes to
 *   the old home first); barrier; the new home pulls the master copies
 *   from the old one; barrier; every rank points the page at its new home
 *   (a table all ranks update at that point), drops whatever copy it had
 *   and lets the page go (PG_INV).
 *
 * Only on the message path: with same-host peers (the fast path maps a
 * home's memory in place, by slice) migration stays off.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/config.h"
#include "base/log.h"
#include "base/wait.h"
#include "dsm/migrate_int.h"

struct dsm_mig hcrt__dsm_mig = {.mu = PTHREAD_MUTEX_INITIALIZER};
static struct dsm_mig *const mig = &hcrt__dsm_mig;

/* Atomics at a home and the copy a pull takes exclude each other. */
pthread_mutex_t hcrt__dsm_mig_atomic_mu = PTHREAD_MUTEX_INITIALIZER;

static void *grow(void *p, size_t *cap, size_t need, size_t sz)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
    p = realloc(p, c * sz);
    if (!p)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM's home migration");
    *cap = c;
    return p;
}

hcrt_status_t hcrt__dsm_migrate_init(void)
{
    int want = hcrt__config_bool("HCRT_DSM_MIGRATE"), shm = dsm.shm_peers;
    int any_shm = 0;
    MPI_Allreduce(&shm, &any_shm, 1, MPI_INT, MPI_MAX, dsm.coll_comm);
    dsm.migrate = 0;
    dsm.moved = NULL;
    if (!want)
        return HCRT_OK;
    if (any_shm || dsm.size > 250) {
        if (dsm.rank == 0)
            hcrt_debug(HCRT_MOD_DSM,
                       "HCRT_DSM_MIGRATE=1 but %s: homes stay put",
                       any_shm ? "ranks of one host share pages in place "
                                 "(same-host fast path; HCRT_DSM_SHM=0 "
                                 "turns it off)"
                               : "more than 250 ranks");
        return HCRT_OK;
    }
    size_t n = dsm.npages;
    void *r = mmap(NULL, n * sizeof(uint64_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *m = mmap(NULL, n * sizeof(int16_t), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    mig->counts = calloc((size_t)dsm.size, sizeof *mig->counts);
    if (r == MAP_FAILED || m == MAP_FAILED || !mig->counts) {
        hcrt_error(HCRT_MOD_DSM,
                   "cannot reserve the home migration tables "
                   "for %zu pages; set HCRT_DSM_MIGRATE=0",
                   n);
        return HCRT_ERR_NOMEM;
    }
    mig->rec = r;
    dsm.moved = m;
    atomic_store(&mig->epoch, 0);
    dsm.migrate = 1;
    return HCRT_OK;
}

void hcrt__dsm_migrate_fini(void)
{
    if (mig->rec)
        munmap((void *)mig->rec, dsm.npages * sizeof(uint64_t));
    free(mig->cand);
    free(mig->props);
    free(mig->counts);
    mig->rec = NULL;
    mig->cand = NULL;
    mig->props = NULL;
    mig->counts = NULL;
    mig->ncand = mig->cap = mig->nprops = mig->capprops = 0;
    /* dsm.moved stays: homes are looked up until the range goes */
    dsm.migrate = 0;
}

/* (pw, run) of `r` as of the epochs before `cur` (those are complete). */
static void closed_view(uint64_t r, uint32_t cur, int *pw, int *run)
{
    *pw = R_PW(r);
    *run = R_RUN(r);
    if (!(r & R_HAS) || R_EP(r) >= cur)
        return;
    int w = R_W(r);
    if (w == MANY)
        *pw = NONE, *run = 0;
    else if (w == *pw)
        *run = *run < 255 ? *run + 1 : 255;
    else
        *pw = w, *run = 1;
}

/* Home, service thread: a diff of page idx from rank src was applied. */
void hcrt__dsm_migrate_note(size_t idx, int src)
{
    uint32_t e = atomic_load(&mig->epoch);
    uint64_t o = atomic_load(&mig->rec[idx]), n;
    int push;
    do {
        push = 0;
        if ((o & R_HAS) && R_EP(o) == e) {
            if (R_W(o) == src)
                return;
            n = rec_make(
                e, MANY, R_PW(o), R_RUN(o),
                o & (R_QUEUED | R_PROBED | R_MOVING | R_HAS | R_MOVES_MASK));
        } else {
            int pw, run;
            closed_view(o, e, &pw, &run);
            if (!(o & R_HAS))
                pw = NONE, run = 0;
            n = rec_make(e, src, pw, run,
                         (o & (R_PROBED | R_MOVING | R_MOVES_MASK)) | R_HAS |
                             R_QUEUED);
            push = !(o & R_QUEUED);
        }
    } while (!atomic_compare_exchange_weak(&mig->rec[idx], &o, n));
    if (!push)
        return;
    pthread_mutex_lock(&mig->mu);
    mig->cand = grow(mig->cand, &mig->cap, mig->ncand + 1, sizeof *mig->cand);
    mig->cand[mig->ncand++] = (uint32_t)idx;
    pthread_mutex_unlock(&mig->mu);
}

/* The home used a probed page: its streak starts again, and the next
 * one must be twice as long (a failed probe counts as a move), so pages
 * the home keeps using are probed less and less, then no more. */
static void rec_reset(size_t idx, uint32_t cur)
{
    uint64_t o = atomic_load(&mig->rec[idx]), n;
    do {
        int w = R_EP(o) < cur ? MANY : R_W(o);
        uint64_t mv = (uint64_t)(R_MOVES(o) < 7 ? R_MOVES(o) + 1 : 7) << 60;
        n = rec_make(R_EP(o), w, NONE, 0, (o & (R_QUEUED | R_HAS)) | mv);
    } while (!atomic_compare_exchange_weak(&mig->rec[idx], &o, n));
}

/* A candidate the home holds valid: protect it (PG_INV, PROT_NONE, as if
 * never touched), so that any later access of this rank shows as a home
 * fault (no message: the master stays here). */
static int probe(size_t idx)
{
    uint8_t st = atomic_load(&dsm.pages[idx].state);
    if ((st != PG_RO && st != PG_RW) ||
        !atomic_compare_exchange_strong(&dsm.pages[idx].state, &st, PG_BUSY))
        return 0;
    hcrt__dsm_mprotect(hcrt__dsm_page_addr(idx), DSM_PAGE, PROT_NONE);
    atomic_store(&dsm.pages[idx].state, PG_INV);
    hcrt__dsm_page_settled();
    return 1;
}

/* Scan of one candidate: 1 keeps it in the list. A page moves when its
 * streak is long enough and the home has not touched it since it was
 * probed (or ever): a page the home reads or writes stays, so that the
 * home does not start fetching what it uses (a transposed sweep). */
static int scan_one(size_t idx, uint32_t cur)
{
    uint64_t r = atomic_load(&mig->rec[idx]);
    int pw, run;
    closed_view(r, cur, &pw, &run);
    int recent = (r & R_HAS) && R_EP(r) + 4 >= cur;
    if (hcrt__dsm_in_stacks(idx) || hcrt__dsm_home_known(idx) != dsm.rank ||
        (atomic_load(&dsm.dir[idx].writers) & (1ULL << DSM_ATOMIC_WRITER)))
        return 0; /* pinned, not ours, or atomics: never moves */
    int moves = R_MOVES(r);
    if (moves >= MIG_MAX_MOVES)
        return 0; /* it has moved enough */
    if (run < 1 || pw == NONE || pw == MANY || pw == dsm.rank || pw >= dsm.size)
        return recent;
    uint8_t st = atomic_load(&dsm.pages[idx].state);
    if (st == PG_BUSY)
        return 1;
    if ((r & R_PROBED) && st != PG_INV) { /* the home used it */
        rec_reset(idx, cur);
        rec_set(idx, 0, R_PROBED);
        return recent;
    }
    if (st != PG_INV) {
        if (probe(idx))
            rec_set(idx, R_PROBED, 0);
        return 1;
    }
    if (run < (MIG_AFTER << moves))
        return 1;
    mig->props =
        grow(mig->props, &mig->capprops, mig->nprops + 1, sizeof *mig->props);
    mig->props[mig->nprops++] =
        (mv_t){(uint32_t)idx, (uint32_t)pw | (uint32_t)(moves + 1) << 16};
    return 0;
}

/* Before the barrier's collective: this home's proposals. */
static void scan(void)
{
    uint32_t cur = atomic_load(&mig->epoch);
    pthread_mutex_lock(&mig->mu);
    uint32_t *c = mig->cand;
    size_t n = mig->ncand;
    mig->cand = NULL;
    mig->ncand = mig->cap = 0;
    pthread_mutex_unlock(&mig->mu);
    mig->nprops = 0;
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        if (scan_one(c[i], cur))
            c[keep++] = c[i];
        else
            rec_set(c[i], 0, R_QUEUED);
    }
    pthread_mutex_lock(&mig->mu);
    mig->cand =
        grow(mig->cand, &mig->cap, mig->ncand + keep, sizeof *mig->cand);
    memcpy(mig->cand + mig->ncand, c, keep * sizeof *c);
    mig->ncand += keep;
    pthread_mutex_unlock(&mig->mu);
    free(c);
}

/* The barrier's collective: every rank's number of proposals. */
hcrt_status_t hcrt__dsm_migrate_barrier(void)
{
    scan();
    int mine = (int)mig->nprops;
    MPI_Request req;
    hcrt_wait_t w = {
        .what = "a DSM barrier", .peer = HCRT_WAIT_ANY, .spin_ns = UINT64_MAX};
    if (MPI_Iallgather(&mine, 1, MPI_INT, mig->counts, 1, MPI_INT,
                       dsm.coll_comm, &req) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    hcrt_status_t st = hcrt__wait_request(&req, &w);
    atomic_fetch_add(&mig->epoch, 1); /* diffs from now on: the next epoch */
    mig->total = 0;
    for (int r = 0; r < dsm.size; r++)
        mig->total += mig->counts[r];
    return st;
}

int hcrt__dsm_migrates(void)
{
    return dsm.migrate;
}

int hcrt__dsm_migrate_probed(size_t idx)
{
    return (atomic_load(&mig->rec[idx]) & R_PROBED) != 0;
}

int hcrt__dsm_migrate_moving(size_t idx)
{
    return dsm.migrate && (atomic_load(&mig->rec[idx]) & R_MOVING);
}
