/*
 * pages.c - fault resolution: read misses, write misses, home pages.
 *
 * Runs in the faulting thread's SIGSEGV handler, so it only uses atomics,
 * mprotect, memcpy and the service thread (futex); page data moves through
 * the alias view. A page being changed is PG_BUSY; other threads that fault
 * on it wait for dsm.gen to move.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_READ /* Linux 5.14; Debian 12's headers have it */
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm_int.h"

static _Atomic uint32_t waiters;
/* Sequential read streams of this rank: a loop reads several arrays at
 * once (NPB CG's matrix values and column indices beside a gather), so a
 * miss goes on whichever stream it continues. A miss that continues none
 * takes the slot hit longest ago (random misses replace each other). */
#define RD_STREAMS 8
typedef struct rstream {
    _Atomic size_t next;   /* page after its last fetched run */
    _Atomic size_t window; /* its prefetch window */
    _Atomic uint64_t hit;  /* rd_clock at its last miss */
    _Atomic int wr;        /* it writes what it reads */
} rstream_t;
static rstream_t rd[RD_STREAMS];
static _Atomic uint64_t rd_clock;
static _Atomic size_t str_window; /* the strided stream's window */
/* Strided streams (a column of a row-major array, DSM_STRIDE_MAX): */
static _Atomic size_t str_last; /* first page of the last remote read miss */
static _Atomic size_t str_gap;  /* its distance from the miss before */
static _Atomic size_t str_next; /* page after the last strided run */
static _Atomic size_t str_d;    /* that run's stride (0: none) */
static _Atomic int str_wr;      /* the strided stream writes what it reads */
/* The calling thread's write streams (write_run): the page after the
 * last run a write fault of the stream made writable, and that run's
 * window. Per thread (the threads of an OpenMP loop each write their own
 * chunk in order), several at once (a loop nest that writes planes i3 and
 * i3 + 1 of an array, or two arrays, interleaves as many streams); the
 * oldest stream gives its slot to a new one. */
#define WR_STREAMS 8
typedef struct wstream {
    size_t next, window;
} wstream_t;
static _Thread_local wstream_t wr[WR_STREAMS]
    __attribute__((tls_model("initial-exec")));
static _Thread_local unsigned wr_oldest
    __attribute__((tls_model("initial-exec")));

void hcrt__dsm_out_of_mappings(void)
{
    if (hcrt__dsm_in_service_thread())
        hcrt__dsm_compact();
    else
        hcrt__dsm_call(dsm.rank, M_COMPACT, 0, 0, 0, 0);
}

int hcrt__dsm_mprotect(uintptr_t addr, size_t len, int prot)
{
    if (mprotect((void *)addr, len, prot) == 0)
        return 0;
    if (errno == ENOMEM) { /* vm.max_map_count: compact, then retry */
        hcrt__dsm_out_of_mappings();
        if (mprotect((void *)addr, len, prot) == 0)
            return 0;
    }
    hcrt__dsm_mappings_fatal();
}

void hcrt__dsm_mappings_fatal(void)
{
    hcrt__log_raw("dsm: mprotect/mmap failed: the process ran out of memory "
                  "mappings (vm.max_map_count) even after dropping cached "
                  "pages. Raise it (sysctl -w vm.max_map_count=1048576) or "
                  "use a larger HCRT_DSM_BLOCK so pages of one kind are "
                  "contiguous.\n");
    abort();
}

void hcrt__dsm_page_settled(void)
{
    atomic_fetch_add(&dsm.gen, 1);
    if (atomic_load(&waiters))
        hcrt__dsm_futex_wake(&dsm.gen);
}

void hcrt__dsm_wait_page(size_t idx)
{
    uint32_t g = atomic_load(&dsm.gen);
    atomic_fetch_add(&waiters, 1);
    if (atomic_load(&dsm.pages[idx].state) == PG_BUSY)
        hcrt__dsm_futex_wait(&dsm.gen, g);
    atomic_fetch_sub(&waiters, 1);
}

static int claim(size_t idx, uint8_t from)
{
    uint8_t s = from;
    return atomic_compare_exchange_strong(&dsm.pages[idx].state, &s, PG_BUSY);
}

/* After a claim: is the page still homed at `home`? A home that moved
 * (migrate.c) between the caller's lookup and its claim gives the page
 * back (state `from`): the caller retries with the new home. */
static int still_homed(size_t idx, int home, uint8_t from)
{
    if (!dsm.migrate || hcrt__dsm_home_known(idx) == home)
        return 1;
    atomic_store(&dsm.pages[idx].state, from);
    hcrt__dsm_page_settled();
    return 0;
}

/* Pages first, first + stride, ... (n of them). */
static void set_state_s(size_t first, size_t n, size_t stride, uint8_t st)
{
    for (size_t i = 0; i < n; i++)
        atomic_store_explicit(&dsm.pages[first + i * stride].state, st,
                              memory_order_release);
    hcrt__dsm_page_settled();
}

static void set_state(size_t first, size_t n, uint8_t st)
{
    set_state_s(first, n, 1, st);
}

/* Claims up to `max` pages idx + stride, idx + 2 stride, ... in state
 * `from`, homed at `home`, carrying every flag of `need`, in the same
 * area; returns the run length including idx. */
static size_t claim_run_s(size_t idx, size_t stride, size_t max, uint8_t from,
                          int home, uint8_t need)
{
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    size_t end = a->first + a->len / DSM_PAGE, n = 1;
    while (n < max && idx + n * stride < end &&
           hcrt__dsm_home_known(idx + n * stride) == home &&
           (!need ||
            (atomic_load(&dsm.pages[idx + n * stride].flags) & need) == need) &&
           claim(idx + n * stride, from) &&
           still_homed(idx + n * stride, home, from))
        n++;
    return n;
}

static size_t claim_run(size_t idx, size_t max, uint8_t from, int home)
{
    return claim_run_s(idx, 1, max, from, home, 0);
}

static size_t doubled_to(size_t w, size_t cap)
{
    w = w * 2 > cap ? cap : w * 2;
    return w ? w : 1;
}

static size_t doubled(size_t w)
{
    return doubled_to(w, dsm.prefetch_max);
}

/* The read stream that goes on at page idx, or -1. */
static int rd_find(size_t idx)
{
    for (int i = 0; i < RD_STREAMS; i++)
        if (atomic_load(&rd[i].next) == idx)
            return i;
    return -1;
}

