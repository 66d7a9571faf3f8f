/*
 * untouched.c - which pages of an area nobody has touched yet.
 *
 * An area added at start-up (the program's globals) is copied into the
 * DSM's backing file page by page, skipping zero pages (range.c). Reading
 * a page to see whether it is zero faults it in: NPB MG class A has 473 MB
 * of zero-initialised arrays, 115 000 read faults per rank (~100 ms). A
 * page of a private anonymous mapping (the .bss beyond the file, memory
 * allocated before main) that the kernel has neither mapped nor swapped
 * out was never touched, so it reads as zero: /proc/self/pagemap says so
 * without touching it. Pages of file mappings (.data, the file's part of
 * the .bss's first page) hold the file's bytes until touched: they are
 * always read.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dsm/dsm_int.h"

#define PM_PRESENT (1ULL << 63)
#define PM_SWAPPED (1ULL << 62)
#define PM_BATCH 512

/* Marks skip[i] for the untouched pages of [lo, hi) (page-aligned), an
 * anonymous mapping's overlap with the area at `base`. */
static size_t mark_range(int pm, uintptr_t base, uintptr_t lo, uintptr_t hi,
                         uint8_t *skip)
{
    uint64_t e[PM_BATCH];
    size_t n = 0;

    for (uintptr_t a = lo; a < hi;) {
        size_t k = (hi - a) / DSM_PAGE;
        if (k > PM_BATCH)
            k = PM_BATCH;
        off_t off = (off_t)(a / DSM_PAGE * sizeof(uint64_t));
        ssize_t got = pread(pm, e, k * sizeof(uint64_t), off);
        if (got <= 0)
            return n;
        k = (size_t)got / sizeof(uint64_t);
        for (size_t i = 0; i < k; i++)
            if (!(e[i] & (PM_PRESENT | PM_SWAPPED))) {
                skip[(a - base) / DSM_PAGE + i] = 1;
                n++;
            }
        a += k * DSM_PAGE;
    }
    return n;
}

size_t hcrt__dsm_untouched(uintptr_t base, size_t len, uint8_t *skip)
{
    char line[512];
    size_t n = 0;
    uintptr_t end = base + len;

    memset(skip, 0, len / DSM_PAGE);
    if (sysconf(_SC_PAGESIZE) != (long)DSM_PAGE)
        return 0;
    FILE *maps = fopen("/proc/self/maps", "re");
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    while (maps && pm >= 0 && fgets(line, sizeof line, maps)) {
        uintptr_t lo, hi;
        char perms[8];
        unsigned long long inode;
        int path = 0;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s %*s %*s %llu %n", &lo,
                   &hi, perms, &inode, &path) < 4)
            continue;
        /* private, no file, not a special mapping ([stack], [vvar], ...) */
        if (inode != 0 || perms[3] != 'p' ||
            (path && line[path] == '[' && strncmp(line + path, "[heap]", 6)))
            continue;
        if (lo < base)
            lo = base;
        if (hi > end)
            hi = end;
        if (lo < hi)
            n += mark_range(pm, base, lo, hi, skip);
    }
    if (maps)
        fclose(maps);
    if (pm >= 0)
        close(pm);
    return n;
}
