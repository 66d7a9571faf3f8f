/*
 * init.c - bringing the DSM up and down, and its settings.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/log.h"
#include "dsm/dsm_int.h"

static hcrt_status_t read_settings(uintptr_t *base, size_t *size)
{
    const char *addr = hcrt__config_string("HCRT_DSM_ADDR");
    char *end = NULL;
    errno = 0;
    unsigned long long a = strtoull(addr, &end, 0);
    if (errno || !end || *end || (a & (DSM_PAGE - 1)) || a == 0) {
        hcrt_error(HCRT_MOD_DSM,
                   "HCRT_DSM_ADDR='%s' is not a page-aligned "
                   "address; use e.g. HCRT_DSM_ADDR=0x200000000000",
                   addr);
        return HCRT_ERR_INVALID;
    }
    *base = (uintptr_t)a;
    *size = (size_t)hcrt__config_int("HCRT_DSM_SIZE") & ~(DSM_PAGE - 1);
    dsm.home_policy = hcrt__config_enum("HCRT_DSM_HOME");
    dsm.block_pages = (size_t)hcrt__config_int("HCRT_DSM_BLOCK");
    dsm.prefetch_max = (size_t)hcrt__config_int("HCRT_DSM_PREFETCH");
    dsm.classify = hcrt__config_bool("HCRT_DSM_CLASSIFY");
    dsm.spin_ns = (uint64_t)hcrt__config_int("HCRT_DSM_SPIN_US") * 1000;
    dsm.direct = hcrt__config_bool("HCRT_DSM_DIRECT");
    dsm.direct_spin_ns =
        (uint64_t)hcrt__config_int("HCRT_DSM_DIRECT_SPIN_US") * 1000;
    dsm.shm_mode = hcrt__config_enum("HCRT_DSM_SHM");
    dsm.uffd_mode = hcrt__config_enum("HCRT_DSM_UFFD");
    dsm.uffd = -1;
    return hcrt__dsm_debug_init();
}

/* A PIE mapped at different addresses would make shared globals differ. */
static hcrt_status_t check_same_layout(void)
{
    uintptr_t mine[2] = {(uintptr_t)&hcrt__dsm_init,
                         dsm.nareas > 1 ? dsm.areas[1].base : 0};
    uintptr_t *all = malloc(sizeof mine * (size_t)dsm.size);
    if (!all)
        return HCRT_ERR_NOMEM;
    MPI_Allgather(mine, 2 * sizeof(uintptr_t), MPI_BYTE, all,
                  2 * sizeof(uintptr_t), MPI_BYTE, dsm.coll_comm);
    hcrt_status_t st = HCRT_OK;
    for (int r = 1; r < dsm.size && st == HCRT_OK; r++) {
        if (all[2 * r + 1] != all[1]) {
            hcrt_error(HCRT_MOD_DSM,
                       "shared globals are at %#lx on rank %d but %#lx on "
                       "rank 0: address randomisation is on. Start through "
                       "hcrun/__hcrt_main (which re-executes without it) or "
                       "run under 'setarch -R'",
                       (unsigned long)all[2 * r + 1], r, (unsigned long)all[1]);
            st = HCRT_ERR_MISMATCH;
        } else if (all[2 * r] != all[0] && dsm.rank == 0) {
            hcrt_debug(HCRT_MOD_DSM,
                       "code maps at different addresses on "
                       "rank %d (ASLR on); no shared globals, so harmless",
                       r);
        }
    }
    free(all);
    return st;
}

static int stage; /* how far setup() got, for undo() */

