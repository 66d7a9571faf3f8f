/*
 * pool_int.h - shared by the loop pools (pool.c), the HetProbe window
 * protocol (hp_window.c, hp_run.c, hp_loop.c) and its exchange transport
 * (pool_xchg.c). Nothing here needs MPI: the exchange is an opaque object.
 */
#ifndef HCRT_POOL_INT_H
#define HCRT_POOL_INT_H

#include <pthread.h>
#include <stdint.h>

#include "sched/hetprobe.h"
#include "sched/pool.h"

typedef struct hcrt__cl_hp hcrt__cl_hp_t;
typedef struct hcrt__cl_xchg hcrt__cl_xchg_t;

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
    uint64_t *slot;     /* the instance's DSM word (dynamic, guided) */
    int head_alone;     /* hcrt__cl_pool_head_alone */
    hcrt__cl_hp_t *hp;  /* HetProbe: the window protocol's state */
    hcrt__cl_xchg_t *x; /* HetProbe: the probe exchange */
};

typedef struct hcrt__cl_sched_state {
    int loaded;
    int csr_set;                  /* HCRT_SCHED_CSR given */
    double min_window_us;         /* HCRT_SCHED_REPROBE_MIN_US */
    hcrt__hetprobe_settings_t hp; /* HCRT_SCHED_* */
    hcrt__probecache_t *cache;
    pthread_mutex_t cache_mu; /* the probe cache's */
} hcrt__cl_sched_state_t;
extern hcrt__cl_sched_state_t hcrt__cl_sched;

/* hp_loop.c: the settings (once), the decisions of HCRT_STATS, counters */
void hcrt__cl_sched_load(void);
void hcrt__cl_count_chunks(hcrt__cl_pool_kind_t kind, uint64_t chunks,
                           uint64_t refills);
void hcrt__cl_record(const hcrt__cl_pool_t *p,
                     const hcrt__hetprobe_decision_t *d, int probed, int first,
                     uint64_t extended, int dealt);
/* This thread's cache misses and instructions; 0 when the kernel refuses
 * (paranoid, no PMU in a VM). */
int hcrt__cl_perf_read(uint64_t *misses, uint64_t *instr);

/* hp_window.c, hp_run.c: a HetProbe pool's life */
void hcrt__cl_hp_setup(hcrt__cl_pool_t *p, const int *thr, int pct);
void hcrt__cl_hp_free(hcrt__cl_pool_t *p);
int hcrt__cl_hp_next(hcrt__cl_pool_t *p, uint64_t *first, uint64_t *n);

/* pool.c */
uint64_t hcrt__cl_take(hcrt__cl_pool_t *p, int guided, uint64_t min_c,
                       uint64_t max_c, uint64_t *first);

/* pool_xchg.c: one pool's probe exchange between the nodes. A window's
 * messages carry tags from the pool's sequence number and the window. */
hcrt__cl_xchg_t *hcrt__cl_xchg_new(int nn, int me, uint32_t seq);
void hcrt__cl_xchg_free(hcrt__cl_xchg_t *x);
/* Closes probe window `win` for every node (the first node done with its
 * probe share, after probe_us of probing); 0 while nobody closed it, else
 * the closer's probe time in µs + 1 (a local check for a message). */
void hcrt__cl_close(hcrt__cl_xchg_t *x, int win, uint64_t probe_us);
uint64_t hcrt__cl_closed(hcrt__cl_xchg_t *x, int win);
void hcrt__cl_publish(hcrt__cl_xchg_t *x, int win, const uint64_t v[7]);
void hcrt__cl_gather_post(hcrt__cl_xchg_t *x, int win);
int hcrt__cl_gather_test(hcrt__cl_xchg_t *x);
void hcrt__cl_gather_finish(hcrt__cl_xchg_t *x, int win,
                            hcrt__hetprobe_node_meas_t *m);
const uint64_t *hcrt__cl_ext_exchange(hcrt__cl_xchg_t *x, int win,
                                      uint64_t mine, const uint8_t *zoned);
uint64_t hcrt__cl_pack_cmpki(double cmpki);
uint64_t hcrt__cl_fbits(double d);

#endif /* HCRT_POOL_INT_H */
