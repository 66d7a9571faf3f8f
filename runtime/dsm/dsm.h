/*
 * dsm.h - interface of the software DSM (internal to libhcrt).
 *
 * One virtual range sits at the same address in every rank; pages of it have
 * a home rank that keeps the master copy. Coherence is home-based release
 * consistency with multiple writers: a read miss fetches from the home (with
 * sequential prefetch), a write miss keeps a twin, a release sends only the
 * changed bytes home, an acquire self-invalidates cached pages unless no
 * other rank ever wrote them. See docs/dsm.md for the protocol and settings.
 *
 * Threading: every call is safe from any thread once hcrt__dsm_init() has
 * returned. Acquire/release/barrier act for the whole rank (one process =
 * one node): OpenMP's flush points call them once per rank, or through
 * hcrt__dsm_barrier_team() from every thread of a team.
 */
#ifndef HCRT_DSM_H
#define HCRT_DSM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hcrt/hcrt.h"

/* Call first thing in main (before MPI_Init): when address-space
 * randomisation is on, turns it off and re-executes /proc/self/exe with the
 * same argv so that every rank of a PIE maps code and globals identically.
 * Returns only when no re-exec was needed (or HCRT_DSM_NO_ASLR=0). */
void hcrt__dsm_prepare_address_space(int argc, char **argv);

/* Makes [begin, end) (e.g. the "hcrt_shared" section of the executable)
 * DSM memory homed on rank 0; call before hcrt__dsm_init(), the same in
 * every rank. Only whole pages inside the range are managed. */
hcrt_status_t hcrt__dsm_add_area(void *begin, void *end);

/* Before hcrt__dsm_init(): keep up to `want` bytes (at least `need`,
 * else init fails) at the top of every rank's slice for stacks in DSM
 * memory; the largest request of any rank wins, capped at half a slice.
 * No stacks without a call. See hcrt__dsm_stack_new. */
void hcrt__dsm_stacks_reserve(size_t need, size_t want);

/* Collective over `comm`: reserves the range, installs the fault handler,
 * starts the service thread. Settings come from HCRT_DSM_*. */
hcrt_status_t hcrt__dsm_init(MPI_Comm comm);
/* Registers dsm/settings.def's rows with the settings table (before
 * hcrt__config_init; base/config.h). */
void hcrt__dsm_settings_register(void);
/* Collective: flushes, stops the service thread, unmaps. Idempotent. */
void hcrt__dsm_fini(void);
int hcrt__dsm_initialized(void);
/* Every heap page is homed on the rank that allocated it
 * (HCRT_DSM_HOME=alloc): a rank that never ran program code homes none. */
int hcrt__dsm_homes_own(void);
/* Test hook (HCRT_FAULT_INJECT segv): the calling thread takes a fault
 * on the range's guard page, and the handler crashes while it handles it
 * (a segfault inside the DSM's fault handler). Does not return. */
_Noreturn void hcrt__dsm_crash_in_handler(void);

/* Is `p` inside DSM-managed memory (range or an added area)? */
int hcrt__dsm_contains(const void *p);
/* The fixed range: base address and size in bytes. */
void *hcrt__dsm_base(void);
size_t hcrt__dsm_size(void);

/* ---- heap: C library semantics; NULL + errno=ENOMEM when exhausted. ---- */
void *hcrt__dsm_malloc(size_t size);
void *hcrt__dsm_calloc(size_t n, size_t size);
void *hcrt__dsm_realloc(void *p, size_t size);
void hcrt__dsm_free(void *p);
void *hcrt__dsm_aligned_alloc(size_t align, size_t size);
int hcrt__dsm_posix_memalign(void **out, size_t align, size_t size);
/* Usable size of a DSM heap block (0 if `p` is not one). */
size_t hcrt__dsm_usable_size(void *p);

/* ---- stacks (stacks.c): memory a thread of this rank runs on, valid on
 * every rank at the same address. Pages are homed here and stay writable
 * here (never a protocol fault on them); `guard` bytes below the stack
 * are never accessible, so an overflow is reported as such. ---- */
/* Returns the stack's lowest address (its top is lo + size), NULL when
 * this rank's stack region is full. `who` ("the main thread") and `hint`
 * (what to raise) word a stack overflow's report; both are kept.
 * Thread-safe, not async-signal-safe. */
void *hcrt__dsm_stack_new(size_t size, size_t guard, const char *who,
                          const char *hint);
/* Gives a stack back (its memory is released); nothing may run on it. */
void hcrt__dsm_stack_free(void *lo);
/* Whether p lies in one of this rank's stacks, and that stack's bounds. */
int hcrt__dsm_stack_find(const void *p, void **lo, size_t *size);
/* Bytes of this rank's stack region (0: no stacks reserved). */
size_t hcrt__dsm_stacks_size(void);

/* ---- fault reports (fault.c) ---- */
/* Names [lo, hi), memory that is not DSM memory, in the report of a
 * segfault there: "rank 1 dereferenced 0x... (`what`) at file:line", then
 * `hint` (what to do). At most a few ranges; strings are kept. */
void hcrt__dsm_fault_name_range(uintptr_t lo, uintptr_t hi, const char *what,
                                const char *hint);

/* In the child of a fork(): drops the fault handlers (no service thread
 * serves this process; a miss is then an ordinary segfault). */
