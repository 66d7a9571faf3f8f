/*
 * node.c - facts about this node: PMIx job information, hwloc cores, and
 * the node's default team size derived from them.
 *
 * Without PMIx (a singleton run) everything degrades to "one rank alone on
 * this host". The default team size (docs/settings.md, HCRT_NODE_THREADS):
 *   1. HCRT_NODE_THREADS names this node (by node id or host): that count;
 *   2. else OMP_NUM_THREADS is set: libomp's reading of it stands;
 *   3. else, in a launched job, the cores available to the rank: the cores
 *      of its cpuset when the launcher bound it, else the host's cores
 *      shared among the ranks on the host (PMIx local size);
 *   4. a singleton keeps libomp's own default, like a plain OpenMP build.
 */
#include <ctype.h>
#include <hwloc.h>
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/kmp_abi.h"
#include "base/log.h"
#include "base/node.h"
#include "base/proc.h"

static hcrt_node_info_t node;
static int avail_cores; /* cores in this rank's cpuset */
static pthread_once_t cores_once = PTHREAD_ONCE_INIT; /* probe_hwloc ran */
static int team_default; /* the node's default team size */
static const char *team_source = "libomp default";

/* PMIx integer values come in several widths: widen whatever arrives. */
static int value_to_int(const pmix_value_t *v, int *out)
{
    switch (v->type) {
    case PMIX_UINT16:
        *out = v->data.uint16;
        return 0;
    case PMIX_UINT32:
        *out = (int)v->data.uint32;
        return 0;
    case PMIX_INT:
        *out = v->data.integer;
        return 0;
    case PMIX_INT32:
        *out = v->data.int32;
        return 0;
    case PMIX_UINT:
        *out = (int)v->data.uint;
        return 0;
    case PMIX_PROC_RANK:
        *out = (int)v->data.rank;
        return 0;
    default:
        return -1;
    }
}

static int pmix_get_int(const pmix_proc_t *proc, const char *key, int *out)
{
    pmix_value_t *v = NULL;
    int rc = -1;

    if (PMIx_Get(proc, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    rc = value_to_int(v, out);
    PMIX_VALUE_RELEASE(v);
    return rc;
}

static void pmix_get_host(const pmix_proc_t *proc, char *host, size_t len)
{
    pmix_value_t *v = NULL;

    if (PMIx_Get(proc, PMIX_HOSTNAME, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return;
    if (v->type == PMIX_STRING && v->data.string) {
        strncpy(host, v->data.string, len - 1);
        host[len - 1] = '\0';
    }
    PMIX_VALUE_RELEASE(v);
}

static void probe_pmix(hcrt_node_info_t *out)
{
    pmix_proc_t me, job;

    /* A singleton has no PMIx server; do not even try to reach one. */
    if (!getenv("PMIX_NAMESPACE") && !getenv("PMIX_SERVER_URI2") &&
        !getenv("PMIX_SERVER_URI3") && !getenv("PMIX_SERVER_URI4"))
        return;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        hcrt_debug(HCRT_MOD_CORE, "PMIx_Init failed: no job facts from PMIx");
        return;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    out->have_pmix = 1;
    pmix_get_int(&me, PMIX_LOCAL_RANK, &out->local_rank);
    pmix_get_int(&me, PMIX_NODEID, &out->node_id);
    pmix_get_int(&job, PMIX_LOCAL_SIZE, &out->local_size);
    pmix_get_int(&job, PMIX_NUM_NODES, &out->num_hosts);
    pmix_get_host(&me, out->host, sizeof(out->host));
    PMIx_Finalize(NULL, 0);
}

/* Cores with at least one PU in the rank's binding (all when unbound). */
static int cpuset_cores(hwloc_topology_t topo, int all)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int n = all;

    if (set && hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
        int k =
            hwloc_get_nbobjs_inside_cpuset_by_type(topo, set, HWLOC_OBJ_CORE);
        if (k <= 0) /* a cpuset of PUs only, or no core objects */
            k = hwloc_bitmap_weight(set);
        if (k > 0 && k < all)
            n = k;
    }
    hwloc_bitmap_free(set);
    return n;
}

static void probe_hwloc(hcrt_node_info_t *out)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) != 0)
        return;
    /* Cores and PUs are all we need: skip caches and I/O (faster start). */
    hwloc_topology_set_all_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_CORE,
                                   HWLOC_TYPE_FILTER_KEEP_ALL);
    /* The x86 backend binds the process to every PU in turn to run CPUID
     * there (a few ms per rank, more under load); Linux's sysfs says
     * enough about cores. */
    hwloc_topology_set_components(
        topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    if (hwloc_topology_load(topo) == 0) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        out->pus = pus > 0 ? pus : 1;
        out->cores = cores > 0 ? cores : out->pus;
        avail_cores = cpuset_cores(topo, out->cores);
    }
    hwloc_topology_destroy(topo);
}

/* A bad HCRT_NODE_THREADS is reported once, by the head, whose MPI_Abort
 * ends the job; the other ranks wait for that in a barrier. */
static _Noreturn void bad_spec(const char *fmt, const char *spec, int a,
                               const char *b)
{
    if (hcrt__rank() != 0) {
        MPI_Barrier(hcrt__comm_world());
        _exit(1);
    }
    hcrt_fatal(HCRT_MOD_CORE, fmt, spec, a, b);
}

