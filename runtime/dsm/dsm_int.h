/*
 * dsm_int.h - state shared between the DSM's source files.
 *
 * Memory: one memfd backs the fixed range and the added areas. It is mapped
 * twice: the application view at the fixed address, whose page protections
 * carry the protocol, and a private alias that is always read-write. Page
 * data is installed, served and diffed through the alias, so neither MPI nor
 * the service thread ever touches a protected page. Ranks on one host also
 * map each other's memfd and directory (shm.c): the same-host fast path.
 */
#ifndef HCRT_DSM_INT_H
#define HCRT_DSM_INT_H

#include "base/bell.h"
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "dsm/dsm.h"

#define DSM_PAGE 4096UL
#define DSM_PAGE_SHIFT 12
#define DSM_MAX_AREAS 8
#define DSM_NO_HOME (-1)
#define DSM_ATOMIC_WRITER 63 /* writer bit meaning "atomics touch it" */

/* Page states in the application view. */
enum {
    PG_INV = 0, /* PROT_NONE: no valid copy here */
    PG_RO,      /* PROT_READ: valid copy */
    PG_RW,      /* PROT_READ|WRITE: non-home with a twin, or home written */
    PG_BUSY,    /* a thread is changing it: wait for dsm.gen */
    PG_GUARD    /* home only: guard page below a stack (stacks.c), PROT_NONE
                   for good: touching it is a stack overflow */
};
/* Page flags. */
enum {
    PF_EXEMPT = 1,  /* no other rank writes it: survives self-invalidation */
    PF_WREG = 2,    /* this rank is registered as a writer at the home */
    PF_CACHED = 4,  /* in the cached list */
    PF_TRIGGER = 8, /* valid but PROT_NONE: first touch starts read-ahead */
    PF_LIVE = 16,   /* the application view maps the same-host home's master
                       page itself (shm.c; PG_RW once this rank wrote it):
                       never stale, never invalidated, never diffed */
    PF_INLIVE = 32, /* in the live list */
    PF_FLIP = 64,   /* the application view maps the other memfd than the
                       page's base mapping (shm.c, hcrt__dsm_maps_home) */
    PF_HTRY = 128   /* home page: its own writer registration was dropped
                       once for a reader (pages.c, retire_home_writes) */
};

typedef struct dsm_page {
    _Atomic uint8_t state;
    _Atomic uint8_t flags;
    _Atomic int16_t home; /* rank + 1; 0 until known (see home.c) */
} dsm_page_t;

/* Home-side directory entry: who fetched and who writes the page. It lives
 * in a memfd that same-host peers map (shm.c), so they register directly. */
typedef struct dsm_dir {
    _Atomic uint64_t readers;
    _Atomic uint64_t writers;
} dsm_dir_t;

typedef struct dsm_area {
    uintptr_t base, len; /* application view */
    char *alias;         /* always-RW view of the same pages */
    size_t first;        /* index of its first page in the page arrays */
    int fixed_home;      /* home of every page, or DSM_NO_HOME: policy */
    uint8_t *untouched;  /* added areas, until hcrt__dsm_untouched_share:
                            1 per page never touched before start-up */
} dsm_area_t;

enum { HOME_ALLOC = 0, HOME_BLOCK, HOME_CYCLIC, HOME_FIRST_TOUCH };
enum { SHM_AUTO = 0, SHM_OFF, SHM_ON }; /* order of the setting's choices */

typedef struct dsm_counters_atomic {
    _Atomic uint64_t v[sizeof(hcrt_dsm_counters_t) / sizeof(uint64_t)];
} dsm_counters_atomic_t;
#define DSM_CTR(field) (offsetof(hcrt_dsm_counters_t, field) / sizeof(uint64_t))
#define dsm_count(field, n)                                                    \
    atomic_fetch_add_explicit(&dsm.ctr.v[DSM_CTR(field)], (n),                 \
                              memory_order_relaxed)

