/*
 * shm.c - the same-host fast path: ranks on one host map each other's DSM
 * storage, so a miss on a page homed next door needs no message.
 *
 * Every rank's pages live in its memfd (master copies of its home pages
 * included) and its directory in a second memfd. At start-up the ranks of
 * one host (MPI_COMM_TYPE_SHARED: Open MPI's idea of a node) open each
 * other's memfds through /proc/<pid>/fd/<n>, check by device and inode
 * that they reached the very object, and map them. Then a miss makes the
 * application view map the home's master pages themselves (a "live" view:
 * pages.c, map_live), read-only, and read-write once the rank registered
 * as their writer in the home's directory (with the same atomics the home
 * uses). No rank holds a copy of a page homed on its host: the ranks of a
 * host share its pages as threads share memory, and nothing is diffed or
 * invalidated between them. Ranks the MPI library places on different
 * nodes (network namespaces included: they are how this machine plays
 * several hosts) keep the message path.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "dsm/dsm_int.h"

/* The base mapping of a page: with the allocating-rank home policy, the
 * heap slice of a same-host peer maps that peer's memfd from start-up, so
 * a read miss there is a mere mprotect; everything else maps own pages. */
static int base_home(size_t idx)
{
    return dsm.premapped && idx < dsm.areas[0].len / DSM_PAGE &&
           hcrt__dsm_shm_peer(hcrt__dsm_slice_owner(idx));
}

int hcrt__dsm_maps_home(size_t idx)
{
    return base_home(idx) ^ !!(atomic_load(&dsm.pages[idx].flags) & PF_FLIP);
}

/* ---- userfaultfd minor faults on the premapped slices ---- */

/* Is [idx, ...) a base view of a premapped slice held by the userfaultfd
 * (mapped readable, no page-table entry while invalid)? Runs of pages lie
 * in one slice (one home), so the first page decides. */
static int uffd_view(size_t idx)
{
    return dsm.uffd >= 0 && base_home(idx);
}

static int uffd_register(uintptr_t addr, size_t len)
{
    struct uffdio_register r = {.range = {addr, len},
                                .mode = UFFDIO_REGISTER_MODE_MINOR};
    if (ioctl(dsm.uffd, UFFDIO_REGISTER, &r) != 0)
        return -1;
    return (r.ioctls & (1ULL << _UFFDIO_CONTINUE)) ? 0 : -1;
}

/* Installs the page-table entries of [addr, addr+len) from the home's page
 * cache. Pages already mapped (another thread was first) are skipped, and
 * so are pages the home never touched: the access allocates them. */
static int uffd_continue(uintptr_t addr, size_t len)
{
    while (len > 0) {
        struct uffdio_continue c = {.range = {addr, len}};
        if (ioctl(dsm.uffd, UFFDIO_CONTINUE, &c) == 0)
            return 0;
        int e = errno;
        size_t done = c.mapped > 0 ? (size_t)c.mapped : 0;
        if (e == EAGAIN) { /* partly done, or the mm was changing */
            addr += done;
            len -= done;
            continue;
        }
        if (e != EEXIST && e != EFAULT)
            return -1;
        done += DSM_PAGE; /* the page at addr + done: nothing to map */
        if (done >= len)
            return 0;
        addr += done;
        len -= done;
    }
    return 0;
}

int hcrt__dsm_uffd_map(size_t idx)
{
    if (!uffd_view(idx) || hcrt__dsm_maps_home(idx) != 1)
        return -1;
    return uffd_continue(hcrt__dsm_page_addr(idx), DSM_PAGE);
}

/* Opens the userfaultfd (HCRT_DSM_UFFD); -1 when the kernel refuses. */
static int uffd_open(const char **why)
{
    *why = NULL;
    if (dsm.uffd_mode == SHM_OFF)
        return -1;
#ifdef UFFD_USER_MODE_ONLY
    /* Unprivileged processes may only handle faults of user mode, which
     * are the ones the DSM needs (system calls on DSM memory are made
     * resident first, as with PROT_NONE pages). */
    int fd = (int)syscall(SYS_userfaultfd,
                          O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
#else
    int fd = -1;
    errno = ENOSYS;
#endif
    if (fd < 0)
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        *why = strerror(errno);
        return -1;
    }
    struct uffdio_api api = {.api = UFFD_API,
                             .features = UFFD_FEATURE_SIGBUS |
                                         UFFD_FEATURE_MINOR_SHMEM};
    if (ioctl(fd, UFFDIO_API, &api) != 0) {
        *why = "the kernel lacks minor faults on shared memory (Linux 5.13+)";
        close(fd);
        return -1;
    }
    return fd;
}

