/*
 * cluster_sched_int.h - shared by cluster_sched.c (pools, exchange) and
 * cluster_hp.c (the HetProbe window protocol, settings, stats).
 */
#ifndef HCRT_CLUSTER_SCHED_INT_H
#define HCRT_CLUSTER_SCHED_INT_H

#include <mpi.h>
#include <pthread.h>
#include <stdint.h>

#include "libhcrt/cluster_sched.h"
#include "sched/hetprobe.h"

typedef struct hcrt__cl_hp hcrt__cl_hp_t;

struct hcrt__cl_pool {
    struct hcrt__cl_pool *next;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint32_t seq;
    hcrt__cl_pool_kind_t kind;
    hcrt_ident_t *loc;
    uint64_t trip, chunk;
    int nn, me, local, total;
    int refs, left, leaving; /* threads joined, gone, leaving */
    int cancelled;           /* dynamic/guided: no more refills (cancel) */
    uint64_t lo, hi;         /* this node's current range */
    uint64_t refills, chunks;
    hcrt__cl_hp_t *hp;
    /* the probe exchange's window (cluster_sched.c): its number, whether
     * this node sent a close, the first close received (its value), from
     * which nodes a close came, this node's message and close, the
     * requests (measurement sends, receives, close sends: nn - 1 each) */
    int xwin, xsent;
    uint64_t xclose, xclose_v;
    uint8_t *xgot;
    uint64_t xmine[7];
    MPI_Request *xreq;
    uint64_t *xin;  /* the others' measurements: (nn - 1) x 7 words */
    uint64_t *xext; /* every node's extension (hcrt__cl_ext_exchange) */
};

typedef struct hcrt__cl_sched_state {
    int loaded;
    int csr_set;                  /* HCRT_SCHED_CSR given */
    hcrt__hetprobe_settings_t hp; /* HCRT_SCHED_* */
    hcrt__probecache_t *cache;
} hcrt__cl_sched_state_t;
extern hcrt__cl_sched_state_t hcrt__cl_sched;

void hcrt__cl_sched_load(void);

/* cluster_hp.c */
void hcrt__cl_hp_setup(hcrt__cl_pool_t *p, int pct);
void hcrt__cl_hp_free(hcrt__cl_pool_t *p);
int hcrt__cl_hp_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n);
void hcrt__cl_count_chunks(hcrt__cl_pool_kind_t kind, uint64_t chunks,
                           uint64_t refills);

/* cluster_sched.c */
int hcrt__cl_hp_windows(hcrt__cl_pool_kind_t kind, uint64_t trip, int pct);
uint64_t hcrt__cl_take(hcrt__cl_pool_t *p, int guided, uint64_t min_c,
                       uint64_t max_c, uint64_t *first);
void hcrt__cl_publish(hcrt__cl_pool_t *p, int win, const uint64_t v[6]);
void hcrt__cl_gather_post(hcrt__cl_pool_t *p, int win);
int hcrt__cl_gather_test(hcrt__cl_pool_t *p);
void hcrt__cl_gather_finish(hcrt__cl_pool_t *p, int win,
                            hcrt__hetprobe_node_meas_t *m);
const uint64_t *hcrt__cl_ext_exchange(hcrt__cl_pool_t *p, int win,
                                      uint64_t mine, const uint8_t *zoned);
/* Closes probe window `win` for every node (the first node done with its
 * probe share, after probe_us of probing); 0 while nobody closed it, else
 * the closer's probe time in µs + 1 (a local check for a message). */
void hcrt__cl_close(hcrt__cl_pool_t *p, int win, uint64_t probe_us);
uint64_t hcrt__cl_closed(hcrt__cl_pool_t *p, int win);
uint64_t hcrt__cl_pack_cmpki(double cmpki);
uint64_t hcrt__cl_fbits(double d);

#endif /* HCRT_CLUSTER_SCHED_INT_H */
