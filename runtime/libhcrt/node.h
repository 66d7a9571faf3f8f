/*
 * node.h - the node's default team size and the cores it may use
 * (internal; node.c). The facts themselves are hcrt_node_info_t (core.h).
 */
#ifndef HCRT_NODE_H
#define HCRT_NODE_H

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
