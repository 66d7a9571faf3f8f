/*
 * alloc.c - the DSM heap: malloc family over per-rank slices of the range.
 *
 * Each rank allocates from its own slice, so any thread of any rank can
 * allocate without asking anyone, and the slice owner of an address knows
 * the block. Metadata lives outside the DSM (owner-private arrays), so
 * allocating never faults and other ranks cannot corrupt it; a rank freeing
 * another rank's block asks the owner's service thread. Small blocks come
 * from size classes carved out of 64 KiB spans; large blocks are page runs,
 * first fit over address-ordered free extents with coalescing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm_int.h"

#define SPAN_PAGES 16
#define SMALL_MAX 2048
#define TAG_LARGE 0x10000000u
#define TAG_SMALL 0x20000000u
#define TAG_MASK 0xf0000000u

static const uint32_t class_size[] = {16,  32,  48,  64,  96,   128,  192,
                                      256, 384, 512, 768, 1024, 1536, 2048};
#define NCLASSES (sizeof class_size / sizeof class_size[0])

typedef struct extent {
    size_t first, n; /* page indices */
} extent_t;

static struct {
    pthread_mutex_t mu;
    uint32_t *info;      /* per page of my slice: TAG | npages or class */
    size_t lo, hi, bump; /* my slice [lo, hi) and never-used pages */
    extent_t *ext;       /* free extents, address ordered */
    size_t next, cap;
    struct {
        uintptr_t *free;
        size_t n, cap;
        uintptr_t cur, end; /* carving the current span */
    } cls[NCLASSES];
    size_t in_use;
} heap = {.mu = PTHREAD_MUTEX_INITIALIZER};