void hcrt__dsm_fork_child(void);

/* ---- consistency ---- */
/* Release: sends the diffs of every dirty page home and waits for them. */
hcrt_status_t hcrt__dsm_release(void);
/* Acquire: release, then self-invalidate cached pages that another rank
 * may have written. */
hcrt_status_t hcrt__dsm_acquire(void);
/* Cluster barrier, one caller per rank: release, MPI barrier, acquire. */
hcrt_status_t hcrt__dsm_barrier(void);
/* Same, called by each of `nthreads` threads of this rank: the last to
 * arrive flushes and joins the cluster barrier while the others wait. */
hcrt_status_t hcrt__dsm_barrier_team(int nthreads);

/* ---- cluster locks (any 64-bit id, e.g. the address of the lock) ---- */
hcrt_status_t hcrt__dsm_lock(uint64_t id);   /* lock + acquire */
hcrt_status_t hcrt__dsm_unlock(uint64_t id); /* release + unlock */

/* ---- atomics on DSM memory, performed at the page's home ---- */
typedef enum hcrt_dsm_aop {
    HCRT_DSM_AOP_LOAD,
    HCRT_DSM_AOP_STORE,
    HCRT_DSM_AOP_XCHG,
    HCRT_DSM_AOP_CAS, /* old returned; stored iff old == expected */
    HCRT_DSM_AOP_ADD,
    HCRT_DSM_AOP_SUB,
    HCRT_DSM_AOP_AND,
    HCRT_DSM_AOP_NAND,
    HCRT_DSM_AOP_OR,
    HCRT_DSM_AOP_XOR,
    HCRT_DSM_AOP_MAX, /* signed */
    HCRT_DSM_AOP_MIN, /* signed */
    HCRT_DSM_AOP_UMAX,
    HCRT_DSM_AOP_UMIN,
    HCRT_DSM_AOP_COUNT
} hcrt_dsm_aop_t;

typedef enum hcrt_dsm_atype {
    HCRT_DSM_AT_INT,   /* 1, 2, 4 or 8 bytes */
    HCRT_DSM_AT_FLOAT, /* 4 bytes; bits passed in the uint64 */
    HCRT_DSM_AT_DOUBLE /* 8 bytes; bits passed in the uint64 */
} hcrt_dsm_atype_t;

/* Performs `op` on the `size`-byte object at `p` (naturally aligned, in DSM
 * memory) and returns its old value's bits zero-extended. `order` is a
 * __ATOMIC_* constant: release orders do a DSM release first, acquire orders
 * an acquire after. Non-DSM addresses are handled locally. */
uint64_t hcrt__dsm_atomic(void *p, int size, hcrt_dsm_atype_t type,
                          hcrt_dsm_aop_t op, uint64_t operand,
                          uint64_t expected, int order);

/* ---- for MPI users of DSM memory (the data manager) ---- */
/* Makes [p, p+len) resident with read (or read-write) access, so that MPI
 * can read (or write) it without taking a DSM fault. Valid until the next
 * acquire of this rank. */
hcrt_status_t hcrt__dsm_make_resident(void *p, size_t len, int for_write);

/* ---- counters ---- */
typedef struct hcrt_dsm_counters {
    uint64_t read_faults, write_faults, home_faults;
    uint64_t pages_fetched, bytes_fetched;
    uint64_t diff_pages, diff_bytes;
    uint64_t invalidations;
    uint64_t locks, atomics_remote, barriers;
    uint64_t served_fetches, served_diffs; /* as a home */
    /* same-host fast path: pages mapped in place from a home's memory
     * (included in pages_fetched) */
    uint64_t shm_pages;
    /* as a home: written pages write-protected again when another rank
     * read them, the home's writer registration dropped (pages.c) */
    uint64_t home_reprotects;
    /* nanoseconds the faulting threads spent resolving faults on pages
     * homed elsewhere (fetches, write upgrades, waits for a page another
     * thread fetches), summed over threads: HetProbe tells a node slowed
     * by its faults from one slow for another reason */
    uint64_t fault_ns;
    /* home migration (HCRT_DSM_MIGRATE): pages whose home moved to this
     * rank, and away from it */
    uint64_t pages_migrated_in, pages_migrated_out;
    /* fetches the faulting thread sent and received itself (direct.c) */
    uint64_t direct_fetches;
    /* copies of pages homed on another host made writable (twinned): each
     * becomes a diff at the next release - HetProbe counts them as the
     * write-back a probe's iterations owe */
    uint64_t pages_twinned;
} hcrt_dsm_counters_t;

void hcrt__dsm_counters(hcrt_dsm_counters_t *out);
/* Do homes follow their writer in this run (HCRT_DSM_MIGRATE on, and no
 * same-host fast path)? */
int hcrt__dsm_migrates(void);
/* Per-region counters: begin/end bracket one execution of region `id` on
 * this rank; end accumulates the deltas into the region's totals. */
void hcrt__dsm_region_begin(uint64_t id);
void hcrt__dsm_region_end(uint64_t id);
/* Mean time in ns between DSM faults since the current region began
 * (elapsed time if no fault yet): HetProbe's input. */
double hcrt__dsm_region_fault_period_ns(void);

#endif /* HCRT_DSM_H */
