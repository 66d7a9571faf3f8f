/*
 * diff.c - release (diffs home) and self-invalidation.
 *
 * A dirty page is first write-protected, then compared with its twin, so
 * a thread of this rank writing concurrently faults and waits instead of
 * losing its store between the diff and the downgrade. Only bytes that
 * differ from the twin travel: two ranks writing different bytes of one
 * page between the same sync points both survive at the home.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "dsm/dsm_int.h"

#define DIFF_MSG_MAX (1UL << 20)

typedef struct vec {
    uint32_t *v;
    size_t n, cap;
} vec_t;

static void vec_push(vec_t *s, uint32_t x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v)
            hcrt_fatal(HCRT_MOD_DSM, "out of memory during a DSM release");
    }
    s->v[s->n++] = x;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Applies `prot` (or madvise when prot < 0) to runs of contiguous pages. */
static void for_runs(vec_t *s, int prot)
{
    for (size_t i = 0; i < s->n;) {
        size_t j = i + 1;
        while (j < s->n && s->v[j] == s->v[j - 1] + 1 &&
               hcrt__dsm_area_of_page(s->v[j]) ==
                   hcrt__dsm_area_of_page(s->v[i]))
            j++;
        if (prot >= 0)
            hcrt__dsm_mprotect(hcrt__dsm_page_addr(s->v[i]), (j - i) * DSM_PAGE,
                               prot);
        else
            madvise(dsm.twins + (size_t)s->v[i] * DSM_PAGE, (j - i) * DSM_PAGE,
                    MADV_DONTNEED);
        i = j;
    }
}

/* Finds the next run of bytes of `cur` that differ from `twin`, from *pos
 * on (comparing 8 bytes at a time where aligned). Returns the run's start
 * and leaves *pos at its end; DSM_PAGE when the page has no more. */
static size_t next_run(const uint8_t *cur, const uint8_t *twin, size_t *pos)
{
    size_t i = *pos;
    while (i < DSM_PAGE) {
        if ((i & 7) == 0 && !memcmp(cur + i, twin + i, 8)) {
            i += 8;
            continue;
        }
        if (cur[i] != twin[i])
            break;
        i++;
    }
    size_t s = i;
    while (i < DSM_PAGE && cur[i] != twin[i])
        i++;
    *pos = i;
    return s;
}

/* Encodes the bytes of `cur` that differ from `twin`; returns bytes used. */
static size_t encode_diff(uint32_t idx, const uint8_t *cur, const uint8_t *twin,
                          uint8_t *out)
{
    uint8_t *o = out + 8;
    size_t i = 0, s;
    while ((s = next_run(cur, twin, &i)) < DSM_PAGE) {
        uint16_t off = (uint16_t)s, len = (uint16_t)(i - s);
        memcpy(o, &off, 2);
        memcpy(o + 2, &len, 2);
        memcpy(o + 4, cur + s, len);
        o += 4 + len;
    }
    uint32_t body = (uint32_t)(o - out - 8);
    if (body == 0)
        return 0;
    memcpy(out, &idx, 4);
    memcpy(out + 4, &body, 4);
    return (size_t)(o - out);
}

typedef struct outbox {
    dsm_op_t **ops;
    size_t nops, capops;
    char **buf; /* per home: message being filled */
    size_t *len;
} outbox_t;

static void outbox_send(outbox_t *ob, int home)
{
    dsm_msg_t *m = (dsm_msg_t *)ob->buf[home];
    if (!m || ob->len[home] == sizeof *m)
        return;
    m->b = ob->len[home];
    dsm_op_t *op = calloc(1, sizeof *op);
    if (ob->nops == ob->capops) {
        ob->capops = ob->capops ? 2 * ob->capops : 16;
        ob->ops = realloc(ob->ops, ob->capops * sizeof *ob->ops);
    }
    if (!op || !ob->ops)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory during a DSM release");
    op->dest = home;
    op->sbuf = m;
    op->slen = ob->len[home];
    op->want_reply = 1;
    ob->ops[ob->nops++] = op;
    hcrt__dsm_submit(op);
    ob->buf[home] = NULL;
}