hcrt_status_t hcrt__dsm_alloc_init(void)
{
    heap.lo = (size_t)dsm.rank * dsm.slice_pages;
    heap.hi = heap.lo + dsm.slice_pages - dsm.stack_pages; /* stacks.c */
    if (dsm.rank == 0)
        heap.lo = 1; /* page 0 stays a guard: touching it is a segfault */
    heap.bump = heap.lo;
    heap.info =
        mmap(NULL, dsm.slice_pages * sizeof(uint32_t), PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (heap.info == MAP_FAILED)
        return HCRT_ERR_NOMEM;
    return HCRT_OK;
}

void hcrt__dsm_alloc_fini(void)
{
    munmap(heap.info, dsm.slice_pages * sizeof(uint32_t));
    free(heap.ext);
    for (size_t c = 0; c < NCLASSES; c++)
        free(heap.cls[c].free);
    memset(&heap.cls, 0, sizeof heap.cls);
    heap.ext = NULL;
    heap.next = heap.cap = heap.in_use = 0;
}

static uint32_t *info_of(size_t page)
{
    return &heap.info[page - (size_t)dsm.rank * dsm.slice_pages];
}

static uintptr_t addr_of(size_t page)
{
    return dsm.areas[0].base + (page << DSM_PAGE_SHIFT);
}

static void ext_insert(size_t first, size_t n)
{
    size_t i = 0;
    while (i < heap.next && heap.ext[i].first < first)
        i++;
    if (i > 0 && heap.ext[i - 1].first + heap.ext[i - 1].n == first) {
        heap.ext[i - 1].n += n; /* merge with the previous extent */
        if (i < heap.next && first + n == heap.ext[i].first) {
            heap.ext[i - 1].n += heap.ext[i].n;
            memmove(&heap.ext[i], &heap.ext[i + 1],
                    (heap.next - i - 1) * sizeof *heap.ext);
            heap.next--;
        }
        return;
    }
    if (i < heap.next && first + n == heap.ext[i].first) {
        heap.ext[i].first = first;
        heap.ext[i].n += n;
        return;
    }
    if (heap.next == heap.cap) {
        heap.cap = heap.cap ? 2 * heap.cap : 64;
        heap.ext = realloc(heap.ext, heap.cap * sizeof *heap.ext);
        if (!heap.ext)
            hcrt_fatal(HCRT_MOD_DSM, "out of memory in the DSM allocator");
    }
    memmove(&heap.ext[i + 1], &heap.ext[i], (heap.next - i) * sizeof *heap.ext);
    heap.ext[i] = (extent_t){first, n};
    heap.next++;
}

/* Takes n pages aligned to `apages`; *fresh tells they were never used
 * (hence zero). Returns the first page or 0 when the slice is full. */
static size_t pages_take(size_t n, size_t apages, int *fresh)
{
    for (size_t i = 0; i < heap.next; i++) {
        extent_t *e = &heap.ext[i];
        size_t s = (e->first + apages - 1) / apages * apages;
        if (s + n > e->first + e->n)
            continue;
        size_t head = s - e->first, tail = e->first + e->n - (s + n);
        size_t efirst = e->first;
        memmove(e, e + 1, (heap.next - i - 1) * sizeof *e);
        heap.next--;
        if (head)
            ext_insert(efirst, head);
        if (tail)
            ext_insert(s + n, tail);
        *fresh = 0;
        return s;
    }
    size_t s = (heap.bump + apages - 1) / apages * apages;
    if (s + n > heap.hi || s + n < s)
        return 0;
    if (s > heap.bump)
        ext_insert(heap.bump, s - heap.bump);
    heap.bump = s + n;
    *fresh = 1;
    return s;
}

static void *large_alloc(size_t size, size_t align, int *fresh)
{
    size_t n = (size + DSM_PAGE - 1) / DSM_PAGE;
    size_t ap = align > DSM_PAGE ? align / DSM_PAGE : 1;
    size_t p = pages_take(n, ap, fresh);
    if (!p)
        return NULL;
    *info_of(p) = TAG_LARGE | (uint32_t)n;
    heap.in_use += n * DSM_PAGE;
    if (*fresh)
        hcrt__dsm_home_assign_block(p, n);
    return (void *)addr_of(p);
}

static int class_of(size_t size, size_t align)
{
    for (size_t c = 0; c < NCLASSES; c++) {
        uint32_t s = class_size[c];
        if (s >= size && (align <= 16 || (s % align == 0 && !(s & (s - 1)))))
            return (int)c;
    }
    return -1;
}

static void *small_alloc(int c, int *fresh)
{
    typeof(heap.cls[0]) *k = &heap.cls[c];
    *fresh = 0;
    if (k->n) {
        heap.in_use += class_size[c];
        return (void *)k->free[--k->n];
    }
    if (k->cur + class_size[c] > k->end) {
        int f;
        size_t p = pages_take(SPAN_PAGES, 1, &f);
        if (!p)
            return NULL;
        for (size_t i = 0; i < SPAN_PAGES; i++)
            *info_of(p + i) = TAG_SMALL | (uint32_t)c;
        if (f)
            hcrt__dsm_home_assign_block(p, SPAN_PAGES);
        k->cur = addr_of(p);
        k->end = k->cur + SPAN_PAGES * DSM_PAGE;
        *fresh = f;
    }
    void *r = (void *)k->cur;
    k->cur += class_size[c];
    heap.in_use += class_size[c];
    return r;
}

static void exhausted(size_t size)
{
    hcrt_error(HCRT_MOD_DSM,
               "DSM heap exhausted on rank %d: cannot allocate %zu bytes "
               "(this rank's slice of the DSM range is %zu MiB, %zu MiB in "
               "use; HCRT_DSM_SIZE=%zu MiB is split over %d ranks). Raise "
               "HCRT_DSM_SIZE",
               dsm.rank, size, (dsm.slice_pages * DSM_PAGE) >> 20,
               heap.in_use >> 20, dsm.areas[0].len >> 20, dsm.size);
    errno = ENOMEM;
}

static void *dsm_alloc(size_t size, size_t align, int *fresh)
{
    if (!dsm.ready) {
        errno = ENOMEM;
        return NULL;
    }
    if (size == 0)
        size = 1;
    void *r;
    pthread_mutex_lock(&heap.mu);
    int c =
        size <= SMALL_MAX && align <= SMALL_MAX ? class_of(size, align) : -1;
    r = c >= 0 ? small_alloc(c, fresh) : large_alloc(size, align, fresh);
    pthread_mutex_unlock(&heap.mu);
    if (!r)
        exhausted(size);
    return r;
}

void *hcrt__dsm_malloc(size_t size)
{
    int fresh;
    return dsm_alloc(size, 16, &fresh);
}

void *hcrt__dsm_calloc(size_t n, size_t size)
{
    size_t total;
    if (__builtin_mul_overflow(n, size, &total)) {
        errno = ENOMEM;
        return NULL;
    }
    int fresh;
    void *p = dsm_alloc(total, 16, &fresh);
    if (p && !fresh)
        memset(p, 0, total); /* reused memory: zero it coherently */
    return p;
}

void *hcrt__dsm_aligned_alloc(size_t align, size_t size)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    int fresh;
    return dsm_alloc(size, align < 16 ? 16 : align, &fresh);
}

