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
#include "dsm/dsm_int.h"

/* A page moves after this many written epochs with one writer; a page
 * that moved k times before needs MIG_AFTER << k (so a page whose writer
 * changes with the phase of the program, a transpose, settles down after
 * a few moves instead of following every phase). */
#define MIG_AFTER 2
#define MIG_MAX_MOVES 6 /* then 128 epochs: in effect never again */
/* Pages per pull message (4 MiB of data). */
#define PULL_MAX 1024

/* The home's record of a page: the epoch of its last diff, that epoch's
 * writer (or MANY), and the streak of earlier written epochs with one
 * writer (pw, run). Bits set by the barrier's scan: queued (in the
 * candidate list), probed (the home write-protected it to see whether it
 * writes it), moving (being moved: atomics at the home retry). */
#define R_EP(r) ((uint32_t)(r))
#define R_W(r) ((int)(((r) >> 32) & 0xff))
#define R_PW(r) ((int)(((r) >> 40) & 0xff))
#define R_RUN(r) ((int)(((r) >> 48) & 0xff))
#define R_QUEUED (1ULL << 56)
#define R_PROBED (1ULL << 57)
#define R_MOVING (1ULL << 58)
#define R_HAS (1ULL << 59)
#define R_MOVES(r) ((int)(((r) >> 60) & 7)) /* moves so far (at its home) */
#define R_MOVES_MASK (7ULL << 60)
#define MANY 0xff
#define NONE 0xfe

static uint64_t rec_make(uint32_t ep, int w, int pw, int run, uint64_t bits)
{
    return (uint64_t)ep | (uint64_t)(w & 0xff) << 32 |
           (uint64_t)(pw & 0xff) << 40 | (uint64_t)(run & 0xff) << 48 | bits;
}

/* A move: page idx to rank `to & 0xffff`; `to >> 16` is the page's
 * number of moves, this one included (it travels to the new home). */
typedef struct mv {
    uint32_t idx, to;
} mv_t;
#define MV_TO(m) ((int)((m).to & 0xffff))
#define MV_MOVES(m) ((m).to >> 16)

static struct {
    _Atomic uint64_t *rec; /* per page, at its home */
    _Atomic uint32_t epoch;
    pthread_mutex_t mu; /* the candidate list */
    uint32_t *cand;
    size_t ncand, cap;
    mv_t *props; /* this home's proposals at the current barrier */
    size_t nprops, capprops;
    int *counts; /* per rank, from the allgather */
    long total;
} mig = {.mu = PTHREAD_MUTEX_INITIALIZER};

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
    mig.counts = calloc((size_t)dsm.size, sizeof *mig.counts);
    if (r == MAP_FAILED || m == MAP_FAILED || !mig.counts) {
        hcrt_error(HCRT_MOD_DSM,
                   "cannot reserve the home migration tables "
                   "for %zu pages; set HCRT_DSM_MIGRATE=0",
                   n);
        return HCRT_ERR_NOMEM;
    }
    mig.rec = r;
    dsm.moved = m;
    atomic_store(&mig.epoch, 0);
    dsm.migrate = 1;
    return HCRT_OK;
}

void hcrt__dsm_migrate_fini(void)
{
    if (mig.rec)
        munmap((void *)mig.rec, dsm.npages * sizeof(uint64_t));
    free(mig.cand);
    free(mig.props);
    free(mig.counts);
    mig.rec = NULL;
    mig.cand = NULL;
    mig.props = NULL;
    mig.counts = NULL;
    mig.ncand = mig.cap = mig.nprops = mig.capprops = 0;
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
    uint32_t e = atomic_load(&mig.epoch);
    uint64_t o = atomic_load(&mig.rec[idx]), n;
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
    } while (!atomic_compare_exchange_weak(&mig.rec[idx], &o, n));
    if (!push)
        return;
    pthread_mutex_lock(&mig.mu);
    mig.cand = grow(mig.cand, &mig.cap, mig.ncand + 1, sizeof *mig.cand);
    mig.cand[mig.ncand++] = (uint32_t)idx;
    pthread_mutex_unlock(&mig.mu);
}

static void rec_set(size_t idx, uint64_t set, uint64_t clear)
{
    uint64_t o = atomic_load(&mig.rec[idx]);
    while (!atomic_compare_exchange_weak(&mig.rec[idx], &o, (o | set) & ~clear))
        ;
}

/* The home used a probed page: its streak starts again, and the next
 * one must be twice as long (a failed probe counts as a move), so pages
 * the home keeps using are probed less and less, then no more. */
