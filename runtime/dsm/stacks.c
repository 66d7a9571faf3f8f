/*
 * stacks.c - stacks in DSM memory.
 *
 * A thread running on a DSM stack can give the address of any of its local
 * variables to code running on another rank: the address means the same
 * bytes everywhere. libhcrt runs the head's main (and each worker's main
 * thread, and libomp's threads) on such stacks, so a local passed to a
 * function of another file that shares it in a parallel region works
 * without any compiler analysis.
 *
 * Each rank's slice of the range ends with its stack region
 * (dsm.stack_pages pages, the same on every rank; the heap stops below
 * it). Its pages are homed on the slice owner whatever HCRT_DSM_HOME says
 * (home.c), so the rank that runs on a stack holds its master copy. A
 * stack is a block [guard | stack] of that region:
 *  - stack pages are installed read-write at the home when the block is
 *    handed out and stay so: retire_home_writes never protects them
 *    (pages.c), nothing else protects home pages. The home thus never
 *    takes a protocol fault on its own stack - a fault there would need a
 *    signal frame pushed onto the very page that is protected. Its stores
 *    are invisible to the protocol, so the home is registered as a writer
 *    of every stack page from the start: no other rank's copy is ever
 *    exempt from self-invalidation, and each acquire sees fresh frames.
 *  - guard pages stay PROT_NONE at the home (state PG_GUARD): a thread
 *    running past its stack faults there and fault.c reports a stack
 *    overflow instead of the thread silently writing other DSM memory.
 * Other ranks treat the region like any remote memory: read misses fetch
 * from the home, writes are twinned and diffed home at release.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "dsm/dsm_int.h"

/* stacks at once on a rank: libomp allows teams of thousands */
#define MAX_BLOCKS 4096

typedef struct block {
    _Atomic uintptr_t lo;   /* lowest stack address (guard below); 0: free */
    size_t size, guard;     /* bytes */
    size_t first, npages;   /* first page of the guard, guard + stack pages */
    const char *who, *hint; /* for an overflow report */
} block_t;

static struct {
    pthread_mutex_t mu;
    size_t need, want; /* bytes asked for before init (this rank) */
    size_t lo, hi;     /* this rank's region [lo, hi), page indices */
    size_t bump;       /* never-used pages start here */
    block_t blk[MAX_BLOCKS];
    size_t nblk; /* entries of blk in use (live or free) */
} st = {.mu = PTHREAD_MUTEX_INITIALIZER};

void hcrt__dsm_stacks_reserve(size_t need, size_t want)
{
    if (need > st.need)
        st.need = need;
    if (want > st.want)
        st.want = want;
}

size_t hcrt__dsm_stacks_size(void)
{
    return dsm.stack_pages * DSM_PAGE;
}

/* Collective: every rank computes homes from the region's size, so all
 * take the largest request (settings such as RLIMIT_STACK may differ):
 * what they want, and at least a quarter of a slice (address space only:
 * a larger HCRT_DSM_SIZE leaves room for more threads), at most half a
 * slice, but at least what they need. */
hcrt_status_t hcrt__dsm_stacks_init(void)
{
    unsigned long mine[2] = {(st.need + DSM_PAGE - 1) / DSM_PAGE,
                             (st.want + DSM_PAGE - 1) / DSM_PAGE};
    unsigned long all[2] = {0, 0}, cap = dsm.slice_pages / 2;
    MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG, MPI_MAX, dsm.coll_comm);
    if (all[1] && all[1] < dsm.slice_pages / 4)
        all[1] = dsm.slice_pages / 4;
    dsm.stack_pages = all[1] < cap ? all[1] : cap;
    if (all[0] > dsm.stack_pages) {
        dsm.stack_pages = 0;
        hcrt_error(HCRT_MOD_DSM,
                   "the stacks in DSM memory need %lu MiB per rank but a "
                   "rank's slice of the DSM range is %zu MiB (HCRT_DSM_SIZE "
                   "/ ranks) and they may take half of it: raise "
                   "HCRT_DSM_SIZE or lower HCRT_STACK_SIZE",
                   all[0] * DSM_PAGE >> 20, dsm.slice_pages * DSM_PAGE >> 20);
        return HCRT_ERR_INVALID;
    }
    st.hi = (size_t)(dsm.rank + 1) * dsm.slice_pages;
    st.lo = st.hi - dsm.stack_pages;
    st.bump = st.lo;
    st.nblk = 0;
    return HCRT_OK;
}