/* Global state of the module (one per process). */
struct dsm_state {
    int ready;
    int rank, size;
    MPI_Comm svc_comm, coll_comm;
    int memfd, dirfd;
    size_t memfd_len, dir_len;
    dsm_area_t areas[DSM_MAX_AREAS];
    int nareas;        /* areas[0] is the fixed range */
    size_t npages;     /* pages over all areas */
    dsm_page_t *pages; /* per page, NORESERVE */
    dsm_dir_t *dir;    /* per page, used at homes */
    char *twins;       /* twin of page i at twins + i*PAGE */
    uint32_t *cached;  /* indices of pages cached from other homes */
    size_t ncached;
    uint32_t *live; /* pages mapped live (PF_LIVE), for compaction only:
                       acquires never need to look at them */
    size_t nlive;
    pthread_mutex_t cache_lock;
    pthread_mutex_t flush_lock;
    _Atomic uint32_t gen;     /* bumped (and futex-woken) when a page settles */
    _Atomic uint32_t acq_gen; /* bumped by every self-invalidation */
    /* bumped by every "no longer exempt" notice handled, before its flags
     * are cleared: a fetch installed after one keeps no exempt bit */
    _Atomic uint32_t notify_seq;
    /* settings */
    int home_policy;
    size_t block_pages, prefetch_max, slice_pages;
    /* the stack region at the top of every slice (stacks.c; 0: none) */
    size_t stack_pages;
    int classify;
    uint64_t spin_ns; /* service thread polls this long after work */
    int shm_mode;     /* HCRT_DSM_SHM: SHM_AUTO, SHM_OFF or SHM_ON */
    int direct;       /* HCRT_DSM_DIRECT: faulting threads send fetches */
    uint64_t direct_spin_ns; /* and poll this long for the reply */
    /* Same-host fast path (shm.c): per rank, its memfd and directory
     * mapped here (NULL: reach it by messages). shm_peers counts them. */
    char **peer_mem;
    dsm_dir_t **peer_dir;
    int *peer_fd;  /* the peer's memfd, opened here: live mappings */
    int premapped; /* heap slices of same-host peers map their memfd */
    int uffd_mode; /* HCRT_DSM_UFFD: SHM_AUTO, SHM_OFF or SHM_ON */
    int uffd;      /* userfaultfd holding the premapped slices, or -1 */
    int shm_peers;
    /* Ranks (below 64) that may hold copies of this rank's pages: those
     * of other hosts (same-host ranks map the master). Set with the peers. */
    uint64_t copy_holders;
    /* Home migration (migrate.c): on, and per page its home once it moved
     * (rank + 1; 0: the policy's), updated by every rank at one barrier */
    int migrate;
    _Atomic int16_t *moved;
    _Atomic uint32_t mig_seq; /* odd while pages move (a seqlock) */
    dsm_counters_atomic_t ctr;
};
extern struct dsm_state dsm;

/* ---- bell.c: service-thread wake-ups (local eventfd, UDP between ranks;
 * used through base/bell.h: mark/flush by the service thread only,
 * local from the fault handler) */
extern hcrt_bell_t hcrt__dsm_bell;
hcrt_status_t hcrt__dsm_bell_init(void); /* collective */

/* ---- range.c ---- */
hcrt_status_t hcrt__dsm_range_init(uintptr_t base, size_t size);
/* Marks in skip[] (a byte per page) the pages of [base, base+len) that a
 * private anonymous mapping holds untouched (zero); returns their count. */
size_t hcrt__dsm_untouched(uintptr_t base, size_t len, uint8_t *skip);
/* Start-up, collective, after the hosts are known (init.c): the added
 * areas' pages rank 0 never touched are no rank of another host's copy. */
void hcrt__dsm_untouched_share(void);
void hcrt__dsm_range_fini(void);
/* Page index of `p` (and its area), or -1 when outside every area. */
long hcrt__dsm_page_index(uintptr_t p, dsm_area_t **area);
dsm_area_t *hcrt__dsm_area_of_page(size_t idx);
uintptr_t hcrt__dsm_page_addr(size_t idx);
char *hcrt__dsm_page_alias(size_t idx);