static void rec_reset(size_t idx, uint32_t cur)
{
    uint64_t o = atomic_load(&mig.rec[idx]), n;
    do {
        int w = R_EP(o) < cur ? MANY : R_W(o);
        uint64_t mv = (uint64_t)(R_MOVES(o) < 7 ? R_MOVES(o) + 1 : 7) << 60;
        n = rec_make(R_EP(o), w, NONE, 0, (o & (R_QUEUED | R_HAS)) | mv);
    } while (!atomic_compare_exchange_weak(&mig.rec[idx], &o, n));
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
    uint64_t r = atomic_load(&mig.rec[idx]);
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
    mig.props =
        grow(mig.props, &mig.capprops, mig.nprops + 1, sizeof *mig.props);
    mig.props[mig.nprops++] =
        (mv_t){(uint32_t)idx, (uint32_t)pw | (uint32_t)(moves + 1) << 16};
    return 0;
}

/* Before the barrier's collective: this home's proposals. */
static void scan(void)
{
    uint32_t cur = atomic_load(&mig.epoch);
    pthread_mutex_lock(&mig.mu);
    uint32_t *c = mig.cand;
    size_t n = mig.ncand;
    mig.cand = NULL;
    mig.ncand = mig.cap = 0;
    pthread_mutex_unlock(&mig.mu);
    mig.nprops = 0;
    size_t keep = 0;
    for (size_t i = 0; i < n; i++) {
        if (scan_one(c[i], cur))
            c[keep++] = c[i];
        else
            rec_set(c[i], 0, R_QUEUED);
    }
    pthread_mutex_lock(&mig.mu);
    mig.cand = grow(mig.cand, &mig.cap, mig.ncand + keep, sizeof *mig.cand);
    memcpy(mig.cand + mig.ncand, c, keep * sizeof *c);
    mig.ncand += keep;
    pthread_mutex_unlock(&mig.mu);
    free(c);
}

/* The barrier's collective: every rank's number of proposals. */
hcrt_status_t hcrt__dsm_migrate_barrier(void)
{
    scan();
    int mine = (int)mig.nprops;
    MPI_Request req;
    hcrt_wait_t w = {
        .what = "a DSM barrier", .peer = HCRT_WAIT_ANY, .spin_ns = UINT64_MAX};
    if (MPI_Iallgather(&mine, 1, MPI_INT, mig.counts, 1, MPI_INT, dsm.coll_comm,
                       &req) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    hcrt_status_t st = hcrt__wait_request(&req, &w);
    atomic_fetch_add(&mig.epoch, 1); /* diffs from now on: the next epoch */
    mig.total = 0;
    for (int r = 0; r < dsm.size; r++)
        mig.total += mig.counts[r];
    return st;
}

/* ---- the move ---- */

/* Takes page idx to PG_BUSY from whatever settled state; returns it. */
static uint8_t take(size_t idx)
{
    for (;;) {
        uint8_t st = atomic_load(&dsm.pages[idx].state);
        if (st == PG_BUSY) {
            hcrt__dsm_wait_page(idx);
            continue;
        }
        if (atomic_compare_exchange_strong(&dsm.pages[idx].state, &st, PG_BUSY))
            return st;
    }
}

static int cmp_mv(const void *a, const void *b)
{
    uint32_t x = ((const mv_t *)a)->idx, y = ((const mv_t *)b)->idx;
    return x < y ? -1 : x > y;
}

/* PROT_NONE over the sorted moves, in runs of contiguous pages. */
static void protect_all(const mv_t *m, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && m[j].idx == m[j - 1].idx + 1 &&
               hcrt__dsm_area_of_page(m[j].idx) ==
                   hcrt__dsm_area_of_page(m[i].idx))
            j++;
        hcrt__dsm_mprotect(hcrt__dsm_page_addr(m[i].idx), (j - i) * DSM_PAGE,
                           PROT_NONE);
        i = j;
    }
}

typedef struct pull {
    const uint32_t *pages;
    size_t n;
} pull_t;

static void pull_reply(dsm_op_t *op, void *msg, size_t len)
{
    pull_t *p = op->arg;
    (void)msg;
    (void)len;
    char *tmp = malloc(p->n * DSM_PAGE);
    if (!tmp)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory receiving moved pages");
    MPI_Request req;
    hcrt_wait_t w = {.what = "moved DSM pages",
                     .peer = op->dest,
                     .deadline = hcrt__wait_reply_deadline(),
                     .busy = 1};
    MPI_Irecv(tmp, (int)(p->n * DSM_PAGE), MPI_BYTE, op->dest, DSM_TAG_DATA,
              dsm.svc_comm, &req);
    hcrt__wait_request(&req, &w);
    for (size_t i = 0; i < p->n; i++)
        memcpy(hcrt__dsm_page_alias(p->pages[i]), tmp + i * DSM_PAGE, DSM_PAGE);
    free(tmp);
}