/* The read stream whose next run follows the run that begins at idx (a
 * read-ahead run's first page), or -1. */
static int rd_after(size_t idx)
{
    for (int i = 0; i < RD_STREAMS; i++) {
        size_t n = atomic_load(&rd[i].next);
        if (n > idx && n - idx <= 2 * dsm.prefetch_max)
            return i;
    }
    return -1;
}

/* The slot of a new stream: the one hit longest ago. */
static int rd_new(void)
{
    int o = 0;
    for (int i = 1; i < RD_STREAMS; i++)
        if (atomic_load(&rd[i].hit) < atomic_load(&rd[o].hit))
            o = i;
    return o;
}

/* A miss of stream `i` (-1: a new one) fetched [idx, idx + n) with
 * window w; returns the stream's slot. */
static int rd_ran(int i, size_t idx, size_t n, size_t w, int wr)
{
    if (i < 0)
        i = rd_new();
    atomic_store(&rd[i].next, idx + n);
    atomic_store(&rd[i].window, w);
    atomic_store(&rd[i].wr, wr);
    atomic_store(&rd[i].hit, atomic_fetch_add(&rd_clock, 1) + 1);
    return i;
}

/* How many pages a remote miss at idx fetches, and at what stride: a
 * sequential stream doubles its window up to HCRT_DSM_PREFETCH pages; so
 * does a strided one - a read miss as far from the last miss as that one
 * was from the one before (up to DSM_STRIDE_MAX pages: a column of a
 * row-major array, one page per row), or at the page after the last
 * strided run. Anything else fetches one page: random access does not pay
 * for pages nobody asked for. Write misses are never strided (only read
 * runs are fetched at a stride). The state is the rank's, shared by its
 * threads: a heuristic, not a guarantee. */
static size_t prefetch_window(size_t idx, int is_write, size_t *stride,
                              int *slot)
{
    size_t w;
    size_t last = atomic_exchange(&str_last, idx);
    size_t gap = idx > last ? idx - last : 0;
    size_t prev = atomic_exchange(&str_gap, gap);
    size_t d = atomic_load(&str_d);
    *stride = 1;
    *slot = rd_find(idx);
    if (*slot >= 0) {
        w = doubled(atomic_load(&rd[*slot].window));
    } else if (!is_write && d > 1 && idx == atomic_load(&str_next)) {
        w = doubled(atomic_load(&str_window)), *stride = d;
    } else if (!is_write && gap > 1 && gap == prev && gap <= DSM_STRIDE_MAX) {
        w = doubled(1), *stride = gap; /* a new strided stream */
    } else {
        w = 1;
    }
    if (*stride > 1)
        atomic_store(&str_window, w);
    return w;
}

/* The calling thread's write stream that goes on at page idx, if any. */
static wstream_t *write_find(size_t idx)
{
    for (int i = 0; i < WR_STREAMS; i++)
        if (wr[i].next == idx) /* page 0 is the guard: never a stream's */
            return &wr[i];
    return NULL;
}

/* The window of a write fault at idx: doubled if it goes on a stream. */
static size_t write_window(size_t idx)
{
    wstream_t *s = write_find(idx);
    return s ? doubled(s->window) : 1;
}

/* A write fault at idx with window w made n pages from idx writable: its
 * stream (or a new one, in the oldest stream's slot) goes on after them,
 * and after the writable pages that follow (a read-ahead run installed
 * writable, written before): its next fault is further on. */
static void write_ran(size_t idx, size_t n, size_t w)
{
    wstream_t *s = write_find(idx);
    if (!s)
        s = &wr[wr_oldest++ % WR_STREAMS];
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    size_t end = a->first + a->len / DSM_PAGE, m = n;
    while (m < n + dsm.prefetch_max && idx + m < end &&
           atomic_load(&dsm.pages[idx + m].state) == PG_RW)
        m++;
    *s = (wstream_t){idx + m, w > n ? w : n};
}

/* A write fault at idx (held BUSY, taken from state `from`): how many
 * pages from idx to make writable at once. A thread whose previous write
 * fault of a stream ended its run at the page before (the page after its
 * last writable run) writes in order: the stream's window doubles up to
 * HCRT_DSM_PREFETCH, like a read stream's, and the following pages in
 * state `from` with the same home and every flag of `need` (registered
 * as this rank's writes) are claimed with it, stopping at the first that
 * is not. Anything else opens one page and starts a stream. */
static size_t write_run(size_t idx, int home, uint8_t from, uint8_t need)
{
    size_t w = write_window(idx);
    size_t n = w > 1 ? claim_run_s(idx, 1, w, from, home, need) : 1;
    write_ran(idx, n, w);
    return n;
}

static void cache_add_s(size_t first, size_t n, size_t stride)
{
    pthread_mutex_lock(&dsm.cache_lock);
    for (size_t i = 0; i < n; i++) {
        size_t p = first + i * stride;
        uint8_t f = atomic_fetch_or(&dsm.pages[p].flags, PF_CACHED);
        if (!(f & PF_CACHED))
            dsm.cached[dsm.ncached++] = (uint32_t)p;
    }
    pthread_mutex_unlock(&dsm.cache_lock);
}

static void live_add(size_t first, size_t n)
{
    pthread_mutex_lock(&dsm.cache_lock);
    for (size_t i = 0; i < n; i++) {
        uint8_t f = atomic_fetch_or(&dsm.pages[first + i].flags, PF_INLIVE);
        if (!(f & PF_INLIVE))
            dsm.live[dsm.nlive++] = (uint32_t)(first + i);
    }
    pthread_mutex_unlock(&dsm.cache_lock);
}

/* Start-up: the cached list keeps only the pages still PF_CACHED. */
static void drop_uncached(void)
{
    size_t w = 0;
    for (size_t i = 0; i < dsm.ncached; i++)
        if (atomic_load(&dsm.pages[dsm.cached[i]].flags) & PF_CACHED)
            dsm.cached[w++] = dsm.cached[i];
    dsm.ncached = w;
}

/* Start-up, same-host fast path: the added areas (globals, homed on rank
 * 0) were seeded with private copies of the binary's bytes (range.c); on
 * a rank of rank 0's host they become live views of rank 0's master, so
 * that no rank ever holds a copy of a same-host home's page. */
