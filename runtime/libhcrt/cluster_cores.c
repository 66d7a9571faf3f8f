/*
 * cluster_cores.c - the cores a call on the head alone may use
 * (docs/placement.md "Cores of a call on the head alone").
 *
 * A call that placement keeps on the head runs the whole logical team
 * there. When several ranks share the head's host and each is bound to its
 * own cores (hcrun's default: --map-by slot:PE=T --bind-to core), that team
 * would crowd onto the head's cores while the other ranks' cores idle (the
 * workers nap until the next fork). So in a call on the head alone,
 * logical thread k runs on the cores of the rank that runs k in a call on
 * all nodes, when that rank shares the head's host: the call uses the same
 * cores as on all nodes, as evenly (NPB CG's num_threads(8) at 2 ranks: 4
 * threads on each core, not 6 and 2). Threads whose rank is on another
 * host stay on the head's cores. Each thread changes its affinity only
 * when its owner changes, and a head thread back in a call on all nodes
 * (or running the head's own share) takes the head's cores again. Nothing
 * changes when the program binds threads itself (OMP_PROC_BIND /
 * OMP_PLACES / KMP_AFFINITY), when the head is alone on its host, or with
 * HCRT_SCHED_PLACE_WIDE=0.
 */
#include <errno.h>
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/config.h"
#include "base/log.h"
#include "libhcrt/cluster.h"
#include "libhcrt/cluster_place.h"
#include "libhcrt/runtime.h"

static cpu_set_t *masks; /* head: the cores of each rank on its host */
static int *host_of; /* head: world rank -> index in masks, -1: other host */
static int wide_on;
static _Thread_local int cur; /* 1 + the index of the cores it uses; 0: own */

static int program_binds(void)
{
    const char *b = getenv("OMP_PROC_BIND"), *p = getenv("OMP_PLACES");

    return (b && *b && strcasecmp(b, "false") != 0) || (p && *p) ||
           getenv("KMP_AFFINITY");
}

/* Whether another rank of the host has cores the head's mask lacks. */
static int gains(int n)
{
    for (int i = 1; i < n; i++) {
        cpu_set_t d;
        CPU_XOR(&d, &masks[i], &masks[0]);
        CPU_AND(&d, &d, &masks[i]);
        if (CPU_COUNT(&d) > 0)
            return 1;
    }
    return 0;
}

typedef struct rank_mask {
    cpu_set_t mask;
    int rank;
} rank_mask_t;

/* Head: the cores a call on all nodes has over those a call on the head
 * alone has (placement's capacity): the union of the masks of the ranks
 * on the head's host, plus the head's own count for each rank of another
 * host, over the head's own mask - or over the union when a head-alone
 * call uses its host's other ranks' cores (wide). 2 ranks bound to a core
 * each on one host: 1 (a head-alone call has both cores); 4 hosts of one
 * rank: 4. Unknown masks: the number of ranks. */
static double capacity;
static int head_cores; /* the cores a call on the head alone runs on */

static void set_capacity(const rank_mask_t *all, int n)
{
    cpu_set_t uni;

    CPU_ZERO(&uni);
    for (int i = 0; i < n; i++)
        CPU_OR(&uni, &uni, &all[i].mask);
    int own = CPU_COUNT(&all[0].mask), host = CPU_COUNT(&uni);
    int head = wide_on ? host : own;
    head_cores = head;
    if (own <= 0 || head <= 0) {
        capacity = hcrt__size();
        return;
    }
    capacity = (double)(host + (hcrt__size() - n) * own) / head;
}

double hcrt__cluster_cores_capacity(void)
{
    return capacity;
}

int hcrt__cluster_cores_head(void)
{
    return head_cores;
}

void hcrt__cluster_cores_init(MPI_Comm comm)
{
    rank_mask_t mine, *all;
    MPI_Comm host;
    int n;

    memset(&mine, 0, sizeof mine);
    mine.rank = hcrt__rank();
    if (sched_getaffinity(0, sizeof mine.mask, &mine.mask) != 0)
        CPU_ZERO(&mine.mask); /* contributes nothing */
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, hcrt__rank(), MPI_INFO_NULL,
                        &host);
    MPI_Comm_size(host, &n);
    all = malloc((size_t)n * sizeof(*all));
    if (!all)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE,
                  host);
    MPI_Comm_free(&host);
    if (hcrt__rank() == 0 && n > 1 &&
        hcrt__config_bool("HCRT_SCHED_PLACE_WIDE") && !program_binds()) {
        masks = malloc((size_t)n * sizeof(cpu_set_t));
        host_of = malloc((size_t)hcrt__size() * sizeof(int));
        if (!masks || !host_of)
            hcrt_fatal(HCRT_MOD_CORE, "out of memory at start-up");
        for (int r = 0; r < hcrt__size(); r++)
            host_of[r] = -1;
        for (int i = 0; i < n; i++) { /* the head (key 0) comes first */
            masks[i] = all[i].mask;
            host_of[all[i].rank] = i;
        }
        wide_on = CPU_COUNT(&masks[0]) > 0 && gains(n);
        if (wide_on)
            hcrt_debug(HCRT_MOD_SCHED,
                       "calls on the head alone run each thread on the cores "
                       "of its rank on the head's host (%d ranks there)",
                       n);
    }
    if (hcrt__rank() == 0)
        set_capacity(all, n);
    free(all);
}

static void use(int idx)
{
    int want = idx == 0 ? 0 : idx + 1;

    if (cur == want)
        return;
    if (sched_setaffinity(0, sizeof(cpu_set_t), &masks[idx]) != 0) {
        hcrt_debug(HCRT_MOD_SCHED, "a thread keeps its cores: %s",
                   strerror(errno));
        return;
    }
    cur = want;
}

/* Per logical thread of a team of plan_total: the index in masks of the
 * cores of the rank that runs it on all nodes (0: the head's). Made by
 * the main thread before the fork, when the team size changes. */
static int *plan, plan_total;

int hcrt__cluster_cores_plan(int total)
{
    hcrt_cluster_team_t t;

    if (!wide_on || total == plan_total)
        return wide_on;
    int *p = realloc(plan, (size_t)total * sizeof(int));
    if (!p)
        hcrt_fatal(HCRT_MOD_CORE, "out of memory for a team of %d", total);
    for (int r = 0; r < hcrt__size(); r++) {
        hcrt__cluster_team_of(total, r, &t);
        for (int k = t.base; k < t.base + t.local && k < total; k++)
            p[k] = host_of[r] < 0 ? 0 : host_of[r];
    }
    plan = p, plan_total = total;
    return 1;
}

void hcrt__cluster_cores_enter(int k)
{
    if (wide_on && k < plan_total)
        use(plan[k]);
}

void hcrt__cluster_cores_home(void)
{
    if (wide_on && cur != 0)
        use(0);
}
