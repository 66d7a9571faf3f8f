/*
 * cluster_ft.c - cluster mode under FT mode (fault/ft.h, docs/faults.md).
 *
 * The head's commands (fork, exit) travel point to point to each live
 * worker instead of by MPI_Ibcast, whose tree would pass through a lost
 * rank; the exit command carries the head's set of lost ranks, so every
 * survivor builds the same communicators over the survivors at shutdown.
 * After a loss, regions run on the head alone.
 *
 * Regions are not transactions yet: once a region ran on every node, a
 * worker's loss takes the DSM pages it homes and its threads' stacks with
 * it, and the job ends saying so (hcrt__ft_unrecoverable). So does a
 * home policy that puts the head's heap pages on workers.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/wait.h"
#include "dsm/dsm.h"
#include "libhcrt/cluster.h"
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
static const hcrt_ident_t *_Atomic first_fork;

/* "file:line" of clang's ";file;function;line;col;;". */
static const char *where(const hcrt_ident_t *loc, char *buf, size_t len)
{
    char file[256];
    int line = 0;
    if (!loc || !loc->psource ||
        sscanf(loc->psource, ";%255[^;];%*[^;];%d", file, &line) != 2)
        return "an unknown place";
    snprintf(buf, len, "%s:%d", file, line);
    return buf;
}

static void lost_cb(int rank, void *arg)
{
    char buf[300];
    (void)arg;
    unsigned long n = atomic_load(&nforks);
    if (n)
        hcrt__ft_unrecoverable(
            rank,
            "it took part in %lu parallel region(s) run on every node (the "
            "first at %s), so part of the program's shared memory (DSM "
            "pages it homes, its threads' stacks) was there; region "
            "transactions are not implemented, so cluster regions cannot "
            "be re-run",
            n, where(atomic_load(&first_fork), buf, sizeof buf));
    if (!hcrt__dsm_homes_own())
        hcrt__ft_unrecoverable(rank,
                               "with HCRT_DSM_HOME other than `alloc` it "
                               "may home pages of the head's heap; region "
                               "transactions are not implemented");
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

void hcrt__cluster_ft_fork(const hcrt_ident_t *loc)
{
    if (atomic_fetch_add(&nforks, 1) == 0)
        atomic_store(&first_fork, loc);
}

int hcrt__cluster_ft_head_only(void)
{
    return hcrt__ft_on() && hcrt__ft_nlost() > 0;
}

uint64_t hcrt__cluster_ft_lost_mask(void)
{
    uint64_t m = 0;
    for (int r = 1; r < hcrt__size() && r < FT_MAX_RANKS; r++)
        if (hcrt__ft_lost(r))
            m |= 1ULL << r;
    return m;
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