static void outbox_add(outbox_t *ob, size_t idx)
{
    int home = hcrt__dsm_home_known(idx);
    DSM_DELAY(DLY_RELEASE);
    /* pages of a same-host home are never copies (pages.c, map_live) */
    hcrt_assert(!hcrt__dsm_shm_peer(home));
    if (!ob->buf[home]) {
        ob->buf[home] = malloc(DIFF_MSG_MAX + 3 * DSM_PAGE);
        if (!ob->buf[home])
            hcrt_fatal(HCRT_MOD_DSM, "out of memory during a DSM release");
        *(dsm_msg_t *)ob->buf[home] = (dsm_msg_t){M_DIFF, 0, 0, 0, 0, 0};
        ob->len[home] = sizeof(dsm_msg_t);
    }
    size_t k =
        encode_diff((uint32_t)idx, (const uint8_t *)hcrt__dsm_page_alias(idx),
                    (const uint8_t *)dsm.twins + idx * DSM_PAGE,
                    (uint8_t *)ob->buf[home] + ob->len[home]);
    if (k) {
        ((dsm_msg_t *)ob->buf[home])->a++;
        ob->len[home] += k;
        dsm_count(diff_pages, 1);
        dsm_count(diff_bytes, k);
    }
    if (ob->len[home] >= DIFF_MSG_MAX)
        outbox_send(ob, home);
}

/* Takes the cached copies in state `want` to PG_BUSY (and, if `uncache`,
 * out of the cached list). With `busy`, pages another thread holds
 * PG_BUSY right now go there: an upgrade or a write fetch makes its page
 * writable just before it turns PG_RW, and a thread of this rank may have
 * written it in between. */
static vec_t collect(uint8_t want, uint8_t skip_flags, int uncache, vec_t *busy)
{
    vec_t s = {0};
    pthread_mutex_lock(&dsm.cache_lock);
    size_t w = 0;
    for (size_t i = 0; i < dsm.ncached; i++) {
        uint32_t idx = dsm.cached[i];
        uint8_t now = atomic_load(&dsm.pages[idx].state);
        if (busy && now == PG_BUSY)
            vec_push(busy, idx);
        int take =
            now == want && !(atomic_load(&dsm.pages[idx].flags) & skip_flags);
        uint8_t st = want;
        if (take && atomic_compare_exchange_strong(&dsm.pages[idx].state, &st,
                                                   PG_BUSY)) {
            vec_push(&s, idx);
            if (uncache) {
                atomic_fetch_and(&dsm.pages[idx].flags, (uint8_t)~PF_CACHED);
                continue;
            }
        }
        dsm.cached[w++] = idx;
    }
    dsm.ncached = w;
    pthread_mutex_unlock(&dsm.cache_lock);
    qsort(s.v, s.n, sizeof *s.v, cmp_u32);
    return s;
}

/* Starts sending the diffs of the write-protected pages `pages` home, one
 * batch per home; diffs_wait() completes them. `what` names the operation
 * in the out-of-memory message. */
static outbox_t diffs_send(const vec_t *pages, const char *what)
{
    outbox_t ob = {0};
    ob.buf = calloc((size_t)dsm.size, sizeof *ob.buf);
    ob.len = calloc((size_t)dsm.size, sizeof *ob.len);
    if (!ob.buf || !ob.len)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory during a DSM %s", what);
    for (size_t i = 0; i < pages->n; i++)
        outbox_add(&ob, pages->v[i]);
    for (int h = 0; h < dsm.size; h++)
        outbox_send(&ob, h);
    return ob;
}

/* Waits until every home applied the diffs diffs_send() sent. */
static void diffs_wait(outbox_t *ob)
{
    for (size_t i = 0; i < ob->nops; i++) {
        hcrt__dsm_wait(ob->ops[i]);
        free(ob->ops[i]->sbuf);
        free(ob->ops[i]);
    }
    free(ob->ops);
    free(ob->buf);
    free(ob->len);
}

/* Write-protects the PG_BUSY dirty pages `s`, sends their diffs home,
 * turns them PG_RO and waits until every home applied them. */
static void flush_pages(vec_t *s)
{
    for_runs(s, PROT_READ);
    DSM_DELAY(DLY_RELEASE);
    outbox_t ob = diffs_send(s, "release");
    DSM_DELAY(DLY_RELEASE);
    for_runs(s, -1);
    for (size_t i = 0; i < s->n; i++)
        atomic_store(&dsm.pages[s->v[i]].state, PG_RO);
    hcrt__dsm_page_settled();
    diffs_wait(&ob);
}