/* ---- stacks.c ---- */
/* Is page idx in a rank's stack region (homed on the slice owner, pinned
 * read-write there)? */
static inline int hcrt__dsm_in_stacks(size_t idx)
{
    return dsm.stack_pages && idx < (size_t)dsm.size * dsm.slice_pages &&
           idx % dsm.slice_pages >= dsm.slice_pages - dsm.stack_pages;
}
/* Collective part of hcrt__dsm_init: agrees on the region's size. */
hcrt_status_t hcrt__dsm_stacks_init(void);
void hcrt__dsm_stacks_fini(void);
/* For the fault report: the stack block whose guard holds addr; 0 if none. */
int hcrt__dsm_stack_guarded(uintptr_t addr, uintptr_t *lo, size_t *size,
                            const char **who, const char **hint);

/* ---- home.c ---- */
/* Home of page `idx`; may ask the directory through the service thread
 * (async-signal-safe). hcrt__dsm_home_known never asks: -1 if unknown. */
int hcrt__dsm_home(size_t idx);
int hcrt__dsm_home_known(size_t idx);
int hcrt__dsm_slice_owner(size_t idx);
void hcrt__dsm_home_assign_block(size_t first, size_t n);
void hcrt__dsm_home_set(size_t idx, int rank);
/* Directory work at the home (service thread or home's own threads). */
int hcrt__dsm_dir_add_reader(size_t idx, int rank);
uint64_t hcrt__dsm_dir_add_writer(size_t idx, int who);
/* The same on directory entry `d` of a page homed at `home` (which may be
 * another same-host rank's directory, mapped here). */
int hcrt__dsm_dir_add_reader_at(dsm_dir_t *d, int rank);
uint64_t hcrt__dsm_dir_add_writer_at(dsm_dir_t *d, int home, int who);

/* ---- service.c ---- */
/* One request in flight, owned by the thread waiting for it. */
typedef struct dsm_op {
    struct dsm_op *next;
    int dest;
    void *sbuf; /* message (header first), private memory */
    size_t slen;
    int want_reply;
    void (*on_reply)(struct dsm_op *op, void *msg, size_t len);
    void *arg; /* for on_reply */
    uint64_t result;
    _Atomic uint32_t done; /* futex word */
} dsm_op_t;

typedef struct dsm_msg {
    uint32_t type;
    uint32_t op; /* requester's op slot, echoed in the reply */
    uint64_t a, b, c, d;
} dsm_msg_t;

enum {
    M_FETCH = 1,
    M_FETCH_R,
    M_DIFF,
    M_DIFF_R,
    M_HOME,
    M_HOME_R,
    M_WRITER,
    M_WRITER_R,
    M_NOTIFY,
    M_NOTIFY_R,
    M_ATOMIC,
    M_ATOMIC_R,
    M_LOCK,
    M_LOCK_R,
    M_UNLOCK,
    M_FREE,
    M_FREE_R,
    M_SIZE,
    M_SIZE_R,
    M_STATS,
    M_STATS_R,
    M_COMPACT,
    M_COMPACT_R,
    M_MIGRATE,
    M_MIGRATE_R,
    M_TYPES
};

hcrt_status_t hcrt__dsm_service_start(void);
void hcrt__dsm_service_stop(void);
int hcrt__dsm_in_service_thread(void);
/* Queues `op` for the service thread (async-signal-safe). */
void hcrt__dsm_submit(dsm_op_t *op);
/* Waits for `op` (async-signal-safe: futex). */
void hcrt__dsm_wait(dsm_op_t *op);
/* Submit + wait for a request carrying only a header; returns reply.a. */
uint64_t hcrt__dsm_call(int dest, uint32_t type, uint64_t a, uint64_t b,
                        uint64_t c, uint64_t d);