/* Parses one count of HCRT_NODE_THREADS; fatal with the fix when bad. */
static int parse_count(const char *spec, const char *s, size_t len)
{
    char buf[16];
    char *end;

    if (len == 0 || len >= sizeof(buf))
        goto bad;
    memcpy(buf, s, len);
    buf[len] = '\0';
    long v = strtol(buf, &end, 10);
    if (*end || !isdigit((unsigned char)buf[0]) || v < 1 || v > 4096)
        goto bad;
    return (int)v;
bad:
    bad_spec("HCRT_NODE_THREADS='%s' is not valid: '%.*s' is not a thread "
             "count in 1..4096; write counts by node id ('4,2') or by host "
             "('hostA:4,hostB:2'), or leave an entry empty for the default",
             spec, (int)len, s);
}

/* This node's count in HCRT_NODE_THREADS (0: not named). Plain items are
 * taken by node id in order; "host:n" items apply to every rank on host. */
int hcrt__node_threads_override(const char *spec, int node, const char *host,
                                int nodes)
{
    int pos = 0, found = 0;

    for (const char *s = spec; s && *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *colon = memchr(s, ':', len);
        if (colon) {
            size_t hl = (size_t)(colon - s);
            int n = parse_count(spec, colon + 1, len - hl - 1);
            if (!found && strlen(host) == hl && strncmp(host, s, hl) == 0)
                found = n;
        } else {
            if (len > 0) {
                int n = parse_count(spec, s, len);
                if (pos == node)
                    found = n;
            }
            if (++pos > nodes) {
                char job[16];
                snprintf(job, sizeof(job), "%d", nodes);
                bad_spec("HCRT_NODE_THREADS='%s' names %d nodes but the job "
                         "has %s: give at most one count per node",
                         spec, pos, job);
            }
        }
        s = end ? end + 1 : s + len;
    }
    return found;
}

/* Picks the node's default team size (header comment) and hands it to
 * libomp, whose omp_get_max_threads() the cluster runtime sums. */
static void pick_threads(const hcrt_node_info_t *info, int rank, int size)
{
    const char *spec = hcrt__config_string("HCRT_NODE_THREADS");
    int launched = info->have_pmix || size > 1;
    int n = spec && *spec
                ? hcrt__node_threads_override(spec, rank, info->host, size)
                : 0;

    if (n > 0) {
        team_source = "HCRT_NODE_THREADS";
    } else if (getenv("OMP_NUM_THREADS")) {
        team_source = "OMP_NUM_THREADS";
    } else if (launched && avail_cores > 0) {
        if (avail_cores < info->cores) {
            n = avail_cores;
            team_source = "cores bound to the rank";
        } else {
            int share =
                info->cores / (info->local_size > 0 ? info->local_size : 1);
            int extra =
                info->local_size > 0 ? info->cores % info->local_size : 0;
            n = share + (info->local_rank < extra);
            n = n > 0 ? n : 1;
            team_source = info->local_size > 1 ? "host cores / ranks on host"
                                               : "host cores";
        }
    }
    if (n > 0)
        omp_set_num_threads(n);
    team_default = omp_get_max_threads();
}

void hcrt__node_early(void)
{
    if (gethostname(node.host, sizeof(node.host) - 1) != 0)
        strcpy(node.host, "?");
}

static void probe_cores(void)
{
    probe_hwloc(&node);
}

/* hwloc reads sysfs and opens its plugins (~3 ms of CPU here, as much as
 * a whole empty OpenMP program): a run without a launcher needs the cores
 * only for its statistics and debug lines, so it probes when they ask. */
static void need_cores(void)
{
    pthread_once(&cores_once, probe_cores);
}

static void node_defaults(hcrt_node_info_t *out)
{
    out->have_pmix = 0;
    out->local_rank = 0;
    out->local_size = 1;
    out->node_id = 0;
    out->num_hosts = 1;
    out->cores = out->pus = 1;
}

/* A process whose MPI is the program's own (an MPI+OpenMP program,
 * runtime.md "MPI programs"): no PMIx (the program's MPI_Init starts it
 * its own way) and libomp's default team, as in the plain OpenMP build,
 * unless HCRT_NODE_THREADS names this rank of the job. */
hcrt_status_t hcrt__node_probe_own(int job_rank, int job_size)
{
    const char *spec = hcrt__config_string("HCRT_NODE_THREADS");
    int n = spec && *spec ? hcrt__node_threads_override(spec, job_rank,
                                                        node.host, job_size)
                          : 0;

    node_defaults(&node);
    if (n > 0) {
        omp_set_num_threads(n);
        team_source = "HCRT_NODE_THREADS";
    } else if (getenv("OMP_NUM_THREADS")) {
        team_source = "OMP_NUM_THREADS";
    }
    team_default = omp_get_max_threads();
    return HCRT_OK;
}

hcrt_status_t hcrt__node_probe(void)
{
    hcrt_node_info_t *out = &node;
    int rank = hcrt__rank();

    node_defaults(out);
    probe_pmix(out);
    if (out->have_pmix || hcrt__size() > 1 ||
        hcrt__log_on(HCRT_MOD_CORE, HCRT_LOG_DEBUG))
        need_cores(); /* the team size below depends on them */
    pick_threads(out, rank, hcrt__size());
    hcrt_debug(HCRT_MOD_CORE,
               "node %d: %d of %d cores available, %d rank(s) on host %s; "
               "default team %d thread(s) (%s)",
               rank, avail_cores, out->cores, out->local_size, out->host,
               team_default, team_source);
    return HCRT_OK;
}

void hcrt__node_cores(int *cores, int *pus)
{
    need_cores();
    *cores = node.cores;
    if (pus)
        *pus = node.pus;
}

const hcrt_node_info_t *hcrt__node_info(void)
{
    return &node;
}

const char *hcrt__hostname(void)
{
    return node.host;
}

int hcrt__node_avail_cores(void)
{
    need_cores();
    return avail_cores;
}

int hcrt__node_default_threads(void)
{
    return team_default;
}

const char *hcrt__node_threads_source(void)
{
    return team_source;
}