static hcrt_status_t setup(MPI_Comm comm)
{
    uintptr_t base;
    size_t size;
    hcrt_status_t st = read_settings(&base, &size);
    if (st != HCRT_OK)
        return st;
    MPI_Comm_rank(comm, &dsm.rank);
    MPI_Comm_size(comm, &dsm.size);
    if (dsm.size > 62)
        dsm.classify = 0; /* directory masks are 64-bit */
    if (MPI_Comm_dup(comm, &dsm.svc_comm) != MPI_SUCCESS ||
        MPI_Comm_dup(comm, &dsm.coll_comm) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    stage = 1;
    dsm.slice_pages = size / DSM_PAGE / (size_t)dsm.size;
    if ((st = hcrt__dsm_stacks_init()) != HCRT_OK) /* collective */
        return st;
    if (dsm.slice_pages < 64) {
        hcrt_error(HCRT_MOD_DSM,
                   "HCRT_DSM_SIZE=%zu is too small for %d "
                   "ranks",
                   size, dsm.size);
        return HCRT_ERR_INVALID;
    }
    pthread_mutex_init(&dsm.cache_lock, NULL);
    pthread_mutex_init(&dsm.flush_lock, NULL);
    atomic_store(&dsm.gen, 0);
    hcrt__dsm_pages_init();
    stage = 2; /* range_fini copes with a partial range_init */
    if ((st = hcrt__dsm_range_init(base, size)) != HCRT_OK)
        return st;
    if ((st = hcrt__dsm_alloc_init()) != HCRT_OK)
        return st;
    stage = 3;
    hcrt__dsm_counters_init();
    return HCRT_OK;
}

/* Undoes a setup() that another rank (or a later step) made pointless. */
static void undo(void)
{
    if (stage >= 4)
        hcrt__dsm_service_stop();
    hcrt__bell_fini(&hcrt__dsm_bell);
    if (stage >= 3) {
        hcrt__dsm_migrate_fini();
        hcrt__dsm_shm_fini();
        hcrt__dsm_alloc_fini();
    }
    if (stage >= 2)
        hcrt__dsm_range_fini();
    hcrt__dsm_stacks_fini();
    if (stage >= 1) {
        MPI_Comm_free(&dsm.svc_comm);
        MPI_Comm_free(&dsm.coll_comm);
    }
    stage = 0;
}

/* Starts the service thread and the fault handler, once all agreed. */
static hcrt_status_t start(void)
{
    hcrt_status_t st = hcrt__dsm_bell_init();
    if (st != HCRT_OK)
        return st;
    st = hcrt__dsm_service_start();
    if (st != HCRT_OK)
        return st;
    stage = 4;
    return hcrt__dsm_fault_install();
}

/* Agrees on the outcome so no rank waits for a peer that gave up. */
static hcrt_status_t agree(MPI_Comm comm, hcrt_status_t st)
{
    int ok = st == HCRT_OK, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, comm);
    if (all_ok)
        return HCRT_OK;
    if (st == HCRT_OK)
        hcrt_error(HCRT_MOD_DSM, "DSM start-up failed on another rank");
    return st == HCRT_OK ? HCRT_ERR_NODE_FAILED : st;
}

hcrt_status_t hcrt__dsm_init(MPI_Comm comm)
{
    if (dsm.ready)
        return HCRT_OK;
    stage = 0;
    hcrt_status_t st = agree(comm, setup(comm));
    if (st == HCRT_OK)
        st = agree(comm, check_same_layout());
    if (st == HCRT_OK)
        st = agree(comm, hcrt__dsm_shm_init());
    if (st == HCRT_OK) /* collective: every rank got here */
        hcrt__dsm_untouched_share();
    if (st == HCRT_OK) /* after shm: off with same-host peers */
        st = agree(comm, hcrt__dsm_migrate_init());
    if (st == HCRT_OK)
        st = agree(comm, start());
    if (st != HCRT_OK) {
        undo();
        return st;
    }
    dsm.ready = 1;
    hcrt_debug(HCRT_MOD_DSM,
               "DSM range %#lx+%zu MiB, %d ranks, home policy "
               "%d, %d same-host peers mapped",
               (unsigned long)dsm.areas[0].base, (size_t)dsm.areas[0].len >> 20,
               dsm.size, dsm.home_policy, dsm.shm_peers);
    return HCRT_OK;
}

int hcrt__dsm_initialized(void)
{
    return dsm.ready;
}

int hcrt__dsm_homes_own(void)
{
    return dsm.home_policy == HOME_ALLOC;
}

void hcrt__dsm_fini(void)
{
    if (!dsm.ready)
        return;
    hcrt__dsm_flush();
    /* No request of this rank may be answered after the barrier: the
     * ranks stop receiving once every one has passed it. */
    hcrt__dsm_readahead_drain();
    hcrt__dsm_final_barrier(); /* nobody needs my pages any more */
    hcrt__dsm_service_stop();
    hcrt__bell_fini(&hcrt__dsm_bell);
    hcrt__dsm_fault_uninstall();
    dsm.ready = 0;
    hcrt__dsm_migrate_fini();
    hcrt__dsm_shm_fini();
    hcrt__dsm_alloc_fini();
    hcrt__dsm_range_fini();
    hcrt__dsm_stacks_fini();
    MPI_Comm_free(&dsm.svc_comm);
    MPI_Comm_free(&dsm.coll_comm);
}
