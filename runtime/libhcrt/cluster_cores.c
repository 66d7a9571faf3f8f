/*
 * cluster_cores.c - the cores a call on the head alone may use
 * (docs/placement.md "Cores of a call on the head alone").
 *
 * A call that placement keeps on the head runs the whole logical team
 * there. When several ranks share the head's host and each is bound to its
 * own cores (hcrun's default: --map-by slot:PE=T --bind-to core), that team
 * would crowd onto the head's cores while the other ranks' cores idle (the
 * workers nap until the next fork). So the threads of such a call beyond
 * the head's own share of an all-node team (logical threads the workers
 * run otherwise) may run on the cores of every rank of the head's host:
 * each sets its affinity once, the first time it runs there. The head's
 * own threads (its main thread and the rest of its share) keep its cores,
 * so calls on all nodes see the binding the launcher gave. Nothing changes
 * when the program binds threads itself (OMP_PROC_BIND / OMP_PLACES), when
 * the head is alone on its host, or with HCRT_SCHED_PLACE_WIDE=0.
 */
#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/log.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/runtime.h"

static cpu_set_t wide; /* head: the cores of every rank on its host */
static int wide_on;
static _Thread_local int widened;

static int program_binds(void)
{
    const char *b = getenv("OMP_PROC_BIND"), *p = getenv("OMP_PLACES");

    return (b && *b && strcasecmp(b, "false") != 0) || (p && *p) ||
           getenv("KMP_AFFINITY");
}

void hcrt__cluster_cores_init(MPI_Comm comm)
{
    cpu_set_t mine;
    MPI_Comm host;
    int n;

    CPU_ZERO(&mine);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0)
        CPU_ZERO(&mine); /* contributes nothing; the head then keeps its own */
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, hcrt__rank(),
                        MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &n);
    cpu_set_t *all = malloc((size_t)n * sizeof(cpu_set_t));
    if (!all)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE,
                  host);
    MPI_Comm_free(&host);
    if (hcrt__rank() == 0 && hcrt__config_bool("HCRT_SCHED_PLACE_WIDE") &&
        !program_binds()) {
        CPU_ZERO(&wide);
        for (int i = 0; i < n; i++)
            CPU_OR(&wide, &wide, &all[i]);
        wide_on = CPU_COUNT(&wide) > CPU_COUNT(&mine);
        if (wide_on)
            hcrt_debug(HCRT_MOD_SCHED,
                       "calls on the head alone may use %d cores of the "
                       "%d ranks on its host (the head is bound to %d)",
                       CPU_COUNT(&wide), n, CPU_COUNT(&mine));
    }
    free(all);
}

void hcrt__cluster_cores_enter(int tid, int own)
{
    if (!wide_on || tid < own || widened)
        return;
    widened = 1;
    if (sched_setaffinity(0, sizeof wide, &wide) != 0)
        hcrt_debug(HCRT_MOD_SCHED, "thread %d keeps the head's cores: %s", tid,
                   strerror(errno));
}
