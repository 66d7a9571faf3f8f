/*
 * cluster_copy.c - copyprivate across the nodes of a cluster team.
 *
 * The pass hands over only pointers to the copied variables and the copy
 * function clang generated; the variables' sizes are not known. The thread
 * that ran the single (cluster thread 0) learns them by running the copy
 * function twice into scratch slots pre-filled with 0x00 and 0xff: every
 * byte it writes differs from at least one pattern, so the extent is exact.
 * Each slot is followed by a PROT_NONE guard page: a variable larger than a
 * slot stops the run with a fault instead of corrupting memory. The values
 * then travel in one DSM block published through a per-construct DSM word,
 * between the two barriers copyprivate has anyway.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"

#define SLOT ((size_t)1 << 20) /* largest copyprivate variable */
#define GUARD ((size_t)4096)

/* nvars slots filled with `fill`, each followed by a guard page. */
static char *slots_map(size_t nvars, int fill, void **dst)
{
    size_t step = SLOT + GUARD;
    char *m = mmap(NULL, nvars * step, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (m == MAP_FAILED)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory staging copyprivate data");
    for (size_t i = 0; i < nvars; i++) {
        if (fill)
            memset(m + i * step, fill, SLOT);
        mprotect(m + i * step + SLOT, GUARD, PROT_NONE);
        dst[i] = m + i * step;
    }
    return m;
}

static size_t extent(const unsigned char *p, unsigned char fill)
{
    size_t n = SLOT;

    while (n > 0 && p[n - 1] == fill)
        n--;
    return n;
}

/* Packs [nvars][len_0..len_n-1][bytes...] into a DSM block. */
static uint64_t *stage(size_t nvars, void **src, hcrt_cpy_fn_t fn)
{
    void **da = calloc(2 * nvars, sizeof(void *)), **db = da + nvars;
    size_t step = SLOT + GUARD, total = 0;

    if (!da)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory staging copyprivate data");
    char *a = slots_map(nvars, 0x00, da), *b = slots_map(nvars, 0xff, db);
    fn(da, src);
    fn(db, src);
    size_t *len = calloc(nvars, sizeof(size_t));
    if (!len)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory staging copyprivate data");
    for (size_t i = 0; i < nvars; i++) {
        size_t la = extent(da[i], 0x00), lb = extent(db[i], 0xff);
        len[i] = la > lb ? la : lb;
        total += (len[i] + 7) & ~(size_t)7;
    }
    uint64_t *blob = hcrt__dsm_malloc((1 + nvars) * 8 + total);
    if (!blob)
        hcrt_fatal(HCRT_MOD_CORE, "out of DSM memory staging copyprivate");
    blob[0] = nvars;
    char *out = (char *)(blob + 1 + nvars);
    for (size_t i = 0; i < nvars; i++) {
        blob[1 + i] = len[i];
        memcpy(out, da[i], len[i]);
        out += (len[i] + 7) & ~(size_t)7;
    }
    munmap(a, nvars * step);
    munmap(b, nvars * step);
    free(len);
    free(da);
    return blob;
}

/* Calls the copy function with sources pointing into the DSM block. */
static void unpack(const uint64_t *blob, void **dst, hcrt_cpy_fn_t fn)
{
    size_t nvars = blob[0];
    void **src = calloc(nvars ? nvars : 1, sizeof(void *));
    const char *in = (const char *)(blob + 1 + nvars);

    if (!src)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory for copyprivate");
    for (size_t i = 0; i < nvars; i++) {
        src[i] = (void *)in;
        in += (blob[1 + i] + 7) & ~(size_t)7;
    }
    fn(dst, src);
    free(src);
}

void hcrt__cluster_copyprivate(hcrt_ident_t *loc, int32_t gtid, size_t size,
                               void *data, hcrt_cpy_fn_t fn, int32_t didit)
{
    size_t nvars = size / sizeof(void *);
    uint64_t *slot = hcrt__cluster_slot(hcrt__cluster_next_ws());
    uint64_t *blob = NULL;

    if (didit) {
        blob = stage(nvars, data, fn);
        hcrt__dsm_atomic(slot, 8, HCRT_DSM_AT_INT, HCRT_DSM_AOP_STORE,
                         (uint64_t)(uintptr_t)blob, 0, __ATOMIC_RELAXED);
    }
    hcrt__cluster_barrier(loc, gtid); /* the block is released and seen */
    if (!didit) {
        blob = (uint64_t *)(uintptr_t)hcrt__dsm_atomic(slot, 8, HCRT_DSM_AT_INT,
                                                       HCRT_DSM_AOP_LOAD, 0, 0,
                                                       __ATOMIC_RELAXED);
        if (!blob || blob[0] != nvars)
            hcrt_fatal(HCRT_MOD_CORE, "internal error: copyprivate data "
                                      "missing");
        unpack(blob, data, fn);
    }
    hcrt__cluster_barrier(loc, gtid); /* everyone has copied */
    if (didit)
        hcrt__dsm_free(blob);
}