static uint8_t take_settled(uint32_t idx, int any_copy);

/* A page that was PG_BUSY at the flush's scan: once it settles, flush it
 * if it turned PG_RW. Without this a release could miss a write another
 * thread's upgrade let through just before marking the page PG_RW (the
 * lost lock-protected updates of rt-dsm_mt_contend). */
static void flush_when_settled(uint32_t idx)
{
    if (take_settled(idx, 0) == PG_INV)
        return;
    vec_t one = {&idx, 1, 1};
    flush_pages(&one);
}

hcrt_status_t hcrt__dsm_flush(void)
{
    vec_t busy = {0};
    pthread_mutex_lock(&dsm.flush_lock);
    vec_t s = collect(PG_RW, PF_LIVE, 0, &busy);
    DSM_DELAY(DLY_RELEASE);
    if (s.n)
        flush_pages(&s);
    for (size_t i = 0; i < busy.n; i++)
        flush_when_settled(busy.v[i]);
    pthread_mutex_unlock(&dsm.flush_lock);
    free(s.v);
    free(busy.v);
    return HCRT_OK;
}

/* Is the cached copy `idx` exempt from self-invalidation (no other rank
 * writes the page)? Copies come from homes on other hosts only (a
 * same-host home's pages are mapped in place, pages.c: map_live), and
 * those homes tell this rank when a new writer appears before they let
 * it write. */
static int still_exempt(size_t idx)
{
    return !!(atomic_load(&dsm.pages[idx].flags) & PF_EXEMPT);
}

/* Acquire: takes every non-exempt cached copy (RO, or RW: dirtied by
 * another thread of this rank since the caller's flush) to PG_BUSY and out
 * of the cached list; RW ones also go to `dirty`. Copies another thread is
 * changing right now (PG_BUSY: a fetch possibly served before this acquire,
 * an upgrade twinning stale bytes) go to `busy`, to be settled first. */
static vec_t collect_stale(vec_t *dirty, vec_t *busy)
{
    vec_t s = {0};
    pthread_mutex_lock(&dsm.cache_lock);
    size_t w = 0;
    for (size_t i = 0; i < dsm.ncached; i++) {
        uint32_t idx = dsm.cached[i];
        dsm.cached[w++] = idx;
        if ((atomic_load(&dsm.pages[idx].flags) & PF_LIVE) || still_exempt(idx))
            continue;
        uint8_t st = atomic_load(&dsm.pages[idx].state);
        if (st == PG_BUSY) {
            vec_push(busy, idx);
            continue;
        }
        if (st != PG_RO && st != PG_RW)
            continue;
        if (!atomic_compare_exchange_strong(&dsm.pages[idx].state, &st,
                                            PG_BUSY)) {
            vec_push(busy, idx); /* another thread moved it: recheck */
            continue;
        }
        vec_push(&s, idx);
        if (st == PG_RW)
            vec_push(dirty, idx);
        atomic_fetch_and(&dsm.pages[idx].flags, (uint8_t)~PF_CACHED);
        w--;
    }
    dsm.ncached = w;
    pthread_mutex_unlock(&dsm.cache_lock);
    qsort(s.v, s.n, sizeof *s.v, cmp_u32);
    qsort(dirty->v, dirty->n, sizeof *dirty->v, cmp_u32);
    return s;
}

/* Sends the diffs of BUSY, write-protected pages home and waits until
 * every home applied them. */
static void send_diffs(vec_t *dirty)
{
    outbox_t ob = diffs_send(dirty, "acquire");
    diffs_wait(&ob);
}

/* Drops the BUSY pages `s`. Protecting them first makes a local thread
 * still writing a dirty one fault and wait; its writes so far travel home
 * as a diff before the page turns PG_INV, so its refetch sees them. */
static void drop(vec_t *s, vec_t *dirty)
{
    for_runs(s, PROT_NONE);
    if (dirty->n) {
        send_diffs(dirty);
        for_runs(dirty, -1);
    }
    for (size_t i = 0; i < s->n; i++)
        atomic_store(&dsm.pages[s->v[i]].state, PG_INV);
    hcrt__dsm_page_settled();
    dsm_count(invalidations, s->n);
}