void hcrt__dsm_live_areas(void)
{
    /* same-host ranks: their seeded copies go live */
    uint64_t peers =
        ~dsm.copy_holders & ~(dsm.rank < 64 ? 1ULL << dsm.rank : 0);
    for (int i = 1; i < dsm.nareas; i++) {
        dsm_area_t *a = &dsm.areas[i];
        size_t n = a->len / DSM_PAGE;
        int home = hcrt__dsm_home_known(a->first);
        if (home == dsm.rank) {
            /* the home's directory: those ranks hold no copy to tell of
             * a write (each home write fault of a global sent them a
             * notice and waited for it: ~30 us a page) */
            for (size_t j = 0; j < n; j++)
                atomic_fetch_and(&dsm.dir[a->first + j].readers, ~peers);
            continue;
        }
        if (!hcrt__dsm_shm_peer(home))
            continue;
        for (size_t j = 0; j < n; j++)
            atomic_store(&dsm.pages[a->first + j].flags, PF_LIVE);
        hcrt__dsm_map_live_lazy(a->first, n, home);
        live_add(a->first, n);
    }
    drop_uncached(); /* the seeded copies left the cached list */
}

/* One added area's untouched pages (rank 0's view): out of the home's
 * reader sets, invalid on ranks of other hosts. */
static void untouched_apply(dsm_area_t *a, size_t n)
{
    if (dsm.rank == 0) {
        for (size_t j = 0; j < n; j++)
            if (a->untouched[j])
                atomic_fetch_and(&dsm.dir[a->first + j].readers,
                                 ~dsm.copy_holders);
        return;
    }
    if (hcrt__dsm_shm_peer(0))
        return; /* rank 0's host: live views (hcrt__dsm_live_areas) */
    for (size_t j = 0; j < n;) {
        if (!a->untouched[j]) {
            j++;
            continue;
        }
        size_t k = j;
        for (; k < n && a->untouched[k]; k++) {
            atomic_store(&dsm.pages[a->first + k].flags, 0);
            atomic_store(&dsm.pages[a->first + k].state, PG_INV);
        }
        hcrt__dsm_mprotect(a->base + j * DSM_PAGE, (k - j) * DSM_PAGE,
                           PROT_NONE);
        j = k;
    }
}

/* Start-up, collective, once the hosts are known: a page of an added area
 * (the globals, homed on rank 0) that rank 0 never touched before
 * start-up is zero there, and no rank of another host keeps a seeded copy
 * of it: it starts invalid there (a read before anybody wrote it fetches
 * a zero page), and the home's directory lists no such reader. The home's
 * first write of such a page then tells nobody; it used to notify every
 * other host's rank and wait, once a run (NPB FT class A's init_ui first
 * writes 321 MiB of zero-initialised globals). Every rank takes rank 0's
 * view of which pages those are, so the home and the copies agree. */
void hcrt__dsm_untouched_share(void)
{
    for (int i = 1; i < dsm.nareas; i++) {
        dsm_area_t *a = &dsm.areas[i];
        size_t n = a->len / DSM_PAGE;
        int have = a->untouched != NULL && n <= INT_MAX, all = 0;
        MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_LAND, dsm.coll_comm);
        if (!all || a->fixed_home != 0)
            continue;
        MPI_Bcast(a->untouched, (int)n, MPI_BYTE, 0, dsm.coll_comm);
        if (dsm.classify) /* else nobody is told: copies self-invalidate */
            untouched_apply(a, n);
        free(a->untouched); /* needed no more */
        a->untouched = NULL;
    }
    drop_uncached(); /* the seeded copies dropped */
}

/* ---- home pages: no message unless exempt copies elsewhere must be told */

/* The run of untouched home pages from idx (claimed), stopping before a
 * page the migration protected to see whether this rank uses it
 * (migrate.c): touching one page must not count for its neighbours. */
static size_t claim_home_run(size_t idx)
{
    if (!dsm.migrate)
        return claim_run(idx, dsm.prefetch_max, PG_INV, dsm.rank);
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    size_t end = a->first + a->len / DSM_PAGE, n = 1;
    while (n < dsm.prefetch_max && idx + n < end &&
           hcrt__dsm_home_known(idx + n) == dsm.rank &&
           !hcrt__dsm_migrate_probed(idx + n) && claim(idx + n, PG_INV))
        n++;
    return n;
}

/* A home's sequential write stream over pages other hosts' ranks hold
 * copies of (the globals every rank starts with) sends a notice for each
 * run and waits for it: its window doubles up to HOME_RUN_MAX, not
 * HCRT_DSM_PREFETCH. NPB FT class A between hosts: `init_ui`'s first
 * writes of 321 MiB of zero-initialised globals took 1 323 runs of 64
 * pages, 281-297 ms against 102 ms in `./ft.A.x`; runs of up to 1 024
 * pages took 200-222 ms. A stream's last run may reach up to a window
 * past what the loop writes: those pages' readers lose their copies (a
 * fetch each when they next read them), which a 4 MiB window bounds. */
#define HOME_RUN_MAX 1024

static size_t home_write_window(size_t idx)
{
    wstream_t *s = write_find(idx);
    return s ? doubled_to(s->window, dsm.prefetch_max > HOME_RUN_MAX
                                         ? dsm.prefetch_max
                                         : HOME_RUN_MAX)
             : 1;
}

/* write_run for a write fault on a read-only home page: the run stops
 * before a page a rank of another host writes. Past the stream's window
 * it goes on while no rank of another host holds a copy either: making
 * such a page writable tells nobody (no message), and a scattered or
 * strided writer (IS's keys, FT's transposes) would otherwise take a
 * fault per page. The last run of a stream
 * reaches past what the loop writes, and registering the home as a
 * second writer of such a page would take its writer's exempt copy away
 * for good (a refetch after every barrier: retire_home_writes only gives
 * back pages the home alone writes). A page nobody else writes costs at
 * most its readers' exempt copies until retire_home_writes returns them. */
static size_t home_write_run(size_t idx)
{
    size_t w = home_write_window(idx), n = 1;
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    size_t end = a->first + a->len / DSM_PAGE;
    uint64_t others = dsm.copy_holders;
    /* a stream over pages another host wrote (a region's output that the
     * head now writes alone, e.g. after placement moved the program's
     * regions to it): the faulting page takes their copies away anyway,
     * so the stream's window does too, one notice for the run instead of
     * one round trip a page (NPB FT class W between hosts: 2 950 home
     * faults after init_ui's first call on all nodes) */
    int over = (atomic_load(&dsm.dir[idx].writers) & others) != 0;
    size_t cap = w > dsm.prefetch_max ? w : dsm.prefetch_max;
    while (n < cap && idx + n < end &&
           hcrt__dsm_home_known(idx + n) == dsm.rank &&
           (!(atomic_load(&dsm.dir[idx + n].writers) & others) ||
            (over && n < w)) &&
           (n < w || !(atomic_load(&dsm.dir[idx + n].readers) & others)) &&
           claim(idx + n, PG_RO) && still_homed(idx + n, dsm.rank, PG_RO))
        n++;
    write_ran(idx, n, w);
    return n;
}