/* From the service thread: send a reply/notice (copies the buffer). */
void hcrt__dsm_send(int dest, const void *buf, size_t len);
void hcrt__dsm_reply(int dest, const dsm_msg_t *req, uint32_t type, uint64_t a,
                     const void *payload, size_t plen);
/* Sends `msg` (malloc'd, taken over; then `data` on DSM_TAG_DATA if dlen,
 * freed once sent if own_data) to `dest` once every rank in notify_mask
 * acknowledged that pages idx, idx + stride, ... (msg->b of them) are no
 * longer exempt; at once if the mask is empty. */
void hcrt__dsm_defer(int dest, void *msg, size_t len, const void *data,
                     size_t dlen, int own_data, size_t idx, size_t stride,
                     uint64_t notify_mask);
#define DSM_TAG_DATA 1 /* page data following a FETCH_R header */
/* A fetch the faulting thread sent itself (direct.c) carries
 * DSM_OP_DIRECT | slot in its op field; the home sends the reply (and its
 * page data) on tag DSM_TAG_DIRECT + slot, which only that thread
 * receives. */
#define DSM_OP_DIRECT 0x80000000u
#define DSM_TAG_DIRECT 2
#define DSM_INLINE_PAGES 4 /* runs up to this many pages ride in the reply */
/* Strided runs (a column of a row-major array): pages at most this far
 * apart are fetched and registered together. */
#define DSM_STRIDE_MAX 1024
void hcrt__dsm_futex_wait(_Atomic uint32_t *w, uint32_t val);
void hcrt__dsm_futex_wake(_Atomic uint32_t *w);

/* ---- pages.c ---- */
/* Resolves a fault on page `idx`; returns 0 on success, -1 if invalid. */
int hcrt__dsm_resolve(size_t idx, int is_write);
/* The same for a fault of the program's own code (direct.c): a fetch is
 * sent and received by the faulting thread itself when `direct`. */
int hcrt__dsm_resolve_from(size_t idx, int is_write, int direct);

/* A fetch of pages idx, idx + stride, ... (n of them) in flight. */
typedef struct fetch_ctx {
    size_t idx, n, stride; /* pages idx, idx + stride, ... (stride >= 1) */
    int is_write;
    int registered; /* the home recorded us as writer of the whole run */
    int trigger;    /* read-ahead: leave the first page as a trigger */
    uint32_t gen;   /* dsm.acq_gen once the run was claimed */
    int wahead;     /* a read run of a stream that writes: install writable */
    uint32_t nseq;  /* dsm.notify_seq when the request was made */
} fetch_ctx_t;
/* Installs the reply `msg` (len bytes) of fetch c from `home`; page data
 * that follows it comes on `tag` (malloc only for a strided run of more
 * than DSM_INLINE_PAGES pages, never needed by direct fetches). */
void hcrt__dsm_install_reply(fetch_ctx_t *c, void *msg, size_t len, int home,
                             int tag);
/* Bytes of the reply header of a fetch of n pages (exempt flags, and the
 * pages themselves when they ride inside). */
size_t hcrt__dsm_fetch_reply_len(size_t n);

/* Requests of a direct fetch (direct.c) whose reply is late: the service
 * thread tests them and wakes the thread (done: 0, 2 asleep, 1 done). */
typedef struct dsm_adopted {
    struct dsm_adopted *next;
    MPI_Request *rq;
    int n;
    _Atomic uint32_t done; /* futex word */
} dsm_adopted_t;
/* Hands `a` over (async-signal-safe); then wait with hcrt__dsm_wait_done. */
void hcrt__dsm_adopt(dsm_adopted_t *a);
void hcrt__dsm_wait_done(_Atomic uint32_t *done, int peer);

/* ---- direct.c: fetches sent and received by the faulting thread ---- */
void hcrt__dsm_direct_init(void);
/* Is pc in the program's own code (the executable)? Its faults happen
 * outside any MPI call and outside the C library's allocator. */