/* Waits until page `idx` is not PG_BUSY, then takes it to PG_BUSY if it is
 * PG_RW or, with `any_copy`, any copy an acquire drops (PG_RO too; not live
 * or exempt ones). Returns the state it took, PG_INV if none. */
static uint8_t take_settled(uint32_t idx, int any_copy)
{
    for (;;) {
        uint8_t st = atomic_load(&dsm.pages[idx].state);
        if (st == PG_BUSY) {
            hcrt__dsm_wait_page(idx);
            continue;
        }
        /* live pages (a same-host home's, mapped in place) hold no copy */
        if (st == PG_INV || (atomic_load(&dsm.pages[idx].flags) & PF_LIVE) ||
            (any_copy ? still_exempt(idx) : st != PG_RW))
            return PG_INV;
        if (atomic_compare_exchange_strong(&dsm.pages[idx].state, &st, PG_BUSY))
            return st;
    }
}

/* A page that was PG_BUSY at the scan: once it settles, drop whatever copy
 * it holds. A copy that turned PG_INV meanwhile is fine: its next fetch is
 * asked after this acquire, so the home already has the releases. */
static void drop_when_settled(uint32_t idx)
{
    uint8_t st = take_settled(idx, 1);
    if (st == PG_INV)
        return;
    vec_t one = {&idx, 1, 1}, none = {0};
    drop(&one, st == PG_RW ? &one : &none);
    /* stays in the cached list (PF_CACHED): no duplicate */
}

/* After an atomic at another rank's home: this rank's copy of the page
 * predates it, and a plain read by the same thread must still see its own
 * atomic write (the home's copy does). The copy goes as at an acquire (its
 * dirty bytes home first); the next access fetches the page again. A page
 * found invalid needs nothing: a fetch claimed later is served after the
 * atomic. Live same-host pages are the home's copy itself. */
void hcrt__dsm_drop_page(size_t idx)
{
    uint8_t st = atomic_load(&dsm.pages[idx].state);

    if (st == PG_INV || (atomic_load(&dsm.pages[idx].flags) & PF_LIVE))
        return;
    /* An exempt copy (the globals start valid and exempt everywhere) is
     * exempt no longer: the page is written by atomics now, and the notice
     * the home sends goes to the other ranks, not to the writer. */
    atomic_fetch_and(&dsm.pages[idx].flags, (uint8_t)~PF_EXEMPT);
    pthread_mutex_lock(&dsm.flush_lock);
    st = take_settled((uint32_t)idx, 1);
    if (st != PG_INV) {
        uint32_t i = (uint32_t)idx;
        vec_t one = {&i, 1, 1}, none = {0};
        drop(&one, st == PG_RW ? &one : &none);
    }
    pthread_mutex_unlock(&dsm.flush_lock);
}

void hcrt__dsm_diff_pages(uint32_t *pages, size_t n)
{
    vec_t v = {pages, n, n};
    send_diffs(&v);
    for_runs(&v, -1);
}

void hcrt__dsm_uncache_homed(void)
{
    pthread_mutex_lock(&dsm.cache_lock);
    size_t w = 0;
    for (size_t i = 0; i < dsm.ncached; i++) {
        uint32_t idx = dsm.cached[i];
        if (hcrt__dsm_home_known(idx) == dsm.rank) {
            atomic_fetch_and(&dsm.pages[idx].flags, (uint8_t)~PF_CACHED);
            continue;
        }
        dsm.cached[w++] = idx;
    }
    dsm.ncached = w;
    pthread_mutex_unlock(&dsm.cache_lock);
}

/* Self-invalidation at an acquire. Every copy that may be stale w.r.t.
 * releases ordered before this acquire goes, including pages other
 * threads of this rank hold dirty (their diffs go home first) and pages
 * being fetched or upgraded concurrently. Only exempt pages (no other
 * rank writes them) stay. */