/* The run a home fault at idx (claimed from state st) takes. */
static size_t home_run(size_t idx, uint8_t st, int is_write)
{
    size_t n;
    if (st == PG_INV)
        n = claim_home_run(idx);
    else if (!(atomic_load(&dsm.pages[idx].flags) & PF_HTRY))
        /* a write to a page read before (the seeded globals, a read
         * fault's run): in a sequential write stream, the read-only home
         * pages after it */
        return home_write_run(idx);
    else
        /* protected again for a reader (retire_home_writes): the run of
         * such pages after it, so a loop that writes what it wrote before
         * faults once per run, not once per page */
        n = claim_run_s(idx, 1, dsm.prefetch_max, PG_RO, dsm.rank, PF_HTRY);
    if (is_write)
        write_ran(idx, n, n); /* a write stream goes on after the run */
    return n;
}

static int home_fault(size_t idx, int is_write)
{
    uint8_t st = atomic_load(&dsm.pages[idx].state);
    if (st == PG_GUARD)
        return 1; /* a stack's guard (stacks.c): never accessible */
    if (st == PG_BUSY) {
        hcrt__dsm_wait_page(idx);
        return 0;
    }
    if (st == PG_RW || (st == PG_RO && !is_write))
        return 1; /* spurious */
    if (!claim(idx, st) || !still_homed(idx, dsm.rank, st))
        return 0;
    DSM_DELAY(DLY_FAULT);
    size_t n = home_run(idx, st, is_write);
    uintptr_t addr = hcrt__dsm_page_addr(idx);
    /* with no rank on another host nobody could be told of a write: an
     * untouched run read first is made writable at once, saving the write
     * fault that usually follows */
    if (st == PG_INV && !dsm.copy_holders)
        is_write = 1;
    if (is_write) {
        uint64_t tell = 0;
        for (size_t i = 0; i < n; i++)
            tell |= hcrt__dsm_dir_add_writer(idx + i, dsm.rank);
        if (tell)
            hcrt__dsm_call(dsm.rank, M_WRITER, idx, n, 0, tell);
        DSM_DELAY(DLY_FAULT);
    }
    hcrt__dsm_mprotect(addr, n * DSM_PAGE,
                       is_write ? PROT_READ | PROT_WRITE : PROT_READ);
    set_state(idx, n, is_write ? PG_RW : PG_RO);
    dsm_count(home_faults, 1);
    return 0;
}

/* ---- remote pages ---- */

/* Read-ahead requests in flight without a waiting thread; a slot is free
 * when its op is done (set at init), claimed by CAS, so the fault path
 * needs no lock. */
#define RA_SLOTS 4
typedef struct ra_slot {
    dsm_op_t op;
    dsm_msg_t m;
    fetch_ctx_t ctx;
} ra_slot_t;
static ra_slot_t ra[RA_SLOTS];

void hcrt__dsm_pages_init(void)
{
    for (int i = 0; i < RA_SLOTS; i++)
        atomic_store(&ra[i].op.done, 1);
    for (int i = 0; i < RD_STREAMS; i++) {
        atomic_store(&rd[i].next, (size_t)-1);
        atomic_store(&rd[i].window, 1);
    }
    atomic_store(&str_window, 1);
}

/* Waits for this rank's read-ahead fetches in flight. Nobody waits for
 * them otherwise; at shutdown a reply still on its way would find the
 * requester's service thread gone, and the home's service thread would
 * wait forever for its page data to be received (a rendezvous send). */
void hcrt__dsm_readahead_drain(void)
{
    for (int i = 0; i < RA_SLOTS; i++)
        if (atomic_load(&ra[i].op.done) != 1)
            hcrt__dsm_wait(&ra[i].op);
}

/* Protects pages idx + i * stride, i in [from, to), with `prot`: page by
 * page for a strided run, else one call, and a contiguous read-only range
 * mapped at once rather than page by page. */
static void protect_run(size_t idx, size_t stride, size_t from, size_t to,
                        int prot)
{
    uintptr_t addr = hcrt__dsm_page_addr(idx);
    if (stride > 1) {
        for (size_t i = from; i < to; i++)
            hcrt__dsm_mprotect(addr + i * stride * DSM_PAGE, DSM_PAGE, prot);
        return;
    }
    if (from >= to)
        return;
    hcrt__dsm_mprotect(addr + from * DSM_PAGE, (to - from) * DSM_PAGE, prot);
    if (prot == PROT_READ && to - from > 1)
        madvise((void *)(addr + from * DSM_PAGE), (to - from) * DSM_PAGE,
                MADV_POPULATE_READ);
}

/* Installs a fetched run whose bytes are in the alias view: flags, cached
 * list, protections. */