static void map_pages_as(size_t idx, size_t n, int home, int prot, int populate)
{
    dsm_area_t *a = hcrt__dsm_area_of_page(idx);
    int fd = home == dsm.rank ? dsm.memfd : dsm.peer_fd[home];
    /* the base view of a userfaultfd slice: registered, and readable
     * (writable for a live page this rank writes) */
    int reg = home != dsm.rank && uffd_view(idx), want = prot;
    if (reg && prot == PROT_NONE) /* invalid: no page-table entries */
        prot = PROT_READ;
    /* the flags the range was mapped with, so the mappings merge again;
     * a live view is populated by the same call, which is cheaper than
     * the page fault per page (or per 16 pages) the access would take */
    int flags =
        MAP_SHARED | MAP_FIXED | (a == dsm.areas ? MAP_NORESERVE : 0) |
        (populate && home != dsm.rank && want != PROT_NONE ? MAP_POPULATE : 0);
    void *addr = (void *)hcrt__dsm_page_addr(idx);
    off_t off = (off_t)(idx * DSM_PAGE); /* memfd offset of page idx */
    if (mmap(addr, n * DSM_PAGE, prot, flags, fd, off) == MAP_FAILED) {
        if (errno != ENOMEM)
            hcrt__dsm_mappings_fatal();
        hcrt__dsm_out_of_mappings();
        if (mmap(addr, n * DSM_PAGE, prot, flags, fd, off) == MAP_FAILED)
            hcrt__dsm_mappings_fatal();
    }
    /* a new mapping is not registered: register it (it merges with the
     * registered neighbours again) */
    if (reg && uffd_register((uintptr_t)addr, n * DSM_PAGE) != 0)
        hcrt__dsm_mappings_fatal();
}

static void map_pages(size_t idx, size_t n, int home, int prot)
{
    map_pages_as(idx, n, home, prot, 1);
}

static void set_flip(size_t idx, size_t n, int to_home)
{
    for (size_t i = 0; i < n; i++) {
        if (base_home(idx + i) != to_home)
            atomic_fetch_or(&dsm.pages[idx + i].flags, PF_FLIP);
        else
            atomic_fetch_and(&dsm.pages[idx + i].flags, (uint8_t)~PF_FLIP);
    }
}

/* Start-up: the globals' live views of the head's memory (pages.c,
 * hcrt__dsm_live_areas), read-only and not populated: populating them
 * would allocate every zero page of the head's static arrays (60 MB in
 * NPB MG class W) that range.c left as holes; an access faults them in. */
void hcrt__dsm_map_live_lazy(size_t idx, size_t n, int home)
{
    map_pages_as(idx, n, home, PROT_READ, 0);
    set_flip(idx, n, 1);
}

void hcrt__dsm_set_view(size_t idx, size_t n, int home, int prot)
{
    int to_home = home != dsm.rank;
    size_t i = 0;
    while (i < n && hcrt__dsm_maps_home(idx + i) == to_home)
        i++;
    if (i == n) { /* already mapped so: protection only */
        uintptr_t addr = hcrt__dsm_page_addr(idx);
        if (to_home && uffd_view(idx)) { /* page-table entries, and */
            /* the protection: read-only, or read-write once written */
            hcrt__dsm_mprotect(addr, n * DSM_PAGE,
                               prot == PROT_NONE ? PROT_READ : prot);
            if (prot == PROT_NONE)
                madvise((void *)addr, n * DSM_PAGE, MADV_DONTNEED);
            else
                uffd_continue(addr, n * DSM_PAGE); /* else: at the access */
            return;
        }
        hcrt__dsm_mprotect(addr, n * DSM_PAGE, prot);
        if (to_home && prot != PROT_NONE)
            madvise((void *)addr, n * DSM_PAGE, MADV_POPULATE_READ);
        return;
    }
    map_pages(idx, n, home, prot);
    set_flip(idx, n, to_home);
}

void hcrt__dsm_reset_view(size_t idx, size_t n)
{
    for (size_t i = 0; i < n;) {
        int flip = !!(atomic_load(&dsm.pages[idx + i].flags) & PF_FLIP);
        size_t j = i + 1;
        while (j < n &&
               !!(atomic_load(&dsm.pages[idx + j].flags) & PF_FLIP) == flip)
            j++;
        if (flip) {
            int b = base_home(idx + i);
            map_pages(idx + i, j - i,
                      b ? hcrt__dsm_slice_owner(idx + i) : dsm.rank, PROT_NONE);
            set_flip(idx + i, j - i, b);
        } else if (uffd_view(idx + i)) { /* invalid: no page-table entry */
            void *a = (void *)hcrt__dsm_page_addr(idx + i);
            mprotect(a, (j - i) * DSM_PAGE, PROT_READ); /* if written */
            madvise(a, (j - i) * DSM_PAGE, MADV_DONTNEED);
        } else { /* merging: cannot need a new mapping */
            mprotect((void *)hcrt__dsm_page_addr(idx + i), (j - i) * DSM_PAGE,
                     PROT_NONE);
        }
        i = j;
    }
}