/* New home: copies the masters of `pages` (n <= PULL_MAX) from `from`. */
static void pull(int from, const uint32_t *pages, size_t n)
{
    size_t len = sizeof(dsm_msg_t) + n * sizeof(uint32_t);
    dsm_msg_t *m = malloc(len);
    if (!m)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    *m = (dsm_msg_t){M_MIGRATE, 0, 0, n, 0, 0};
    memcpy(m + 1, pages, n * sizeof(uint32_t));
    pull_t arg = {pages, n};
    dsm_op_t op = {0};
    op.dest = from;
    op.sbuf = m;
    op.slen = len;
    op.want_reply = 1;
    op.on_reply = pull_reply;
    op.arg = &arg;
    hcrt__dsm_submit(&op);
    hcrt__dsm_wait(&op);
    free(m);
}

/* Old home, service thread: the master copies of the pages asked for. */
void hcrt__dsm_migrate_serve(int src, dsm_msg_t *m, size_t len)
{
    size_t n = m->b;
    const uint32_t *pages = (const uint32_t *)(m + 1);
    hcrt_assert(len >= sizeof *m + n * sizeof(uint32_t));
    char *data = malloc(n * DSM_PAGE);
    dsm_msg_t *r = malloc(sizeof *r);
    if (!data || !r)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    pthread_mutex_lock(&hcrt__dsm_mig_atomic_mu);
    for (size_t i = 0; i < n; i++) {
        if (!(atomic_load(&mig.rec[pages[i]]) & R_MOVING))
            hcrt_fatal(HCRT_MOD_DSM,
                       "DSM protocol error: rank %d pulled page %u from "
                       "rank %d, which is not moving it",
                       src, pages[i], dsm.rank);
        memcpy(data + i * DSM_PAGE, hcrt__dsm_page_alias(pages[i]), DSM_PAGE);
    }
    pthread_mutex_unlock(&hcrt__dsm_mig_atomic_mu);
    *r = (dsm_msg_t){M_MIGRATE_R, m->op, 0, n, 0, 0};
    hcrt__dsm_defer(src, r, sizeof *r, data, n * DSM_PAGE, 1, 0, 1, 0);
}

int hcrt__dsm_migrates(void)
{
    return dsm.migrate;
}

int hcrt__dsm_migrate_probed(size_t idx)
{
    return (atomic_load(&mig.rec[idx]) & R_PROBED) != 0;
}

int hcrt__dsm_migrate_moving(size_t idx)
{
    return dsm.migrate && (atomic_load(&mig.rec[idx]) & R_MOVING);
}

/* Every rank: takes each moving page BUSY and PROT_NONE; dirty copies of
 * this rank go home (the old home) first. */
static void seize(const mv_t *m, const int *from, size_t n)
{
    uint32_t *dirty = malloc((n + 1) * sizeof *dirty);
    size_t nd = 0;
    if (!dirty)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    atomic_fetch_add(&dsm.mig_seq, 1); /* odd: pages move */
    pthread_mutex_lock(&hcrt__dsm_mig_atomic_mu);
    for (size_t i = 0; i < n; i++)
        if (from[i] == dsm.rank)
            rec_set(m[i].idx, R_MOVING, 0);
    pthread_mutex_unlock(&hcrt__dsm_mig_atomic_mu);
    for (size_t i = 0; i < n; i++) {
        uint8_t st = take(m[i].idx);
        if (st == PG_RW && from[i] != dsm.rank)
            dirty[nd++] = m[i].idx;
        if (MV_TO(m[i]) == dsm.rank) { /* fresh directory here */
            atomic_store(&dsm.dir[m[i].idx].readers, 0);
            atomic_store(&dsm.dir[m[i].idx].writers, 0);
            atomic_store(&mig.rec[m[i].idx], (uint64_t)MV_MOVES(m[i]) << 60);
        }
    }
    protect_all(m, n);
    if (nd)
        hcrt__dsm_diff_pages(dirty, nd);
    free(dirty);
}

/* New home: pulls its pages from each old home; then they are its own. */
static void pull_all(const mv_t *m, const int *from, size_t n)
{
    uint32_t *buf = malloc(PULL_MAX * sizeof *buf);
    if (!buf)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    for (int h = 0; h < dsm.size; h++) {
        size_t k = 0;
        for (size_t i = 0; i <= n; i++) {
            if (i < n && from[i] == h && MV_TO(m[i]) == dsm.rank)
                buf[k++] = m[i].idx;
            if (k && (k == PULL_MAX || i == n)) {
                pull(h, buf, k);
                k = 0;
            }
        }
    }
    free(buf);
    for (size_t i = 0; i < n; i++) /* requests of ranks ahead of us */
        if (MV_TO(m[i]) == dsm.rank)
            atomic_store(&dsm.moved[m[i].idx], (int16_t)(dsm.rank + 1));
}