static void install_run(fetch_ctx_t *c, const uint8_t *exempt)
{
    size_t st = c->stride;
    for (size_t i = 0; i < c->n; i++) {
        size_t p = c->idx + i * st;
        uint8_t f = exempt[i] ? PF_EXEMPT : 0;
        if (c->registered)
            f |= PF_WREG;
        if (c->trigger && i == 0)
            f |= PF_TRIGGER;
        atomic_fetch_and(&dsm.pages[p].flags,
                         (uint8_t)~(PF_EXEMPT | PF_TRIGGER));
        atomic_fetch_or(&dsm.pages[p].flags, f);
    }
    /* A "no longer exempt" notice handled since the request was made may
     * be about this run, its flags cleared before the ones above were
     * set (the reply completes the request before the notice behind it
     * is handled; serve_notify bumps the count first): no exempt bits. */
    if (atomic_load(&dsm.notify_seq) != c->nseq)
        for (size_t i = 0; i < c->n; i++)
            atomic_fetch_and(&dsm.pages[c->idx + i * st].flags,
                             (uint8_t)~PF_EXEMPT);
    DSM_DELAY(DLY_FAULT);
    /* In the cached list before the generation check: an acquire that
     * bumps the generation after the check then finds these pages (BUSY)
     * in its scan and drops them once settled. */
    cache_add_s(c->idx, c->n, st);
    if (atomic_load(&dsm.acq_gen) != c->gen) {
        /* A thread of this rank acquired while the request was out: the
         * home may have served it before the release that acquire pairs
         * with. Drop the run; the faulting access retries and refetches. */
        set_state_s(c->idx, c->n, st, PG_INV);
        return;
    }
    DSM_DELAY(DLY_FAULT);
    /* A read-ahead run's first page stays PROT_NONE, its trigger. Then
     * pages [first, rw_end) become writable, twinned: the faulting page of
     * a write miss, or the whole run under write-ahead (the stream writes
     * the pages it reads, a column updated in place: registered at the
     * home by the fetch, instead of a write fault per page - a signal, a
     * twin and an mprotect that splits the mapping). The rest read-only. */
    size_t first = c->trigger ? 1 : 0;
    size_t rw_end = c->wahead ? c->n : c->is_write ? 1 : first;
    for (size_t i = first; i < rw_end; i++)
        memcpy(dsm.twins + (c->idx + i * st) * DSM_PAGE,
               hcrt__dsm_page_alias(c->idx + i * st), DSM_PAGE);
    if (rw_end > first)
        dsm_count(pages_twinned, rw_end - first);
    protect_run(c->idx, st, first, rw_end, PROT_READ | PROT_WRITE);
    protect_run(c->idx, st, rw_end, c->n, PROT_READ);
    for (size_t i = 0; i < c->n; i++)
        atomic_store(&dsm.pages[c->idx + i * st].state,
                     i >= first && i < rw_end ? PG_RW : PG_RO);
    dsm_count(pages_fetched, c->n);
    dsm_count(bytes_fetched, c->n * DSM_PAGE);
    hcrt__dsm_page_settled();
}

/* The pages that follow a fetch reply from `home`, woken by the fault
 * detector if it dies meanwhile (base/wait.h). */
static void recv_data(void *buf, size_t len, int home, int tag)
{
    MPI_Request req;
    hcrt_wait_t w = {.what = "DSM page data",
                     .peer = home,
                     .deadline = hcrt__wait_reply_deadline(),
                     .busy = 1}; /* as the MPI_Recv it replaces */
    MPI_Irecv(buf, (int)len, MPI_BYTE, home, tag, dsm.svc_comm, &req);
    hcrt__wait_request(&req, &w);
}

size_t hcrt__dsm_fetch_reply_len(size_t n)
{
    size_t flen = (n + 63) & ~63UL;
    return sizeof(dsm_msg_t) + flen +
           (n <= DSM_INLINE_PAGES ? n * DSM_PAGE : 0);
}

/* Installs a fetched run through the alias view (tag < 0: the data of a
 * contiguous run larger than DSM_INLINE_PAGES is in the alias already). */
void hcrt__dsm_install_reply(fetch_ctx_t *c, void *msg, size_t len, int home,
                             int tag)
{
    dsm_msg_t *m = msg;
    size_t flen = (c->n + 63) & ~63UL;
    const uint8_t *exempt = (const uint8_t *)(m + 1);
    char *alias = hcrt__dsm_page_alias(c->idx);
    if (c->stride > 1) { /* the pages arrive packed: scatter them */
        const char *data = (const char *)(m + 1) + flen;
        char *tmp = NULL;
        if (c->n > DSM_INLINE_PAGES) {
            hcrt_assert(len == sizeof *m + flen);
            tmp = malloc(c->n * DSM_PAGE);
            if (!tmp)
                hcrt_fatal(HCRT_MOD_DSM, "out of memory receiving pages");
            recv_data(tmp, c->n * DSM_PAGE, home, tag);
            data = tmp;
        } else {
            hcrt_assert(len == sizeof *m + flen + c->n * DSM_PAGE);
        }
        for (size_t i = 0; i < c->n; i++)
            memcpy(alias + i * c->stride * DSM_PAGE, data + i * DSM_PAGE,
                   DSM_PAGE);
        free(tmp);
        install_run(c, exempt);
        return;
    }
    if (c->n <= DSM_INLINE_PAGES) {
        hcrt_assert(len == sizeof *m + flen + c->n * DSM_PAGE);
        memcpy(alias, (const char *)(m + 1) + flen, c->n * DSM_PAGE);
    } else {
        /* The data follows from the same home on its own tag: straight
         * into the alias view (nobody touches these BUSY pages). */
        hcrt_assert(len == sizeof *m + flen);
        if (tag >= 0) {
            /* one call allocates the pages instead of n faults */
            madvise(alias, c->n * DSM_PAGE, MADV_POPULATE_WRITE);
            recv_data(alias, c->n * DSM_PAGE, home, tag);
        }
    }
    install_run(c, exempt);
}

/* Service thread: the reply of a fetch it sent. */
static void install_fetch(dsm_op_t *op, void *msg, size_t len)
{
    hcrt__dsm_install_reply(op->arg, msg, len, op->dest, DSM_TAG_DATA);
}

/* Registers this rank as writer of [idx, idx+n) at `home`: directly in a
 * same-host home's directory (a message only when exempt copies elsewhere
 * must be told first), else by asking the home. */
static void register_writer(size_t idx, size_t n, size_t stride, int home)
{
    if (!hcrt__dsm_shm_peer(home)) { /* d: the stride (0: contiguous) */
        hcrt__dsm_call(home, M_WRITER, idx, n, 0, stride > 1 ? stride : 0);
        return;
    }
    hcrt_assert(stride == 1);
    uint64_t tell = 0;
    for (size_t i = 0; i < n; i++)
        tell |= hcrt__dsm_dir_add_writer_at(hcrt__dsm_shm_dir(home, idx + i),
                                            home, dsm.rank);
    if (tell)
        hcrt__dsm_call(home, M_WRITER, idx, n, 1, tell);
}

/* Miss on a same-host home (shm.c): the application view maps the home's
 * master pages themselves - read-only, and for a write miss the faulting
 * page read-write once this rank is registered as its writer. Nothing is
 * copied: this rank's loads and stores are the home's memory, so the
 * pages can never be stale and nothing is diffed (PF_LIVE: acquires and
 * releases leave them alone). Registration comes first, so ranks of
 * other hosts holding exempt copies are told before the first store. */