int hcrt__dsm_direct_code(uintptr_t pc);
/* Sends fetch m for c to `home` and installs the reply, all in this
 * thread; -1 (nothing sent) when it cannot: the caller submits it to the
 * service thread. */
int hcrt__dsm_direct_fetch(dsm_msg_t *m, fetch_ctx_t *c, int home);
void hcrt__dsm_pages_init(void);
/* Start-up: added areas homed on a same-host peer become live views. */
void hcrt__dsm_live_areas(void);
void hcrt__dsm_readahead_drain(void);
void hcrt__dsm_serve_fetch(int src, dsm_msg_t *m);
uint64_t hcrt__dsm_home_serve(size_t idx, int requester, int claim);
void hcrt__dsm_serve_diff(int src, dsm_msg_t *m, size_t len);
void hcrt__dsm_serve_writer(int src, dsm_msg_t *m);
void hcrt__dsm_serve_notify(int src, dsm_msg_t *m);
void hcrt__dsm_notify_ack(int src, dsm_msg_t *m);
hcrt_status_t hcrt__dsm_flush(void);
hcrt_status_t hcrt__dsm_cluster_barrier(void);
hcrt_status_t hcrt__dsm_final_barrier(void);
void hcrt__dsm_invalidate(void);
/* Drops this rank's copy of page idx (after an atomic at its home). */
void hcrt__dsm_drop_page(size_t idx);
void hcrt__dsm_compact(void);
int hcrt__dsm_mprotect(uintptr_t addr, size_t len, int prot);
/* vm.max_map_count reached: compact (in the service thread); and the
 * message + abort when even that did not help. */
void hcrt__dsm_out_of_mappings(void);
_Noreturn void hcrt__dsm_mappings_fatal(void);
void hcrt__dsm_page_settled(void);
/* Waits until page `idx` is no longer PG_BUSY (async-signal-safe). */
void hcrt__dsm_wait_page(size_t idx);

/* ---- migrate.c: homes that follow their writer (HCRT_DSM_MIGRATE) ---- */
hcrt_status_t hcrt__dsm_migrate_init(void); /* collective */
void hcrt__dsm_migrate_fini(void);
/* Home, service thread: a diff of page idx from src was applied. */
void hcrt__dsm_migrate_note(size_t idx, int src);
/* In hcrt__dsm_barrier: the collective (instead of a plain barrier), and,
 * after the invalidation, the moves agreed at it. */
hcrt_status_t hcrt__dsm_migrate_barrier(void);
hcrt_status_t hcrt__dsm_migrate_apply(void);
void hcrt__dsm_migrate_serve(int src, dsm_msg_t *m, size_t len);
/* Is page idx, homed here, being moved away (atomics retry)? Call under
 * hcrt__dsm_mig_atomic_mu. */
int hcrt__dsm_migrate_moving(size_t idx);
extern pthread_mutex_t hcrt__dsm_mig_atomic_mu;
/* Did the migration protect home page idx to watch this rank's use? */
int hcrt__dsm_migrate_probed(size_t idx);
/* diff.c: sends the diffs of BUSY, write-protected pages home, waits until
 * applied, drops their twins. */
void hcrt__dsm_diff_pages(uint32_t *pages, size_t n);
/* diff.c: drops pages now homed here from the cached list. */
void hcrt__dsm_uncache_homed(void);
/* A request about page idx reached this rank: fatal if the page is known
 * to be homed elsewhere (a home moved under a stale request). */
void hcrt__dsm_check_home(size_t idx, int src, const char *what);

/* ---- alloc.c / lock.c / atomic.c / counters.c (service side) ---- */
hcrt_status_t hcrt__dsm_alloc_init(void);
void hcrt__dsm_alloc_fini(void);
uint64_t hcrt__dsm_alloc_serve_free(uintptr_t p);
uint64_t hcrt__dsm_alloc_serve_size(uintptr_t p);
void hcrt__dsm_lock_serve(int src, dsm_msg_t *m);
void hcrt__dsm_unlock_serve(int src, dsm_msg_t *m);
void hcrt__dsm_atomic_serve(int src, dsm_msg_t *m);
uint64_t hcrt__dsm_atomic_apply(void *p, int size, int type, int op, uint64_t v,
                                uint64_t expected);
