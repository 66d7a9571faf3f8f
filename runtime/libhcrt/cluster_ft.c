/*
 * cluster_ft.c - cluster mode under FT mode (fault/ft.h, docs/faults.md).
 *
 * The head's commands (fork, exit) travel point to point to each live
 * worker instead of by MPI_Ibcast, whose tree would pass through a lost
 * rank; the exit command carries the head's set of lost ranks, so every
 * survivor builds the same communicators over the survivors at shutdown.
 * After a loss, regions run on the head alone (the whole logical team).
 *
 * Regions are not transactions yet: a worker lost while a region runs on
 * every node (from the fork to the head's join) ends the job saying so
 * (hcrt__ft_unrecoverable). One lost between such regions - the head in
 * its sequential code or in regions it runs alone - held nothing the
 * program still needs, with two exceptions: threadprivate and
 * _Thread_local values of its threads (they persist between regions:
 * refused unless the head holds the images of every thread, as after
 * calls it ran alone, docs/placement.md; later regions then install
 * them), and DSM pages
 * it homes (memory its threads allocated, its stacks, pages whose home
 * moved there). The head's valid copies of those pages are current (the
 * worker wrote nothing since the join); a later access that needs the
 * lost home waits for it, and that wait ends the job naming it. So does a
 * home policy that puts the head's heap pages on workers.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/fault/ft.h"
#include "libhcrt/runtime.h"

#define CMD_TAG 0x434d /* commands, on the fork communicator */
#define FT_MAX_RANKS 64

static MPI_Comm cmd_comm = MPI_COMM_NULL; /* the runtime's, without DSM */

static MPI_Comm comm_of_cmds(void)
{
    return cmd_comm != MPI_COMM_NULL ? cmd_comm : hcrt__comm_world();
}
static atomic_ulong nforks;
static const hcrt_region_desc_t *_Atomic first_fork;
static const hcrt_region_desc_t *_Atomic spread; /* forked, not joined */

/* "file:line" of a region's descriptor, else its outlined function. */
static const char *where(const hcrt_region_desc_t *r, char *buf, size_t len)
{
    if (r && r->file && r->file[0] && r->line > 0)
        snprintf(buf, len, "%s:%d", r->file, (int)r->line);
    else if (r && r->name)
        snprintf(buf, len, "%s (build with -g for its line)", r->name);
    else
        return "an unknown place";
    return buf;
}

static void lost_cb(int rank, void *arg)
{
    char buf[300];
    (void)arg;
    const hcrt_region_desc_t *now = atomic_load(&spread);
    unsigned long n = atomic_load(&nforks);
    if (now)
        hcrt__ft_unrecoverable(
            rank,
            "it was in the team of the parallel region at %s, which was "
            "running on every node; region transactions are not "
            "implemented, so the region cannot be re-run without it",
            where(now, buf, sizeof buf));
    if (n && hcrt__cluster_place_tls_bytes() &&
        !hcrt__cluster_place_tls_at_head())
        hcrt__ft_unrecoverable(
            rank,
            "its threads' threadprivate and _Thread_local variables (%zu "
            "bytes a thread), which keep their values from one parallel "
            "region to the next, were there: the last region(s) before the "
            "loss ran on every node (%lu in all, the first at %s), and the "
            "head had no copy of their values",
            hcrt__cluster_place_tls_bytes(), n,
            where(atomic_load(&first_fork), buf, sizeof buf));
    if (!hcrt__dsm_homes_own())
        hcrt__ft_unrecoverable(rank,
                               "with HCRT_DSM_HOME other than `alloc` it "
                               "may home pages of the head's heap; region "
                               "transactions are not implemented");
    if (n)
        hcrt_warn(HCRT_MOD_CORE,
                  "rank %d was lost between parallel regions (it took part "
                  "in %lu on every node): later regions run on the head "
                  "alone; data only it held (blocks its threads allocated, "
                  "pages it served) is gone: an access that needs it ends "
                  "the job saying so",
                  rank, n);
}

void hcrt__cluster_ft_init(MPI_Comm fork_comm)
{
    cmd_comm = fork_comm;
    if (!hcrt__ft_on())
        return;
    if (hcrt__size() > FT_MAX_RANKS)
        hcrt_fatal(HCRT_MOD_CORE,
                   "FT mode handles at most %d ranks in cluster mode, this "
                   "job has %d: run fewer ranks or without --ft/HCRT_FT",
                   FT_MAX_RANKS, hcrt__size());
    if (hcrt__rank() == 0)
        hcrt__ft_on_lost(lost_cb, NULL);
}

int hcrt__cluster_ft_p2p(void)
{
    return hcrt__ft_on();
}

void hcrt__cluster_ft_fork(const hcrt_region_desc_t *region)
{
    atomic_store(&spread, region);
    if (atomic_fetch_add(&nforks, 1) == 0)
        atomic_store(&first_fork, region);
}

unsigned long hcrt__cluster_ft_nforks(void)
{
    return atomic_load(&nforks);
}

void hcrt__cluster_ft_joined(void)
{
    atomic_store(&spread, NULL);
}

int hcrt__cluster_ft_head_only(void)
{
    if (!hcrt__ft_on())
        return 0;
    /* a worker killed just before this fork is suspected already: wait
     * for the detector's decision rather than send the region to it (a
     * region it is in cannot be recovered) */
    double waited = hcrt__ft_await_settled();
    if (waited > 0)
        hcrt_debug(HCRT_MOD_CORE,
                   "a fork waited %.3f s for the fault detector's decision",
                   waited);
    return hcrt__ft_nlost() > 0;
}

uint64_t hcrt__cluster_ft_lost_mask(void)
{
    return hcrt__wait_failed_mask() & ~1ULL; /* FT_MAX_RANKS: one word */
}

void hcrt__cluster_ft_adopt(uint64_t lost)
{
    for (int r = 1; r < FT_MAX_RANKS; r++)
        if (lost & (1ULL << r))
            hcrt__wait_peer_failed(r);
}

/* Head: buf to every live worker. A worker lost meanwhile is skipped. */
void hcrt__cluster_ft_send(void *buf, int len, const char *what)
{
    int size = hcrt__size(), n = 0, dest[FT_MAX_RANKS];
    MPI_Request req[FT_MAX_RANKS];
    for (int r = 1; r < size; r++)
        if (!hcrt__ft_lost(r)) {
            MPI_Isend(buf, len, MPI_BYTE, r, CMD_TAG, comm_of_cmds(), &req[n]);
            dest[n++] = r;
        }
    hcrt_wait_t w = {
        .what = what, .peer = HCRT_WAIT_ANY, .busy = 1, .recoverable = 1};
    while (hcrt__wait_requests(n, req, &w) == HCRT_ERR_NODE_FAILED)
        for (int i = 0; i < n; i++)
            if (hcrt__ft_lost(dest[i]) && req[i] != MPI_REQUEST_NULL)
                MPI_Request_free(&req[i]); /* it never arrives */
}

/* Worker: the head's next command or payload. */
void hcrt__cluster_ft_recv(void *buf, int len, const char *what,
                           uint64_t spin_ns, struct hcrt_bell *bell)
{
    MPI_Request req;
    hcrt_wait_t w = {.what = what, .peer = 0, .spin_ns = spin_ns, .bell = bell};
    MPI_Irecv(buf, len, MPI_BYTE, 0, CMD_TAG, comm_of_cmds(), &req);
    hcrt__wait_request(&req, &w);
}