int hcrt__dsm_posix_memalign(void **out, size_t align, size_t size)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    int fresh;
    void *p = dsm_alloc(size, align < 16 ? 16 : align, &fresh);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

/* Owner side of free/size; returns 0 for a pointer that is not a block. */
static size_t block_size(uintptr_t p, uint32_t **info)
{
    long idx = hcrt__dsm_page_index(p, NULL);
    if (idx < (long)heap.lo || idx >= (long)heap.bump)
        return 0;
    *info = info_of((size_t)idx);
    uint32_t v = **info;
    if ((v & TAG_MASK) == TAG_LARGE)
        return (p & (DSM_PAGE - 1)) ? 0 : (size_t)(v & ~TAG_MASK) * DSM_PAGE;
    if ((v & TAG_MASK) == TAG_SMALL)
        return class_size[v & ~TAG_MASK];
    return 0;
}

static uint64_t local_free(uintptr_t p)
{
    uint32_t *info;
    pthread_mutex_lock(&heap.mu);
    size_t sz = block_size(p, &info);
    if (sz == 0) {
        pthread_mutex_unlock(&heap.mu);
        return 1;
    }
    uint32_t v = *info;
    if ((v & TAG_MASK) == TAG_LARGE) {
        size_t first = (size_t)hcrt__dsm_page_index(p, NULL);
        *info = 0;
        ext_insert(first, sz / DSM_PAGE);
    } else {
        typeof(heap.cls[0]) *k = &heap.cls[v & ~TAG_MASK];
        if (k->n == k->cap) {
            k->cap = k->cap ? 2 * k->cap : 256;
            k->free = realloc(k->free, k->cap * sizeof *k->free);
            if (!k->free)
                hcrt_fatal(HCRT_MOD_DSM, "out of memory in the allocator");
        }
        k->free[k->n++] = p;
    }
    heap.in_use -= sz;
    pthread_mutex_unlock(&heap.mu);
    return 0;
}

uint64_t hcrt__dsm_alloc_serve_free(uintptr_t p)
{
    return local_free(p);
}

uint64_t hcrt__dsm_alloc_serve_size(uintptr_t p)
{
    uint32_t *info;
    pthread_mutex_lock(&heap.mu);
    size_t sz = block_size(p, &info);
    pthread_mutex_unlock(&heap.mu);
    return sz;
}

void hcrt__dsm_free(void *p)
{
    if (!p)
        return;
    long idx = hcrt__dsm_page_index((uintptr_t)p, NULL);
    if (!dsm.ready || idx < 0 || (size_t)idx >= dsm.areas[0].len / DSM_PAGE) {
        free(p); /* not ours: the C library's */
        return;
    }
    int owner = hcrt__dsm_slice_owner((size_t)idx);
    if (owner != dsm.rank && hcrt__wait_is_failed(owner))
        return; /* FT mode: the block went with its lost owner's heap */
    uint64_t bad = owner == dsm.rank
                       ? local_free((uintptr_t)p)
                       : hcrt__dsm_call(owner, M_FREE, (uintptr_t)p, 0, 0, 0);
    if (bad)
        hcrt_error(HCRT_MOD_DSM,
                   "free(%p): not a block of the DSM heap "
                   "(double free or corrupted pointer)",
                   p);
}

size_t hcrt__dsm_usable_size(void *p)
{
    long idx = hcrt__dsm_page_index((uintptr_t)p, NULL);
    if (!p || !dsm.ready || idx < 0 ||
        (size_t)idx >= dsm.areas[0].len / DSM_PAGE)
        return 0;
    int owner = hcrt__dsm_slice_owner((size_t)idx);
    if (owner == dsm.rank)
        return hcrt__dsm_alloc_serve_size((uintptr_t)p);
    return hcrt__dsm_call(owner, M_SIZE, (uintptr_t)p, 0, 0, 0);
}

void *hcrt__dsm_realloc(void *p, size_t size)
{
    if (!p)
        return hcrt__dsm_malloc(size);
    if (!hcrt__dsm_contains(p))
        return realloc(p, size);
    if (size == 0) {
        hcrt__dsm_free(p);
        return NULL;
    }
    size_t old = hcrt__dsm_usable_size(p);
    if (old >= size && old / 2 < size)
        return p;
    void *q = hcrt__dsm_malloc(size);
    if (!q)
        return NULL;
    memcpy(q, p, old < size ? old : size); /* faults bring remote data */
    hcrt__dsm_free(p);
    return q;
}