static void map_live(const fetch_ctx_t *c, int home)
{
    if (c->registered)
        register_writer(c->idx, c->n, 1, home);
    hcrt__dsm_set_view(c->idx, c->n, home, PROT_READ);
    for (size_t i = 0; i < c->n; i++) {
        atomic_fetch_and(&dsm.pages[c->idx + i].flags,
                         (uint8_t)~(PF_EXEMPT | PF_TRIGGER));
        atomic_fetch_or(&dsm.pages[c->idx + i].flags,
                        (uint8_t)(PF_LIVE | (c->registered ? PF_WREG : 0)));
    }
    live_add(c->idx, c->n); /* so that compaction finds them */
    /* A write miss opens the registered pages of its run: the run is
     * longer than one page only in a sequential stream (prefetch_window),
     * and a live page made writable and never written costs nothing more
     * than its registration, made above for the whole run anyway. */
    size_t nw = 0;
    if (c->is_write) {
        nw = 1;
        while (nw < c->n &&
               (atomic_load(&dsm.pages[c->idx + nw].flags) & PF_WREG))
            nw++;
        hcrt__dsm_set_view(c->idx, nw, home, PROT_READ | PROT_WRITE);
        write_ran(c->idx, nw, c->n);
    }
    dsm_count(pages_fetched, c->n);
    dsm_count(bytes_fetched, c->n * DSM_PAGE); /* readable now, not copied */
    dsm_count(shm_pages, c->n);
    DSM_DELAY(DLY_FAULT);
    for (size_t i = 0; i < c->n; i++)
        atomic_store(&dsm.pages[c->idx + i].state, i < nw ? PG_RW : PG_RO);
    hcrt__dsm_page_settled();
}

/* Streaming: fetches the next run without waiting for it - of the
 * sequential stream, or else of the strided one (a column: the home packs
 * the pages at the stride into one reply). */
static void read_ahead(int home, int slot)
{
    size_t start, st = 1;
    int wr;
    if (slot >= 0) {
        start = atomic_load(&rd[slot].next);
        wr = atomic_load(&rd[slot].wr);
    } else {
        st = atomic_load(&str_d);
        start = atomic_load(&str_next);
        wr = atomic_load(&str_wr);
        if (st <= 1)
            return;
    }
    if (start >= dsm.npages || hcrt__dsm_home_known(start) != home ||
        !claim(start, PG_INV) || !still_homed(start, home, PG_INV))
        return;
    ra_slot_t *s = NULL;
    for (int i = 0; i < RA_SLOTS && !s; i++) {
        uint32_t one = 1;
        if (atomic_compare_exchange_strong(&ra[i].op.done, &one, 0))
            s = &ra[i];
    }
    if (!s) { /* all slots busy: give the page back */
        set_state(start, 1, PG_INV);
        return;
    }
    size_t n = claim_run_s(start, st, dsm.prefetch_max, PG_INV, home, 0);
    if (st > 1)
        atomic_store(&str_next, start + n * st);
    else
        atomic_store(&rd[slot].next, start + n);
    s->ctx = (fetch_ctx_t){.idx = start,
                           .n = n,
                           .stride = st,
                           .is_write = 0,
                           .registered = wr,
                           .trigger = 1,
                           .gen = atomic_load(&dsm.acq_gen),
                           .wahead = wr,
                           .nseq = atomic_load(&dsm.notify_seq)};
    s->m = (dsm_msg_t){M_FETCH, 0, start, n, (uint64_t)wr, st > 1 ? st : 0};
    s->op = (dsm_op_t){0};
    s->op.dest = home;
    s->op.sbuf = &s->m;
    s->op.slen = sizeof s->m;
    s->op.want_reply = 1;
    s->op.on_reply = install_fetch;
    s->op.arg = &s->ctx;
    hcrt__dsm_submit(&s->op);
}

/* Whether this rank wrote one of the two pages before idx in its stream
 * (at `stride`), in the same area. */
static int stream_writes(size_t idx, size_t stride)
{
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    for (size_t k = 1; k <= 2; k++) {
        if (idx < a->first + k * stride)
            return 0;
        if (atomic_load(&dsm.pages[idx - k * stride].state) == PG_RW)
            return 1;
    }
    return 0;
}

static void fetch_remote(size_t idx, int home, int is_write, int direct)
{
    int slot;
    size_t stride, w = prefetch_window(idx, is_write, &stride, &slot);
    if (stride > 1 && hcrt__dsm_shm_peer(home))
        stride = 1, w = 1; /* same host: live mappings, no strided path */
    if (is_write && write_window(idx) > w) /* one of this thread's */
        w = write_window(idx);             /* write streams */
    size_t n = claim_run_s(idx, stride, w, PG_INV, home, 0);
    if (stride > 1) {
        atomic_store(&str_next, idx + n * stride);
        atomic_store(&str_d, stride);
    }
    int reg = is_write && !(atomic_load(&dsm.pages[idx].flags) & PF_WREG);
    /* A read miss of a stream whose last pages this rank wrote (a column
     * updated in place reads row i+1, then writes row i), or a write miss
     * of a sequential stream (its window is longer than a page only
     * then): write-ahead, the run arrives writable. */
    int wa = w > 1 && !hcrt__dsm_shm_peer(home) &&
             (is_write || stream_writes(idx, stride));
    if (stride > 1)
        atomic_store(&str_wr, wa);
    else
        slot = rd_ran(slot, idx, n, w, wa);
    reg |= wa;
    fetch_ctx_t ctx = {.idx = idx,
                       .n = n,
                       .stride = stride,
                       .is_write = is_write,
                       .registered = reg,
                       .trigger = 0,
                       .gen = atomic_load(&dsm.acq_gen),
                       .wahead = wa,
                       .nseq = atomic_load(&dsm.notify_seq)};
    if (hcrt__dsm_shm_peer(home)) {
        map_live(&ctx, home);
        return;
    }
    dsm_msg_t m = {M_FETCH, 0, idx, n, (uint64_t)reg, stride > 1 ? stride : 0};
    if (!direct || hcrt__dsm_direct_fetch(&m, &ctx, home) != 0) {
        dsm_op_t op = {0};
        op.dest = home;
        op.sbuf = &m;
        op.slen = sizeof m;
        op.want_reply = 1;
        op.on_reply = install_fetch;
        op.arg = &ctx;
        hcrt__dsm_submit(&op);
        hcrt__dsm_wait(&op);
    }
    if (is_write)
        write_ran(idx, wa ? n : 1, n);
    if (!is_write && n == dsm.prefetch_max && n > 1) {
        /* two runs in flight: transfer of one overlaps the installation
         * of the other */
        read_ahead(home, stride > 1 ? -1 : slot);
        read_ahead(home, stride > 1 ? -1 : slot);
    }
}

