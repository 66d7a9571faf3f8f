/*
 * sync.c - the consistency operations at OpenMP's flush points.
 *
 * Release pushes this rank's diffs home and waits until every home has
 * applied them; acquire self-invalidates. A barrier is release + MPI
 * barrier + acquire, so after it every rank sees every write made before
 * it. MPI waits here poll (MPI_Test + yield) rather than block, so the
 * service thread keeps a core on oversubscribed hosts.
 */
#include <sched.h>

#include "base/bell.h"
#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm_int.h"

hcrt_status_t hcrt__dsm_release(void)
{
    if (!dsm.ready)
        return HCRT_ERR_INVALID;
    return hcrt__dsm_flush();
}

hcrt_status_t hcrt__dsm_acquire(void)
{
    if (!dsm.ready)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__dsm_flush();
    hcrt__dsm_invalidate();
    return st;
}

/* Polls the barrier without hogging the core: yields after 100 polls,
 * naps on a contended core (base/bell.h); woken by the fault detector
 * (base/wait.h). */
hcrt_status_t hcrt__dsm_cluster_barrier(void)
{
    MPI_Request req;
    hcrt_wait_t w = {
        .what = "a DSM barrier", .peer = HCRT_WAIT_ANY, .spin_ns = UINT64_MAX};
    if (MPI_Ibarrier(dsm.coll_comm, &req) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    return hcrt__wait_request(&req, &w);
}

/* The last barrier: in FT mode after a loss, over the survivors. */
hcrt_status_t hcrt__dsm_final_barrier(void)
{
    MPI_Request req;
    MPI_Comm c = hcrt__wait_live_comm(dsm.coll_comm);
    hcrt_wait_t w = {.what = "the DSM's last barrier",
                     .peer = HCRT_WAIT_ANY,
                     .spin_ns = UINT64_MAX,
                     .survivors = 1};
    if (MPI_Ibarrier(c, &req) != MPI_SUCCESS)
        return HCRT_ERR_MPI;
    hcrt_status_t st = hcrt__wait_request(&req, &w);
    if (c != dsm.coll_comm)
        MPI_Comm_free(&c);
    return st;
}

hcrt_status_t hcrt__dsm_barrier(void)
{
    if (!dsm.ready)
        return HCRT_ERR_INVALID;
    hcrt_status_t st = hcrt__dsm_flush();
    if (st == HCRT_OK) /* with migration: the homes' proposals too */
        st = dsm.migrate ? hcrt__dsm_migrate_barrier()
                         : hcrt__dsm_cluster_barrier();
    hcrt__dsm_flush(); /* writes racing the barrier by other threads */
    hcrt__dsm_invalidate();
    if (st == HCRT_OK && dsm.migrate) /* homes that follow their writer */
        st = hcrt__dsm_migrate_apply();
    dsm_count(barriers, 1);
    return st;
}

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    unsigned gen;
    hcrt_status_t st;
} team = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0};

hcrt_status_t hcrt__dsm_barrier_team(int nthreads)
{
    pthread_mutex_lock(&team.mu);
    unsigned g = team.gen;
    if (++team.arrived < nthreads) {
        while (team.gen == g)
            pthread_cond_wait(&team.cv, &team.mu);
        hcrt_status_t st = team.st;
        pthread_mutex_unlock(&team.mu);
        return st;
    }
    team.arrived = 0;
    pthread_mutex_unlock(&team.mu);
    hcrt_status_t st = hcrt__dsm_barrier();
    pthread_mutex_lock(&team.mu);
    team.st = st;
    team.gen++;
    pthread_cond_broadcast(&team.cv);
    pthread_mutex_unlock(&team.mu);
    return st;
}
