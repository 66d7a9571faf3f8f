/*
 * tprivate.c - threadprivate variables that libomp keeps (cached).
 *
 * Clang makes a threadprivate variable native TLS (cluster_place.c moves
 * those blocks); flang, and clang with -fno-openmp-use-tls, instead ask
 * __kmpc_threadprivate_cached for the calling thread's copy of the
 * variable, on entry to every function that names it (in Fortran: every
 * function that `use`s a module with a threadprivate variable). libomp
 * keeps its table of copies in the variable's `cache` word, a global of
 * the program, and the master thread's copy is the variable itself.
 *
 * The pass keeps libomp's entry point in regions it runs on the head
 * (their code is in the same file as the call), and renames every other
 * call to __hcrt_threadprivate_cached: a function in another file, called
 * from a region that runs on every node. In a cluster job the `cache`
 * word is DSM memory: a worker that asked libomp found the head's table
 * there and followed a pointer into the head's heap (NPB BT, SP and LU in
 * Fortran: their `exact_solution` crashed every worker). So:
 * - the head asks libomp, as on one node (its threads are the team's first
 *   ones; its master thread's copy is the variable);
 * - a worker's thread keeps its own copies, made at its first reference
 *   from the variable's initial image (the bytes the executable or library
 *   file holds for it, or zeros for .bss), which is what a non-master
 *   thread's copy starts from in libomp too, and kept for the process's
 *   life, so the values a logical thread left persist to its next region
 *   on the same node.
 * Limit: such copies do not move with region placement (docs/runtime.md).
 */
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/proc.h"
#include "libhcrt/cluster.h"
#include "libhcrt/core.h"

typedef struct tp_copy {
    const void *var;
    void *copy;
} tp_copy_t;

static _Thread_local tp_copy_t *copies;
static _Thread_local int ncopies, capcopies;

typedef struct image_query {
    uintptr_t addr;
    size_t size;
    char *out;
    int found;
} image_query_t;

/* Fills q->out from the PT_LOAD segment that holds q->addr, if any. */
static int find_image(struct dl_phdr_info *info, size_t len, void *arg)
{
    image_query_t *q = arg;
    (void)len;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type != PT_LOAD || q->addr < lo ||
            q->addr + q->size > lo + ph->p_memsz)
            continue;
        size_t off = q->addr - lo, from_file = 0;
        if (off < ph->p_filesz)
            from_file =
                ph->p_filesz - off < q->size ? ph->p_filesz - off : q->size;
        memset(q->out + from_file, 0, q->size - from_file);
        if (from_file) {
            const char *path = info->dlpi_name && info->dlpi_name[0]
                                   ? info->dlpi_name
                                   : "/proc/self/exe";
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            ssize_t got = fd < 0 ? -1
                                 : pread(fd, q->out, from_file,
                                         (off_t)(ph->p_offset + off));
            if (fd >= 0)
                close(fd);
            if (got != (ssize_t)from_file)
                return 0; /* not readable: take the current value */
        }
        q->found = 1;
        return 1;
    }
    return 0;
}

static void *new_copy(const void *var, size_t size)
{
    void *c = malloc(size ? size : 1); /* libhcrt's own: private memory */
    if (!c)
        hcrt_fatal(HCRT_MOD_CORE,
                   "out of memory for a %zu-byte copy of a threadprivate "
                   "variable",
                   size);
    image_query_t q = {(uintptr_t)var, size, c, 0};
    dl_iterate_phdr(find_image, &q);
    if (!q.found) /* not in a loaded file (heap memory): its current bytes */
        memcpy(c, var, size);
    if (ncopies == capcopies) {
        int cap = capcopies ? 2 * capcopies : 8;
        tp_copy_t *t = realloc(copies, (size_t)cap * sizeof *t);
        if (!t)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory for threadprivate copies");
        copies = t, capcopies = cap;
    }
    copies[ncopies].var = var;
    copies[ncopies].copy = c;
    ncopies++;
    return c;
}

HCRT_ABI_EXPORT void *__hcrt_threadprivate_cached(hcrt_ident_t *loc,
                                                  int32_t gtid, void *data,
                                                  size_t size, void ***cache)
{
    if (!HCRT_UNLIKELY(hcrt__cluster_on) || hcrt__rank() == 0)
        return __kmpc_threadprivate_cached(loc, gtid, data, size, cache);
    for (int i = ncopies - 1; i >= 0; i--)
        if (copies[i].var == data)
            return copies[i].copy;
    return new_copy(data, size);
}
