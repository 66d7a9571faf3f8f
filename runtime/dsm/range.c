/*
 * range.c - the fixed virtual range, added areas and per-page arrays.
 *
 * The range is reserved PROT_NONE with MAP_NORESERVE, so its size costs no
 * memory until pages are touched. MAP_FIXED_NOREPLACE makes a collision with
 * something already mapped there (a library, PMIx's shared memory...) a clear
 * error instead of silently clobbering it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "dsm/dsm_int.h"

struct dsm_state dsm;

static struct {
    uintptr_t begin, end;
} pending_areas[DSM_MAX_AREAS];
static int npending;

#define NO_ASLR_MARK "HCRT_DSM_REEXECED"

/* Execs /proc/self/exe again with randomisation off. The kernel names a
 * process after the file it execs ("exe" here), which ps, top, pgrep and
 * job managers show: the process's own name travels in the environment
 * mark and is set back in the second life. */
void hcrt__dsm_prepare_address_space(int argc, char **argv)
{
    (void)argc;
    const char *off = getenv("HCRT_DSM_NO_ASLR");
    if (off && off[0] == '0')
        return;
    const char *mark = getenv(NO_ASLR_MARK);
    if (mark) { /* second life: done (or it did not stick) */
        if (*mark)
            prctl(PR_SET_NAME, mark);
        unsetenv(NO_ASLR_MARK);
        return;
    }
    int pers = personality(0xffffffff);
    if (pers == -1 || (pers & ADDR_NO_RANDOMIZE))
        return;
    if (personality(pers | ADDR_NO_RANDOMIZE) == -1)
        return;
    char name[17] = {0}; /* the kernel's 16 bytes, terminated */
    if (prctl(PR_GET_NAME, name) != 0)
        name[0] = '\0';
    setenv(NO_ASLR_MARK, name, 1);
    execv("/proc/self/exe", argv);
    /* exec failed: run with randomisation; init checks addresses match. */
    unsetenv(NO_ASLR_MARK);
    hcrt_warn(HCRT_MOD_DSM,
              "could not re-execute /proc/self/exe without address "
              "randomisation (%s); globals may map differently per rank",
              strerror(errno));
}

hcrt_status_t hcrt__dsm_add_area(void *begin, void *end)
{
    uintptr_t b = ((uintptr_t)begin + DSM_PAGE - 1) & ~(DSM_PAGE - 1);
    uintptr_t e = (uintptr_t)end & ~(DSM_PAGE - 1);
    if (dsm.ready || npending + 1 >= DSM_MAX_AREAS) {
        hcrt_error(HCRT_MOD_DSM, "cannot add DSM area %p-%p: %s", begin, end,
                   dsm.ready ? "the DSM is already initialised (add areas "
                               "before hcrt__dsm_init)"
                             : "too many areas");
        return HCRT_ERR_INVALID;
    }
    if ((uintptr_t)end != e)
        hcrt_warn(HCRT_MOD_DSM,
                  "shared globals end at %p, inside a page: the %zu bytes "
                  "after %p are not kept coherent (pad the section to a page)",
                  end, (size_t)((uintptr_t)end - e), (void *)e);
    if (e <= b)
        return HCRT_OK;
    pending_areas[npending].begin = b;
    pending_areas[npending].end = e;
    npending++;
    return HCRT_OK;
}