/* Maps every same-host peer's heap slice onto its memfd with `prot`,
 * registered with the userfaultfd when there is one; 0 on success. */
static int map_slices(int prot, const char **why)
{
    size_t npg = dsm.areas[0].len / DSM_PAGE;
    for (int r = 0; r < dsm.size; r++) {
        if (!hcrt__dsm_shm_peer(r))
            continue;
        /* page 0 is the range's guard page: it stays PROT_NONE */
        size_t first = r == 0 ? 1 : (size_t)r * dsm.slice_pages;
        size_t end =
            r == dsm.size - 1 ? npg : (size_t)(r + 1) * dsm.slice_pages;
        uintptr_t addr = hcrt__dsm_page_addr(first);
        size_t len = (end - first) * DSM_PAGE;
        if (mmap((void *)addr, len, prot,
                 MAP_SHARED | MAP_FIXED | MAP_NORESERVE, dsm.peer_fd[r],
                 (off_t)(first * DSM_PAGE)) == MAP_FAILED)
            hcrt_fatal(HCRT_MOD_DSM, "cannot map rank %d's DSM slice: %s", r,
                       strerror(errno));
        if (dsm.uffd >= 0 && uffd_register(addr, len) != 0) {
            *why = "cannot register a slice for minor faults";
            return -1;
        }
    }
    return 0;
}

/* HOME_ALLOC: maps every same-host peer's heap slice onto its memfd:
 * readable and held by a userfaultfd where the kernel allows, else
 * PROT_NONE (read misses mprotect). */
static hcrt_status_t premap_slices(void)
{
    if (dsm.home_policy != HOME_ALLOC || !dsm.shm_peers)
        return HCRT_OK;
    const char *why = NULL;
    dsm.uffd = uffd_open(&why);
    if (dsm.uffd >= 0 && map_slices(PROT_READ, &why) != 0) {
        close(dsm.uffd); /* the mappings it held are replaced below */
        dsm.uffd = -1;
    }
    if (dsm.uffd < 0) {
        if (dsm.uffd_mode == SHM_ON) {
            hcrt_error(HCRT_MOD_DSM,
                       "HCRT_DSM_UFFD=1 but userfaultfd minor faults are not "
                       "available: %s. Allow them (root, CAP_SYS_PTRACE or "
                       "sysctl vm.unprivileged_userfaultfd=1) or set "
                       "HCRT_DSM_UFFD=auto",
                       why ? why : "not asked for");
            return HCRT_ERR_IO;
        }
        if (why)
            hcrt_debug(HCRT_MOD_DSM,
                       "no userfaultfd minor faults (%s): "
                       "read misses use mprotect",
                       why);
        map_slices(PROT_NONE, &why);
    }
    dsm.premapped = 1;
    return HCRT_OK;
}

/* What a rank tells the others of its host about its storage. */
typedef struct ident {
    int rank, pid, want;
    int fd[2];
    uint64_t dev[2], ino[2], len[2];
} ident_t;

/* Opens and maps fd `k` of peer `p`; NULL (and *why) on failure. The
 * memfd (k = 0) stays open in *keep: read misses map its pages. */
static void *map_peer(const ident_t *p, int k, const char **why, int *keep)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", p->pid, p->fd[k]);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    struct stat st;
    void *m = NULL;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_dev != p->dev[k] ||
        (uint64_t)st.st_ino != p->ino[k] || (uint64_t)st.st_size < p->len[k])
        *why = "it is not the peer's DSM memory (another PID namespace?)";
    else if ((m = mmap(NULL, p->len[k], PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_NORESERVE, fd, 0)) == MAP_FAILED) {
        *why = strerror(errno);
        m = NULL;
    }
    if (m && keep)
        *keep = fd;
    else
        close(fd);
    return m;
}

static void unmap_peers(void)
{
    for (int r = 0; r < dsm.size && dsm.peer_mem && dsm.peer_dir && dsm.peer_fd;
         r++) {
        if (dsm.peer_mem[r] && r != dsm.rank)
            munmap(dsm.peer_mem[r], dsm.memfd_len);
        if (dsm.peer_dir[r] && r != dsm.rank)
            munmap(dsm.peer_dir[r], dsm.dir_len);
        if (dsm.peer_fd[r] >= 0)
            close(dsm.peer_fd[r]);
        dsm.peer_fd[r] = -1;
        dsm.peer_mem[r] = NULL;
        dsm.peer_dir[r] = NULL;
    }
    dsm.shm_peers = 0;
}