/* First touch of a read-ahead run: open it and fetch the next one. */
static int trigger(size_t idx, int home)
{
    uint8_t f = atomic_fetch_and(&dsm.pages[idx].flags, (uint8_t)~PF_TRIGGER);
    if (!(f & PF_TRIGGER))
        return 1;
    hcrt__dsm_mprotect(hcrt__dsm_page_addr(idx), DSM_PAGE, PROT_READ);
    read_ahead(home, rd_after(idx));
    return 0;
}

/* Write miss on a valid page: register as writer (once); then a live page
 * (same-host home) is made writable in place, a copy is twinned and
 * unprotected. */
static void upgrade_write(size_t idx, int home)
{
    int live = !!(atomic_load(&dsm.pages[idx].flags) & PF_LIVE);
    if (!(atomic_load(&dsm.pages[idx].flags) & PF_WREG)) {
        /* Register the valid pages that follow as well (cached copies, or
         * live views of a same-host home): contiguous ones, or, after
         * strided read runs (to another host), the pages at their stride
         * - a column updated in place is read, then written, row by row:
         * one round trip per run instead of one per row. */
        uint8_t kind = live ? PF_LIVE : PF_CACHED;
        size_t n = 1, st = 1, d = atomic_load(&str_d);
        dsm_area_t *a = hcrt__dsm_area_of_page(idx);
        size_t end = a->first + a->len / DSM_PAGE;
        if (d > 1 && !hcrt__dsm_shm_peer(home) && idx + d < end &&
            hcrt__dsm_home_known(idx + d) == home &&
            (atomic_load(&dsm.pages[idx + d].flags) & (kind | PF_WREG)) == kind)
            st = d;
        while (n < dsm.prefetch_max && idx + n * st < end &&
               hcrt__dsm_home_known(idx + n * st) == home &&
               (atomic_load(&dsm.pages[idx + n * st].flags) &
                (kind | PF_WREG)) == kind)
            n++;
        uint32_t seq = atomic_load(&dsm.mig_seq);
        register_writer(idx, n, st, home);
        /* A home move (migrate.c) during the registration may have taken
         * pages of the run (not held by this thread) elsewhere: only the
         * faulting page, held BUSY here, is surely registered. */
        if (dsm.migrate && ((seq & 1) || atomic_load(&dsm.mig_seq) != seq))
            n = 1;
        for (size_t i = 0; i < n; i++)
            atomic_fetch_or(&dsm.pages[idx + i * st].flags, PF_WREG);
        DSM_DELAY(DLY_FAULT);
    }
    /* a sequential write stream: the registered run after it at once */
    size_t n =
        write_run(idx, home, PG_RO, (live ? PF_LIVE : PF_CACHED) | PF_WREG);
    if (live) { /* stores go to the master: no twin, nothing to release */
        hcrt__dsm_set_view(idx, n, home, PROT_READ | PROT_WRITE);
        set_state(idx, n, PG_RW);
        return;
    }
    hcrt_assert(!hcrt__dsm_shm_peer(home)); /* copies: other hosts only */
    uintptr_t addr = hcrt__dsm_page_addr(idx);
    uint8_t f = 0;
    for (size_t i = 0; i < n; i++) {
        /* from the alias: a read-ahead trigger page is still PROT_NONE */
        memcpy(dsm.twins + (idx + i) * DSM_PAGE, hcrt__dsm_page_alias(idx + i),
               DSM_PAGE);
        f |= atomic_fetch_and(&dsm.pages[idx + i].flags, (uint8_t)~PF_TRIGGER);
    }
    dsm_count(pages_twinned, n);
    DSM_DELAY(DLY_FAULT);
    hcrt__dsm_mprotect(addr, n * DSM_PAGE, PROT_READ | PROT_WRITE);
    set_state(idx, n, PG_RW);
    if (f & PF_TRIGGER) /* written before read: the stream goes on */
        read_ahead(home, rd_after(idx));
}

/* Returns 0 when the access can be retried, 1 when nothing needed doing
 * (spurious: the caller counts repeats and reports a loop). */
int hcrt__dsm_resolve(size_t idx, int is_write)
{
    return hcrt__dsm_resolve_from(idx, is_write, 0);
}

int hcrt__dsm_resolve_from(size_t idx, int is_write, int direct)
{
    int home = hcrt__dsm_home(idx);
    DSM_DELAY(DLY_FAULT);
    if (home == dsm.rank)
        return home_fault(idx, is_write);
    uint8_t st = atomic_load(&dsm.pages[idx].state);
    uint64_t t0 = hcrt__dsm_now_ns();
    int r = 0;
    switch (st) {
    case PG_BUSY:
        hcrt__dsm_wait_page(idx);
        break;
    case PG_INV:
        if (!claim(idx, PG_INV) || !still_homed(idx, home, PG_INV))
            break;
        fetch_remote(idx, home, is_write, direct);
        if (is_write)
            dsm_count(write_faults, 1);
        else
            dsm_count(read_faults, 1);
        break;
    case PG_RO:
        if (!is_write) {
            r = trigger(idx, home);
            break;
        }
        if (!claim(idx, PG_RO) || !still_homed(idx, home, PG_RO))
            break;
        upgrade_write(idx, home);
        dsm_count(write_faults, 1);
        break;
    default:
        return 1;
    }
    dsm_count(fault_ns, hcrt__dsm_now_ns() - t0);
    return r;
}

hcrt_status_t hcrt__dsm_make_resident(void *p, size_t len, int for_write)
{
    if (len == 0)
        return HCRT_OK;
    uintptr_t b = (uintptr_t)p & ~(DSM_PAGE - 1);
    for (uintptr_t a = b; a < (uintptr_t)p + len; a += DSM_PAGE) {
        long idx = hcrt__dsm_page_index(a, NULL);
        if (idx < 0)
            continue; /* ordinary memory: nothing to do */
        for (;;) {
            uint8_t st = atomic_load(&dsm.pages[idx].state);
            if (st == PG_RW || (st == PG_RO && !for_write) || st == PG_GUARD)
                break;
            hcrt__dsm_resolve((size_t)idx, for_write);
        }
    }
    return HCRT_OK;
}

/* ---- home side of fetches and writer registration (service thread) ---- */