static void *map_array(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static hcrt_status_t map_fixed_range(uintptr_t base, size_t size)
{
    void *p =
        mmap((void *)base, size, PROT_NONE,
             MAP_SHARED | MAP_FIXED_NOREPLACE | MAP_NORESERVE, dsm.memfd, 0);
    if (p == MAP_FAILED || (uintptr_t)p != base) {
        int err = errno;
        if (p != MAP_FAILED)
            munmap(p, size);
        hcrt_error(HCRT_MOD_DSM,
                   "cannot reserve the DSM range at %#lx (%zu MiB) on rank "
                   "%d: %s. Something is already mapped there (see "
                   "/proc/%d/maps); choose a free address with HCRT_DSM_ADDR "
                   "or a smaller HCRT_DSM_SIZE",
                   (unsigned long)base, size >> 20, dsm.rank,
                   p == MAP_FAILED && err == EEXIST
                       ? "address range already in use"
                       : strerror(err),
                   (int)getpid());
        return HCRT_ERR_NOMEM;
    }
    return HCRT_OK;
}

static int page_is_zero(const char *p)
{
    const uint64_t *w = (const uint64_t *)p;
    for (size_t i = 0; i < DSM_PAGE / sizeof(*w); i++)
        if (w[i])
            return 0;
    return 1;
}

/* Replaces an added area's pages by memfd pages holding the same bytes.
 * All-zero pages (the zero-initialised globals, most of the area in
 * programs with large static arrays) are not copied: the fresh memfd's
 * holes read as zero and take no memory until written. Copying them cost
 * NPB MG class W (60 MB of static arrays) ~100 ms of start-up per rank,
 * and as much again to tear the pages down at exit. */
static hcrt_status_t map_area(dsm_area_t *a, off_t off)
{
    const char *src = (const char *)a->base;
    /* pages never touched are zero and are not read (untouched.c) */
    uint8_t *skip = calloc(a->len / DSM_PAGE, 1);
    if (skip) {
        size_t n = hcrt__dsm_untouched(a->base, a->len, skip);
        hcrt_debug(HCRT_MOD_DSM,
                   "globals %#lx+%zu KiB: %zu of %zu pages untouched",
                   (unsigned long)a->base, a->len >> 10, n, a->len / DSM_PAGE);
    }
    for (size_t o = 0; o < a->len; o += DSM_PAGE)
        if (!(skip && skip[o / DSM_PAGE]) && !page_is_zero(src + o))
            memcpy(a->alias + o, src + o, DSM_PAGE);
    a->untouched = skip; /* hcrt__dsm_untouched_share */
    void *p = mmap((void *)a->base, a->len, PROT_READ, MAP_SHARED | MAP_FIXED,
                   dsm.memfd, off);
    if (p == MAP_FAILED) {
        hcrt_error(HCRT_MOD_DSM, "cannot remap shared globals %#lx+%zu: %s",
                   (unsigned long)a->base, (size_t)a->len, strerror(errno));
        return HCRT_ERR_NOMEM;
    }
    return HCRT_OK;
}

static hcrt_status_t map_alias(dsm_area_t *a, off_t off)
{
    void *p = mmap(NULL, a->len, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_NORESERVE, dsm.memfd, off);
    if (p == MAP_FAILED) {
        hcrt_error(HCRT_MOD_DSM, "cannot map the DSM alias view: %s",
                   strerror(errno));
        return HCRT_ERR_NOMEM;
    }
    a->alias = p;
    return HCRT_OK;
}

/* The directory is shared memory too: same-host peers map it (shm.c). */
static dsm_dir_t *map_dir(size_t n)
{
    dsm.dir_len = n * sizeof(dsm_dir_t);
    dsm.dirfd = memfd_create("hcrt-dsm-dir", MFD_CLOEXEC);
    if (dsm.dirfd < 0 || ftruncate(dsm.dirfd, (off_t)dsm.dir_len) != 0)
        return NULL;
    void *p = mmap(NULL, dsm.dir_len, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_NORESERVE, dsm.dirfd, 0);
    return p == MAP_FAILED ? NULL : p;
}

static hcrt_status_t alloc_arrays(void)
{
    size_t n = dsm.npages;
    dsm.pages = map_array(n * sizeof(dsm_page_t));
    dsm.dir = map_dir(n);
    dsm.twins = map_array(n * DSM_PAGE);
    dsm.cached = map_array(n * sizeof(uint32_t));
    dsm.live = map_array(n * sizeof(uint32_t));
    if (!dsm.pages || !dsm.dir || !dsm.twins || !dsm.cached || !dsm.live) {
        hcrt_error(HCRT_MOD_DSM,
                   "cannot reserve DSM page tables for %zu "
                   "pages: %s",
                   n, strerror(errno));
        return HCRT_ERR_NOMEM;
    }
    for (int i = 0; i < dsm.nareas; i++) {
        dsm_area_t *a = &dsm.areas[i];
        if (a->fixed_home == DSM_NO_HOME)
            continue; /* decided lazily by policy: see home.c */
        for (size_t j = 0; j < a->len / DSM_PAGE; j++)
            hcrt__dsm_home_set(a->first + j, a->fixed_home);
    }
    return HCRT_OK;
}

/* Added areas start valid and identical everywhere (same binary): every
 * rank holds a read-only copy that rank 0 (the home) knows about. */
static void seed_area_pages(dsm_area_t *a)
{
    uint64_t all = dsm.size >= 63 ? ~0ULL : ((1ULL << dsm.size) - 1);
    for (size_t j = 0; j < a->len / DSM_PAGE; j++) {
        size_t idx = a->first + j;
        atomic_store(&dsm.pages[idx].state, PG_RO);
        if (dsm.rank == 0) {
            atomic_store(&dsm.dir[idx].readers, all);
        } else {
            /* exempt only while notices are sent (classification on:
             * without it, and beyond 62 ranks, nobody is told) */
            atomic_store(&dsm.pages[idx].flags,
                         (uint8_t)((dsm.classify ? PF_EXEMPT : 0) | PF_CACHED));
            dsm.cached[dsm.ncached++] = (uint32_t)idx;
        }
    }
}

/* The keeper (HCRT_DSM_KEEPER): a `tail --pid` of this rank, started here
 * with this rank's two memfds as its fds 3 and 4, ends 50 ms at most
 * after the rank. Freeing a memfd's pages is the last reference's work:
 * ~0.12 ms per MiB, 2.6x anonymous memory (bench/dsm/shmem.sh), ~50 ms of
 * a 400 MiB program's exit. With the keeper the rank's exit only unmaps;
 * the keeper's end frees the pages once the rank has gone, while the
 * launcher winds the job down. It is not this rank's child (a shell
 * starts it in the background and exits), so a program that waits for
 * all its children does not wait for it. */
static void keeper_start(void)
{
    if (!hcrt__config_bool("HCRT_DSM_KEEPER") || access("/bin/sh", X_OK))
        return;
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    char *argv[] = {
        "sh", "-c", "tail -s 0.05 --pid=\"$1\" -f /dev/null & exit 0",
        "sh", pid,  NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    pid_t child = vfork();
    if (child == 0) { /* only system calls until the exec */
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0 ||
            dup2(null, 2) < 0 || dup2(dsm.memfd, 3) < 0 ||
            dup2(dsm.dirfd, 4) < 0)
            _exit(127);
        syscall(SYS_close_range, 5U, ~0U, 0U); /* MPI's sockets stay out */
        execve("/bin/sh", argv, envp);
        _exit(127);
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        hcrt_debug(HCRT_MOD_DSM, "no keeper process (%s)",
                   child < 0 ? strerror(errno) : "the shell failed");
}

hcrt_status_t hcrt__dsm_range_init(uintptr_t base, size_t size)
{
    hcrt_status_t st;
    size_t total = size;
    for (int i = 0; i < npending; i++)
        total += pending_areas[i].end - pending_areas[i].begin;
    dsm.nareas = 0;
    dsm.dirfd = -1;
    dsm.memfd_len = total;
    dsm.memfd = memfd_create("hcrt-dsm", MFD_CLOEXEC);
    if (dsm.memfd < 0 || ftruncate(dsm.memfd, (off_t)total) != 0) {
        hcrt_error(HCRT_MOD_DSM,
                   "cannot create the DSM backing file of "
                   "%zu MiB: %s",
                   total >> 20, strerror(errno));
        return HCRT_ERR_NOMEM;
    }
    if ((st = map_fixed_range(base, size)) != HCRT_OK)
        return st;
    dsm.areas[0] = (dsm_area_t){base, size, NULL, 0, DSM_NO_HOME, NULL};
    dsm.nareas = 1;
    size_t first = size / DSM_PAGE;
    for (int i = 0; i < npending; i++) {
        size_t len = pending_areas[i].end - pending_areas[i].begin;
        dsm.areas[dsm.nareas++] =
            (dsm_area_t){pending_areas[i].begin, len, NULL, first, 0, NULL};
        first += len / DSM_PAGE;
    }
    dsm.npages = first;
    off_t off = 0;
    for (int i = 0; i < dsm.nareas; i++) {
        if ((st = map_alias(&dsm.areas[i], off)) != HCRT_OK)
            return st;
        off += (off_t)dsm.areas[i].len;
    }
    if ((st = alloc_arrays()) != HCRT_OK)
        return st;
    keeper_start();
    off = (off_t)size;
    for (int i = 1; i < dsm.nareas; i++) {
        if ((st = map_area(&dsm.areas[i], off)) != HCRT_OK)
            return st;
        seed_area_pages(&dsm.areas[i]);
        off += (off_t)dsm.areas[i].len;
    }
    return HCRT_OK;
}

void hcrt__dsm_range_fini(void)
{
    size_t n = dsm.npages;
    /* The range stays mapped, plain read-write memory with this rank's
     * last view: C++ destructors of globals run after shutdown and read
     * their objects (a global std::map's nodes, a global stream's buffer
     * to flush), and so does glibc's exit code; threads may still run on
     * this rank's stacks (stacks.c) - the head's main calling exit(),
     * libomp's threads until libomp's own exit handler. */
    if (dsm.nareas > 0)
        mprotect((void *)dsm.areas[0].base, dsm.areas[0].len,
                 PROT_READ | PROT_WRITE);
    for (int i = 0; i < dsm.nareas; i++) {
        if (dsm.areas[i].alias)
            munmap(dsm.areas[i].alias, dsm.areas[i].len);
        free(dsm.areas[i].untouched);
        dsm.areas[i].untouched = NULL;
    }
    /* Added areas stay mapped (they are the program's globals) but become
     * plain read-write memory again. */
    for (int i = 1; i < dsm.nareas; i++)
        mprotect((void *)dsm.areas[i].base, dsm.areas[i].len,
                 PROT_READ | PROT_WRITE);
    if (dsm.pages)
        munmap(dsm.pages, n * sizeof(dsm_page_t));
    if (dsm.dir)
        munmap(dsm.dir, dsm.dir_len);
    if (dsm.dirfd >= 0)
        close(dsm.dirfd);
    dsm.dirfd = -1;
    if (dsm.twins)
        munmap(dsm.twins, n * DSM_PAGE);
    if (dsm.cached)
        munmap(dsm.cached, n * sizeof(uint32_t));
    if (dsm.live)
        munmap(dsm.live, n * sizeof(uint32_t));
    dsm.live = NULL;
    dsm.nlive = 0;
    if (dsm.memfd >= 0)
        close(dsm.memfd);
    dsm.pages = NULL;
    dsm.dir = NULL;
    dsm.twins = NULL;
    dsm.cached = NULL;
    dsm.memfd = -1;
    dsm.nareas = 0;
    dsm.npages = 0;
    dsm.ncached = 0;
    npending = 0;
}

long hcrt__dsm_page_index(uintptr_t p, dsm_area_t **area)
{
    for (int i = 0; i < dsm.nareas; i++) {
        dsm_area_t *a = &dsm.areas[i];
        if (p - a->base < a->len) {
            if (area)
                *area = a;
            return (long)(a->first + ((p - a->base) >> DSM_PAGE_SHIFT));
        }
    }
    return -1;
}

dsm_area_t *hcrt__dsm_area_of_page(size_t idx)
{
    for (int i = dsm.nareas - 1; i >= 0; i--)
        if (idx >= dsm.areas[i].first)
            return &dsm.areas[i];
    return &dsm.areas[0];
}

uintptr_t hcrt__dsm_page_addr(size_t idx)
{
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    return a->base + ((idx - a->first) << DSM_PAGE_SHIFT);
}

char *hcrt__dsm_page_alias(size_t idx)
{
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    return a->alias + ((idx - a->first) << DSM_PAGE_SHIFT);
}

int hcrt__dsm_contains(const void *p)
{
    return dsm.ready && hcrt__dsm_page_index((uintptr_t)p, NULL) >= 0;
}

void *hcrt__dsm_base(void)
{
    return dsm.ready ? (void *)dsm.areas[0].base : NULL;
}

size_t hcrt__dsm_size(void)
{
    return dsm.ready ? dsm.areas[0].len : 0;
}