static void report_failure(const ident_t *p, const char *why)
{
    const char *fmt = "cannot map the DSM memory of rank %d (pid %d, same "
                      "host) on rank %d: %s. Ranks of one host must run as "
                      "one user in one PID namespace; HCRT_DSM_SHM=auto "
                      "falls back to messages";
    if (dsm.shm_mode == SHM_ON)
        hcrt_error(HCRT_MOD_DSM, fmt, p->rank, p->pid, dsm.rank, why);
    else
        hcrt_debug(HCRT_MOD_DSM, fmt, p->rank, p->pid, dsm.rank, why);
}

/* Maps every wanting peer of the host; 1 if all worked. */
static int map_host(const ident_t *all, int n)
{
    for (int i = 0; i < n; i++) {
        const ident_t *p = &all[i];
        if (p->rank == dsm.rank || !p->want)
            continue;
        const char *why = NULL;
        int fd = -1;
        char *mem = map_peer(p, 0, &why, &fd);
        dsm_dir_t *dir = mem ? map_peer(p, 1, &why, NULL) : NULL;
        if (!dir) {
            if (mem) {
                munmap(mem, p->len[0]);
                close(fd);
            }
            report_failure(p, why);
            return 0;
        }
        dsm.peer_mem[p->rank] = mem;
        dsm.peer_dir[p->rank] = dir;
        dsm.peer_fd[p->rank] = fd;
        dsm.shm_peers++;
    }
    return 1;
}

static void describe_self(ident_t *me)
{
    int fds[2] = {dsm.memfd, dsm.dirfd};
    uint64_t lens[2] = {dsm.memfd_len, dsm.dir_len};
    *me = (ident_t){.rank = dsm.rank,
                    .pid = (int)getpid(),
                    .want = dsm.shm_mode != SHM_OFF};
    for (int k = 0; k < 2; k++) {
        struct stat st = {0};
        if (fstat(fds[k], &st) != 0)
            me->want = 0;
        me->fd[k] = fds[k];
        me->dev[k] = (uint64_t)st.st_dev;
        me->ino[k] = (uint64_t)st.st_ino;
        me->len[k] = lens[k];
    }
}

hcrt_status_t hcrt__dsm_shm_init(void)
{
    dsm.peer_mem = calloc((size_t)dsm.size, sizeof *dsm.peer_mem);
    dsm.peer_dir = calloc((size_t)dsm.size, sizeof *dsm.peer_dir);
    dsm.peer_fd = malloc((size_t)dsm.size * sizeof *dsm.peer_fd);
    if (!dsm.peer_mem || !dsm.peer_dir || !dsm.peer_fd)
        return HCRT_ERR_NOMEM;
    for (int r = 0; r < dsm.size; r++)
        dsm.peer_fd[r] = -1;
    /* Collective whatever the setting, so ranks that disagree on it still
     * meet here: a host uses the fast path only if all its ranks want it. */
    MPI_Comm node;
    if (MPI_Comm_split_type(dsm.coll_comm, MPI_COMM_TYPE_SHARED, dsm.rank,
                            MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    int n = 0;
    MPI_Comm_size(node, &n);
    ident_t me, *all = calloc((size_t)n, sizeof *all);
    if (!all) {
        MPI_Comm_free(&node);
        return HCRT_ERR_NOMEM;
    }
    describe_self(&me);
    MPI_Allgather(&me, sizeof me, MPI_BYTE, all, sizeof me, MPI_BYTE, node);
    int want = 1;
    for (int i = 0; i < n; i++)
        want &= all[i].want;
    int ok = want && n > 1 ? map_host(all, n) : 1, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, node);
    MPI_Comm_free(&node);
    free(all);
    if (!want || !all_ok) {
        unmap_peers();
        if (dsm.shm_mode == SHM_ON && want)
            return HCRT_ERR_IO; /* explained by map_host on some rank */
    }
    dsm.copy_holders = 0;
    for (int r = 0; r < dsm.size && r < 64; r++)
        if (r != dsm.rank && !hcrt__dsm_shm_peer(r))
            dsm.copy_holders |= 1ULL << r;
    hcrt_status_t st = premap_slices();
    if (dsm.shm_peers)
        hcrt__dsm_live_areas();
    hcrt_debug(HCRT_MOD_DSM,
               "same-host fast path: %d of %d ranks share this host, %s%s", n,
               dsm.size, dsm.shm_peers ? "on" : "off",
               dsm.uffd >= 0 ? ", read misses by userfaultfd" : "");
    return st;
}

void hcrt__dsm_shm_fini(void)
{
    unmap_peers();
    dsm.premapped = 0;
    if (dsm.uffd >= 0)
        close(dsm.uffd);
    dsm.uffd = -1;
    free(dsm.peer_mem);
    free(dsm.peer_dir);
    free(dsm.peer_fd);
    dsm.peer_mem = NULL;
    dsm.peer_dir = NULL;
    dsm.peer_fd = NULL;
}
