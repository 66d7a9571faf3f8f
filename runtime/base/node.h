/*
 * node.h - facts about this node (internal; node.c): PMIx job information,
 * hwloc cores, and the node's default team size derived from them.
 */
#ifndef HCRT_NODE_H
#define HCRT_NODE_H

#include "hcrt/hcrt.h"

typedef struct hcrt_node_info {
    int have_pmix;  /* PMIx answered */
    int local_rank; /* rank among the ranks on this host */
    int local_size; /* ranks on this host */
    int node_id;    /* PMIx node id of this host */
    int num_hosts;  /* hosts in the job */
    int cores;      /* physical cores (hwloc): read hcrt__node_cores() */
    int pus;        /* hardware threads (hwloc): likewise */
    char host[64];  /* host name (PMIx, else gethostname) */
} hcrt_node_info_t;

/* Before MPI: the host name from gethostname (for the log's prefix). */
void hcrt__node_early(void);
/* After MPI (hcrt__proc_set): PMIx facts, hwloc cores, the team size.
 * Without a launcher (one rank, no PMIx) hwloc runs only when the cores
 * are first asked for (hcrt__node_cores, hcrt__node_avail_cores). */
hcrt_status_t hcrt__node_probe(void);
/* Instead, in a program that owns MPI: no PMIx, libomp's default team
 * unless HCRT_NODE_THREADS names job_rank (of the launcher's job_size). */
hcrt_status_t hcrt__node_probe_own(int job_rank, int job_size);
const hcrt_node_info_t *hcrt__node_info(void);
/* This host's name (PMIx's, else gethostname). */
const char *hcrt__hostname(void);

/* The host's physical cores and hardware threads (pus may be NULL). */
void hcrt__node_cores(int *cores, int *pus);
/* Cores in the rank's cpuset (its binding; all cores when unbound). */
int hcrt__node_avail_cores(void);
/* The node's default team size once start-up picked it, and why. */
int hcrt__node_default_threads(void);
const char *hcrt__node_threads_source(void);
/* This node's count in an HCRT_NODE_THREADS value `spec` for node id
 * `node` on `host` in a job of `nodes` nodes; 0 when the value does not
 * name it. A malformed value is fatal (with the accepted syntax). */
int hcrt__node_threads_override(const char *spec, int node, const char *host,
                                int nodes);

#endif /* HCRT_NODE_H */