void hcrt__dsm_stacks_fini(void)
{
    dsm.stack_pages = 0;
    st.need = st.want = 0;
}

/* Guard pages PG_GUARD; stack pages read-write for good, the home their
 * registered writer (see the top of the file). */
static void install(const block_t *b)
{
    size_t ng = b->guard / DSM_PAGE, s = b->first + ng;
    for (size_t i = b->first; i < s; i++)
        atomic_store(&dsm.pages[i].state, PG_GUARD);
    /* a reused block's old stack pages may be in its new guard */
    hcrt__dsm_mprotect(hcrt__dsm_page_addr(b->first), b->guard, PROT_NONE);
    hcrt__dsm_mprotect(hcrt__dsm_page_addr(s), b->size, PROT_READ | PROT_WRITE);
    for (size_t i = s; i < b->first + b->npages; i++) {
        atomic_fetch_or(&dsm.dir[i].writers, 1ULL << dsm.rank);
        atomic_store(&dsm.pages[i].state, PG_RW);
    }
}

/* A free block of at least n pages (reused whole), or a new one. */
static block_t *take(size_t n)
{
    for (size_t i = 0; i < st.nblk; i++)
        if (!atomic_load(&st.blk[i].lo) && st.blk[i].npages >= n)
            return &st.blk[i];
    if (st.nblk == MAX_BLOCKS || st.hi - st.bump < n)
        return NULL;
    block_t *b = &st.blk[st.nblk++];
    b->first = st.bump;
    b->npages = n;
    st.bump += n;
    return b;
}

void *hcrt__dsm_stack_new(size_t size, size_t guard, const char *who,
                          const char *hint)
{
    size = (size + DSM_PAGE - 1) & ~(DSM_PAGE - 1);
    guard = (guard + DSM_PAGE - 1) & ~(DSM_PAGE - 1);
    if (!dsm.ready || !dsm.stack_pages || size == 0)
        return NULL;
    pthread_mutex_lock(&st.mu);
    block_t *b = take((size + guard) / DSM_PAGE);
    if (b) {
        /* a reused block keeps its pages: the stack takes the top ones */
        b->guard = (b->npages * DSM_PAGE - size);
        b->size = size;
        b->who = who, b->hint = hint;
        install(b);
        atomic_store(&b->lo, hcrt__dsm_page_addr(b->first) + b->guard);
    }
    pthread_mutex_unlock(&st.mu);
    return b ? (void *)atomic_load(&b->lo) : NULL;
}

void hcrt__dsm_stack_free(void *lo)
{
    if (!lo || !dsm.ready)
        return;
    pthread_mutex_lock(&st.mu);
    for (size_t i = 0; i < st.nblk; i++) {
        block_t *b = &st.blk[i];
        if (atomic_load(&b->lo) != (uintptr_t)lo)
            continue;
        /* give the memory back; a later owner sees zero pages */
        size_t s = b->first + b->guard / DSM_PAGE;
        fallocate(dsm.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)(s * DSM_PAGE), (off_t)b->size);
        atomic_store(&b->lo, 0);
        break;
    }
    pthread_mutex_unlock(&st.mu);
}

int hcrt__dsm_stack_find(const void *p, void **lo, size_t *size)
{
    uintptr_t a = (uintptr_t)p;
    for (size_t i = 0; i < st.nblk && i < MAX_BLOCKS; i++) {
        uintptr_t l = atomic_load(&st.blk[i].lo);
        if (l && a >= l && a < l + st.blk[i].size) {
            *lo = (void *)l;
            *size = st.blk[i].size;
            return 1;
        }
    }
    return 0;
}

/* Async-signal-safe (reads the table without the lock: a report). */
int hcrt__dsm_stack_guarded(uintptr_t addr, uintptr_t *lo, size_t *size,
                            const char **who, const char **hint)
{
    for (size_t i = 0; i < st.nblk && i < MAX_BLOCKS; i++) {
        uintptr_t l = atomic_load(&st.blk[i].lo);
        if (l && addr < l && addr >= l - st.blk[i].guard) {
            *lo = l;
            *size = st.blk[i].size;
            *who = st.blk[i].who;
            *hint = st.blk[i].hint;
            return 1;
        }
    }
    return 0;
}