void hcrt__dsm_stats_serve(int src, dsm_msg_t *m);
void hcrt__dsm_counters_init(void);
uint64_t hcrt__dsm_now_ns(void);

/* ---- shm.c: same-host fast path ---- */
/* Collective over coll_comm: maps the memfd and directory of every rank
 * on this host (HCRT_DSM_SHM). */
hcrt_status_t hcrt__dsm_shm_init(void);
void hcrt__dsm_shm_fini(void);
/* Is `home`'s storage mapped here (serve it without messages)? */
static inline int hcrt__dsm_shm_peer(int home)
{
    return dsm.peer_mem && dsm.peer_mem[home] != NULL;
}
/* Master copy of page `idx` at same-host `home`, and its directory entry. */
static inline char *hcrt__dsm_shm_page(int home, size_t idx)
{
    return dsm.peer_mem[home] + idx * DSM_PAGE;
}
static inline dsm_dir_t *hcrt__dsm_shm_dir(int home, size_t idx)
{
    return dsm.peer_dir[home] + idx;
}
/* Does the application view at page idx map its home's memfd (a live
 * view of the master) rather than this rank's own? */
int hcrt__dsm_maps_home(size_t idx);
/* Makes pages [idx, idx+n) of the application view map the memfd of
 * `home` (a same-host peer: a live view of its master copies) or of this
 * rank (home = dsm.rank: own copies), with `prot`: an mprotect when they
 * already do, else an mmap. Compacts and retries when out of mappings, as
 * hcrt__dsm_mprotect does. */
void hcrt__dsm_set_view(size_t idx, size_t n, int home, int prot);
void hcrt__dsm_map_live_lazy(size_t idx, size_t n, int home);
/* Compaction: back to the base mapping, PROT_NONE (merges mappings). */
void hcrt__dsm_reset_view(size_t idx, size_t n);
/* With userfaultfd minor faults (dsm.uffd >= 0), a premapped slice is
 * mapped readable and its invalid pages simply have no page-table entry:
 * the access raises SIGBUS instead of SIGSEGV. Called by that handler
 * once the protocol holds page idx readable: maps it (UFFDIO_CONTINUE).
 * 0 when the access can be retried, -1 when the page cannot be mapped. */
int hcrt__dsm_uffd_map(size_t idx);
/* ---- debug.c: HCRT_DSM_DEBUG_DELAY (randomised delays at racy points) */
enum {
    DLY_SERVICE = 1, /* service thread: between passes and messages */
    DLY_RELEASE,     /* release: between protection, diffs and states */
    DLY_DIFF,        /* applying a diff to a master copy */
    DLY_ACQUIRE,     /* self-invalidation */
    DLY_FAULT        /* fault path: between claim, copy, twin, install */
};
extern unsigned hcrt__dsm_delay_us; /* 0: off */
hcrt_status_t hcrt__dsm_debug_init(void);
void hcrt__dsm_delay_at(int site); /* async-signal-safe */
#define DSM_DELAY(site)                                                        \
    do {                                                                       \
        if (__builtin_expect(hcrt__dsm_delay_us != 0, 0))                      \
            hcrt__dsm_delay_at(site);                                          \
    } while (0)

/* ---- fault.c ---- */
hcrt_status_t hcrt__dsm_fault_install(void);
void hcrt__dsm_fault_uninstall(void);
/* ---- fault_report.c ---- */
void hcrt__dsm_fault_report_init(void);
/* The rank's one report of a fatal fault: prints it and returns 1 (hand
 * the signal to the previous handler), or, for any later fault of the
 * rank, restores the default action and returns 0 (the access repeats and
 * kills). */
int hcrt__dsm_fault_report(int sig, siginfo_t *si, void *uc, const char *why);

#endif /* HCRT_DSM_INT_H */