void hcrt__dsm_invalidate(void)
{
    vec_t dirty = {0}, busy = {0};
    /* Held throughout, as by a flush: a local release that finds a page
     * of its own here BUSY must not complete before its diff is home. */
    pthread_mutex_lock(&dsm.flush_lock);
    /* Fetches claimed before this are discarded on arrival (pages.c):
     * those pages may be BUSY yet outside the cached list. */
    atomic_fetch_add(&dsm.acq_gen, 1);
    DSM_DELAY(DLY_ACQUIRE);
    vec_t s = collect_stale(&dirty, &busy);
    DSM_DELAY(DLY_ACQUIRE);
    if (s.n)
        drop(&s, &dirty);
    for (size_t i = 0; i < busy.n; i++)
        drop_when_settled(busy.v[i]);
    pthread_mutex_unlock(&dsm.flush_lock);
    free(s.v);
    free(dirty.v);
    free(busy.v);
}

/* Home: applies a message of page diffs through the alias view. */
void hcrt__dsm_serve_diff(int src, dsm_msg_t *m, size_t len)
{
    const uint8_t *p = (const uint8_t *)(m + 1);
    const uint8_t *end = (const uint8_t *)m + len;
    while (p + 8 <= end) {
        uint32_t idx, body;
        memcpy(&idx, p, 4);
        memcpy(&body, p + 4, 4);
        p += 8;
        hcrt__dsm_check_home(idx, src, "diff");
        char *dst = hcrt__dsm_page_alias(idx);
        const uint8_t *q = p;
        while (q < p + body) {
            uint16_t off, n;
            memcpy(&off, q, 2);
            memcpy(&n, q + 2, 2);
            if (q != p)
                DSM_DELAY(DLY_DIFF); /* the page half applied */
            memcpy(dst + off, q + 4, n);
            q += 4 + n;
        }
        p += body;
        dsm_count(served_diffs, 1);
        if (dsm.migrate)
            hcrt__dsm_migrate_note(idx, src);
    }
    hcrt__dsm_reply(src, m, M_DIFF_R, 0, NULL, 0);
}

/* Out of memory mappings: drops every clean cached copy (always allowed:
 * the next access refetches from the home), which turns runs of isolated
 * protections back into a few large mappings. Service thread only. */
/* Compaction's share of the live list: takes live pages, read-only or
 * writable (their stores are in the master already), to PG_BUSY and
 * drops every entry that is not (or no longer) live. */
static int take_live(uint32_t idx)
{
    uint8_t st = atomic_load(&dsm.pages[idx].state);
    return (st == PG_RO || st == PG_RW) &&
           atomic_compare_exchange_strong(&dsm.pages[idx].state, &st, PG_BUSY);
}

static void collect_live(vec_t *s)
{
    pthread_mutex_lock(&dsm.cache_lock);
    size_t w = 0;
    for (size_t i = 0; i < dsm.nlive; i++) {
        uint32_t idx = dsm.live[i];
        if ((atomic_load(&dsm.pages[idx].flags) & PF_LIVE) && !take_live(idx)) {
            dsm.live[w++] = idx; /* busy elsewhere: keep it */
            continue;
        }
        if (atomic_load(&dsm.pages[idx].flags) & PF_LIVE)
            vec_push(s, idx);
        atomic_fetch_and(&dsm.pages[idx].flags, (uint8_t)~PF_INLIVE);
    }
    dsm.nlive = w;
    pthread_mutex_unlock(&dsm.cache_lock);
}

void hcrt__dsm_compact(void)
{
    vec_t s = collect(PG_RO, PF_LIVE, 1, NULL);
    collect_live(&s);
    qsort(s.v, s.n, sizeof *s.v, cmp_u32);
    for (size_t i = 0; i < s.n;) {
        size_t j = i + 1;
        while (j < s.n && s.v[j] == s.v[j - 1] + 1 &&
               hcrt__dsm_area_of_page(s.v[j]) == hcrt__dsm_area_of_page(s.v[i]))
            j++;
        /* live views and own copies alike: the base mapping, PROT_NONE */
        hcrt__dsm_reset_view(s.v[i], j - i);
        i = j;
    }
    for (size_t i = 0; i < s.n; i++) {
        atomic_fetch_and(&dsm.pages[s.v[i]].flags,
                         (uint8_t)~(PF_TRIGGER | PF_LIVE));
        atomic_store(&dsm.pages[s.v[i]].state, PG_INV);
    }
    hcrt__dsm_page_settled();
    dsm_count(invalidations, s.n);
    hcrt_debug(HCRT_MOD_DSM,
               "out of memory mappings: dropped %zu cached "
               "pages",
               s.n);
    free(s.v);
}
