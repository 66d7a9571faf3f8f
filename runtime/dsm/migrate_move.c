/*
 * migrate_move.c - moving pages to their new homes at a barrier
 * (HCRT_DSM_MIGRATE; migrate.c decides which): every rank takes the
 * moving pages BUSY and PROT_NONE, the new homes pull the masters, every
 * rank points the pages at their new homes (docs/dsm.md, "Home
 * migration", has the argument).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "base/wait.h"
#include "dsm/migrate_int.h"

static struct dsm_mig *const mig = &hcrt__dsm_mig;

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
        if (!(atomic_load(&mig->rec[pages[i]]) & R_MOVING))
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
            atomic_store(&mig->rec[m[i].idx], (uint64_t)MV_MOVES(m[i]) << 60);
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
            atomic_store(&mig->rec[p], 0);
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
 * from[] (n = mig->total entries), sorted by page. */
static hcrt_status_t gather_moves(mv_t *all, int *from, size_t n)
{
    int *displs = malloc((size_t)dsm.size * sizeof *displs);
    int *cnt = malloc((size_t)dsm.size * sizeof *cnt);
    if (!displs || !cnt)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory moving DSM homes");
    for (int r = 0, off = 0, k = 0; r < dsm.size; r++) {
        cnt[r] = mig->counts[r] * 2; /* two uint32 per move */
        displs[r] = off;
        off += cnt[r];
        for (int j = 0; j < mig->counts[r]; j++)
            from[k++] = r;
    }
    MPI_Request req;
    hcrt_wait_t w = {.what = "a DSM home move",
                     .peer = HCRT_WAIT_ANY,
                     .spin_ns = UINT64_MAX};
    hcrt_status_t st = HCRT_ERR_MPI;
    if (MPI_Iallgatherv(mig->props, (int)mig->nprops * 2, MPI_UINT32_T, all,
                        cnt, displs, MPI_UINT32_T, dsm.coll_comm,
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
    if (!dsm.migrate || mig->total == 0)
        return HCRT_OK;
    size_t n = (size_t)mig->total;
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
