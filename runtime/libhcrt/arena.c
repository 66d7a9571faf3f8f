/*
 * arena.c - the program's memory allocated before main in a cluster job.
 *
 * Static constructors run before the DSM exists (C++ globals such as
 * `std::vector<double> table(4096)`, C constructors that malloc). In a job
 * that will run in cluster mode (a launcher says more than one rank, and
 * HCRT_CLUSTER is not 0) their heap blocks come from this arena: a bump
 * allocator in a reservation at a fixed address below the DSM range, the
 * same in every rank (the binary is the same and runs without ASLR). At
 * start-up the used part becomes a DSM area homed on the head, like the
 * globals section: every rank ran the same constructors, so every rank
 * starts from the same bytes, and what the head changes later reaches the
 * others through the DSM. Blocks are never reused: free is a no-op,
 * realloc moves the block to the heap of the moment.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/heap.h"

#define ARENA_SIZE (UINT64_C(1) << 30)   /* reserved, not committed */
#define ARENA_BELOW (UINT64_C(64) << 30) /* under the DSM range */
#define DEFAULT_DSM_ADDR UINT64_C(0x200000000000)
#define HDR 16 /* a block's size lives in the 8 bytes before it */

static uintptr_t base, top, end;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* The DSM range's address, as the DSM will read it (HCRT_DSM_ADDR). */
static uintptr_t dsm_addr(void)
{
    const char *v = getenv("HCRT_DSM_ADDR");
    char *e;
    unsigned long long a = v ? strtoull(v, &e, 0) : 0;

    return v && *v && !*e && a > ARENA_BELOW + ARENA_SIZE ? (uintptr_t)a
                                                          : DEFAULT_DSM_ADDR;
}

int hcrt__arena_open(void)
{
    uintptr_t at = dsm_addr() - ARENA_BELOW;
    void *p =
        mmap((void *)at, ARENA_SIZE, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE,
             -1, 0);

    if (p == MAP_FAILED)
        return 0;
    if ((uintptr_t)p != at) { /* a kernel without MAP_FIXED_NOREPLACE */
        munmap(p, ARENA_SIZE);
        return 0;
    }
    base = top = at;
    end = at + ARENA_SIZE;
    return 1;
}

int hcrt__arena_contains(const void *p)
{
    return (uintptr_t)p >= base && (uintptr_t)p < end;
}

void *hcrt__arena_alloc(size_t size, size_t align)
{
    uintptr_t p;

    if (align < HDR)
        align = HDR;
    pthread_mutex_lock(&mu);
    p = (top + HDR + align - 1) & ~(uintptr_t)(align - 1);
    if (size > end - p) {
        pthread_mutex_unlock(&mu);
        errno = ENOMEM;
        return NULL;
    }
    top = p + size;
    ((size_t *)p)[-1] = size;
    pthread_mutex_unlock(&mu);
    return (void *)p; /* fresh pages: already zero */
}

size_t hcrt__arena_usable(const void *p)
{
    return ((const size_t *)p)[-1];
}

/* Collective over comm, before hcrt__dsm_init: the used part (the most
 * any rank used) becomes a DSM area homed on rank 0. */
void hcrt__arena_share(MPI_Comm comm)
{
    uint64_t used = base ? (top - base + 4095) & ~UINT64_C(4095) : 0, most = 0;

    hcrt__heap_mode = HCRT_HEAP_LIBC; /* the arena takes nothing more */
    MPI_Allreduce(&used, &most, 1, MPI_UINT64_T, MPI_MAX, comm);
    if (!most)
        return;
    if (!base) /* a rank without the arena while another had one */
        hcrt_fatal(HCRT_MOD_CORE,
                   "memory allocated before main could not be placed at the "
                   "same address on every rank (%#lx is taken on this one); "
                   "set HCRT_DSM_ADDR to a free range on every host",
                   (unsigned long)(dsm_addr() - ARENA_BELOW));
    if (hcrt__dsm_add_area((void *)base, (void *)(base + most)) != HCRT_OK)
        hcrt_fatal(HCRT_MOD_CORE, "cannot share the memory allocated before "
                                  "main (see above)");
    hcrt_debug(HCRT_MOD_CORE, "%llu KiB allocated before main shared",
               (unsigned long long)(most >> 10));
}
