/*
 * node.c - facts about this node: PMIx job information and hwloc cores.
 *
 * The one-node runtime only records them (they appear in debug logs and are
 * what the cluster runtime will use to group ranks into nodes and size its
 * schedules). Without PMIx (a singleton run) everything degrades to "one rank
 * alone on this host".
 */
#include <hwloc.h>
#include <pmix.h>
#include <stdlib.h>
#include <string.h>

#include "libhcrt/core.h"
#include "libhcrt/log.h"

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

static void probe_hwloc(hcrt_node_info_t *out)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) != 0)
        return;
    if (hwloc_topology_load(topo) == 0) {
        int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        out->pus = pus > 0 ? pus : 1;
        out->cores = cores > 0 ? cores : out->pus;
    }
    hwloc_topology_destroy(topo);
}

hcrt_status_t hcrt__node_probe(hcrt_node_info_t *out, int rank)
{
    (void)rank;
    out->have_pmix = 0;
    out->local_rank = 0;
    out->local_size = 1;
    out->node_id = 0;
    out->num_hosts = 1;
    out->cores = out->pus = 1;
    probe_pmix(out);
    probe_hwloc(out);
    return HCRT_OK;
}