/* Every rank: the page's home is its new one; no copy survives. */
static void settle(const mv_t *m, const int *from, size_t n)
{
    size_t in = 0, out = 0;
    for (size_t i = 0; i < n; i++) {
        size_t p = m[i].idx;
        atomic_store(&dsm.moved[p], (int16_t)(MV_TO(m[i]) + 1));
        hcrt__dsm_home_set(p, MV_TO(m[i]));
        atomic_fetch_and(&dsm.pages[p].flags, (uint8_t)~(PF_EXEMPT | PF_WREG |
                                                         PF_TRIGGER | PF_HTRY));
        if (from[i] == dsm.rank) {
            atomic_store(&dsm.dir[p].readers, 0);
            atomic_store(&dsm.dir[p].writers, 0);
            atomic_store(&mig.rec[p], 0);
            out++;
        }
        if (MV_TO(m[i]) == dsm.rank)
            in++;
    }
    if (in) /* the new home's pages leave its cached list */
        hcrt__dsm_uncache_homed();
    for (size_t i = 0; i < n; i++)
        atomic_store_explicit(&dsm.pages[m[i].idx].state, PG_INV,
                              memory_order_release);
    hcrt__dsm_page_settled();
    atomic_fetch_add(&dsm.mig_seq, 1); /* even: settled */
    dsm_count(pages_migrated_in, in);
    dsm_count(pages_migrated_out, out);
}

/* Sorts the moves by page (runs for mprotect), from[] alongside; a page
 * listed twice (one home per page: impossible) stops the run. */
static void sort_moves(mv_t *all, int *from, size_t n)
{
    mv_t *tagged = malloc(n * sizeof(mv_t) * 2);
    if (!tagged)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    for (size_t i = 0; i < n; i++) {
        tagged[2 * i] = all[i];
        tagged[2 * i + 1] = (mv_t){(uint32_t)from[i], 0};
    }
    qsort(tagged, n, 2 * sizeof(mv_t), cmp_mv);
    for (size_t i = 0; i < n; i++) {
        all[i] = tagged[2 * i];
        from[i] = (int)tagged[2 * i + 1].idx;
    }
    free(tagged);
    for (size_t i = 1; i < n; i++)
        if (all[i].idx == all[i - 1].idx)
            hcrt_fatal(HCRT_MOD_DSM,
                       "DSM protocol error: page %u listed twice for a "
                       "home move. Run with HCRT_DSM_MIGRATE=0 and report it",
                       all[i].idx);
}

/* Every home's list of moves, on every rank: all[] and their old homes
 * from[] (n = mig.total entries), sorted by page. */
static hcrt_status_t gather_moves(mv_t *all, int *from, size_t n)
{
    int *displs = malloc((size_t)dsm.size * sizeof *displs);
    int *cnt = malloc((size_t)dsm.size * sizeof *cnt);
    if (!displs || !cnt)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    for (int r = 0, off = 0, k = 0; r < dsm.size; r++) {
        cnt[r] = mig.counts[r] * 2; /* two uint32 per move */
        displs[r] = off;
        off += cnt[r];
        for (int j = 0; j < mig.counts[r]; j++)
            from[k++] = r;
    }
    MPI_Request req;
    hcrt_wait_t w = {.what = "a DSM home move",
                     .peer = HCRT_WAIT_ANY,
                     .spin_ns = UINT64_MAX};
    hcrt_status_t st = HCRT_ERR_MPI;
    if (MPI_Iallgatherv(mig.props, (int)mig.nprops * 2, MPI_UINT32_T, all, cnt,
                        displs, MPI_UINT32_T, dsm.coll_comm,
                        &req) == MPI_SUCCESS)
        st = hcrt__wait_request(&req, &w);
    free(displs);
    free(cnt);
    if (st == HCRT_OK)
        sort_moves(all, from, n);
    return st;
}

/* After the barrier's invalidation, when some home proposed moves. A
 * failed collective ends the run (fault handling): no half move. */
hcrt_status_t hcrt__dsm_migrate_apply(void)
{
    if (!dsm.migrate || mig.total == 0)
        return HCRT_OK;
    size_t n = (size_t)mig.total;
    mv_t *all = malloc(n * sizeof *all);
    int *from = malloc(n * sizeof *from);
    if (!all || !from)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    hcrt_status_t st = gather_moves(all, from, n);
    if (st == HCRT_OK) {
        seize(all, from, n);
        st = hcrt__dsm_cluster_barrier();
    }
    if (st == HCRT_OK) {
        pull_all(all, from, n);
        st = hcrt__dsm_cluster_barrier();
    }
    if (st == HCRT_OK) {
        settle(all, from, n);
        hcrt_debug(HCRT_MOD_DSM, "%zu pages changed their home", n);
    }
    free(all);
    free(from);
    return st;
}