static int retirable(size_t p, uint64_t me, uint64_t src)
{
    /* never a stack page: its home writes it unseen (stacks.c) */
    return !(atomic_load(&dsm.pages[p].flags) & PF_HTRY) &&
           !hcrt__dsm_in_stacks(p) &&
           atomic_load(&dsm.pages[p].state) == PG_RW &&
           atomic_load(&dsm.dir[p].writers) == me &&
           (atomic_load(&dsm.dir[p].readers) & src);
}

/* Pages of a read fetch that only this home ever wrote, and that it holds
 * writable: when a rank fetches one again (its copy was invalidated), the
 * home protects it again and drops its own writer registration, so the
 * reader's copy is exempt and survives its acquires. Input the head
 * initialised before the loops that read it was fetched again by every
 * call: kmeans' points, 1.8 MB a call, and the worker ran 25 % slower.
 * Not at a first fetch: pages about to be written by several ranks (a
 * column sweep over shared pages) then cost a notice per writer's run,
 * and 1.6x the write faults while the replies waited. If the home writes the
 * page again, its write fault registers it once more and tells the
 * readers (home_fault), as for any new writer: the cost is one write
 * fault per run of pages, once (PF_HTRY). A store of the home's threads
 * racing this lands before the protection (in the master copy the reply
 * is made from) or faults and waits for the page to settle. */
static void retire_home_writes(size_t idx, size_t n, size_t st, int src)
{
    uint64_t me = 1ULL << dsm.rank, sb = 1ULL << src;
    if (!dsm.classify)
        return;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && retirable(idx + j * st, me, sb) &&
               claim(idx + j * st, PG_RW))
            j++;
        if (j == i) {
            i++;
            continue;
        }
        protect_run(idx, st, i, j, PROT_READ);
        for (size_t k = i; k < j; k++) {
            atomic_fetch_or(&dsm.pages[idx + k * st].flags, PF_HTRY);
            atomic_fetch_and(&dsm.dir[idx + k * st].writers, ~me);
        }
        set_state_s(idx + i * st, j - i, st, PG_RO);
        dsm_count(home_reprotects, j - i);
        i = j;
    }
}

void hcrt__dsm_serve_fetch(int src, dsm_msg_t *m)
{
    /* d: the stride of a strided read run (0: contiguous) */
    size_t idx = m->a, n = m->b, st = m->d > 1 ? m->d : 1;
    size_t flen = (n + 63) & ~63UL;
    hcrt__dsm_check_home(idx, src, "fetch");
    /* Small runs travel inside the reply (one message); large ones follow
     * it straight from the alias view (no copy), strided ones packed. Diffs
     * are applied by this thread only (same-host ranks write the master in
     * place and send none), so no reply holds a half-applied diff. */
    int inline_data = n <= DSM_INLINE_PAGES;
    size_t len = sizeof *m + flen + (inline_data ? n * DSM_PAGE : 0);
    dsm_msg_t *r = malloc(len);
    if (!r)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory serving a page fetch");
    *r = (dsm_msg_t){M_FETCH_R, m->op, 0, n, idx, st > 1 ? st : 0};
    uint8_t *exempt = (uint8_t *)(r + 1);
    uint64_t tell = 0;
    memset(exempt, 0, flen);
    if (!m->c)
        retire_home_writes(idx, n, st, src);
    for (size_t i = 0; i < n; i++) {
        if (m->c)
            tell |= hcrt__dsm_dir_add_writer(idx + i * st, src);
        exempt[i] = (uint8_t)hcrt__dsm_dir_add_reader(idx + i * st, src);
    }
    dsm_count(served_fetches, n);
    DSM_DELAY(DLY_SERVICE);
    char *alias = hcrt__dsm_page_alias(idx);
    if (!inline_data && st == 1) {
        /* the run lies in one area, so its alias pages are contiguous */
        hcrt__dsm_defer(src, r, len, alias, n * DSM_PAGE, 0, idx, 1, tell);
        return;
    }
    char *copy = inline_data ? (char *)(r + 1) + flen : malloc(n * DSM_PAGE);
    if (!copy)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory serving a page fetch");
    for (size_t i = 0; i < n; i++)
        memcpy(copy + i * DSM_PAGE, hcrt__dsm_page_alias(idx + i * st),
               DSM_PAGE);
    if (inline_data)
        hcrt__dsm_defer(src, r, len, NULL, 0, 0, idx, st, tell);
    else
        hcrt__dsm_defer(src, r, len, copy, n * DSM_PAGE, 1, idx, st, tell);
}

void hcrt__dsm_serve_writer(int src, dsm_msg_t *m)
{
    /* The home's own threads pass their mask in d; a same-host peer that
     * registered directly (c = 1) passes the ranks it must have told; a
     * rank of another host passes the run's stride (0: contiguous). */
    uint64_t tell = 0, st = 1;
    /* the first page of a run is held by the requester (its home is
     * current); the others may have moved meanwhile (migrate.c): skipped,
     * the requester registers them again at their new home */
    if (!m->c && src != dsm.rank)
        hcrt__dsm_check_home(m->a, src, "writer registration");
    if (m->c || src == dsm.rank)
        tell = m->d;
    else if (m->d > 1)
        st = m->d;
    if (!m->c && (src != dsm.rank || !tell))
        for (size_t i = 0; i < m->b; i++)
            if (!dsm.migrate || i == 0 ||
                hcrt__dsm_home_known(m->a + i * st) == dsm.rank)
                tell |= hcrt__dsm_dir_add_writer(m->a + i * st, src);
    dsm_msg_t *r = malloc(sizeof *r);
    if (!r)
        hcrt_fatal(HCRT_MOD_DSM, "out of memory serving a writer notice");
    *r = (dsm_msg_t){M_WRITER_R, m->op, 0, m->b, 0, 0};
    hcrt__dsm_defer(src, r, sizeof *r, NULL, 0, 0, m->a, st, tell);
}

void hcrt__dsm_serve_notify(int src, dsm_msg_t *m)
{
    size_t st = m->c ? m->c : 1; /* the run's stride */
    DSM_DELAY(DLY_SERVICE);
    atomic_fetch_add(&dsm.notify_seq, 1); /* first: see install_run */
    for (size_t i = 0; i < m->b; i++)
        atomic_fetch_and(&dsm.pages[m->a + i * st].flags, (uint8_t)~PF_EXEMPT);
    dsm_msg_t ack = {M_NOTIFY_R, m->op, 0, 0, 0, 0};
    hcrt__dsm_send(src, &ack, sizeof ack);
}
