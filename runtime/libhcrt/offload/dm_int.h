/*
 * dm_int.h - internals of the data manager shared by datamgr.c (map
 * semantics) and dm_seg.c (valid copies, sources and transfer ops).
 */
#ifndef HCRT_OFFLOAD_DM_INT_H
#define HCRT_OFFLOAD_DM_INT_H

#include "libhcrt/offload/datamgr.h"
#include "libhcrt/offload/offload_int.h"

/* A node holding the latest version of a segment. round/sends describe
 * the copy's place in the distribution tree of the batch being planned
 * (epoch; from earlier batches: round 0, no sends); op is the op bringing
 * it, until the runtime reports all planned ops complete (settled). */
typedef struct dm_holder {
    int32_t node;
    int32_t round; /* tree depth at which the copy arrives */
    int32_t sends; /* copies already planned out of it this batch */
    uint32_t epoch;
    int64_t op; /* op that brings it, -1: in place */
} dm_holder_t;

/* A byte range of a buffer with one state. Segments tile the buffer. */
typedef struct dm_seg {
    uint64_t off, len;
    uint64_t version;
    int32_t writer; /* node of the last write, -1: never written */
    int32_t nh, hcap;
    dm_holder_t *h; /* empty: never written (uninitialised device memory) */
} dm_seg_t;

typedef struct dm_buf {
    uint64_t id;
    uintptr_t begin;
    uint64_t size;
    int64_t refcount;
    int32_t nseg, segcap;
    dm_seg_t *seg;
    uint64_t *alloc; /* bitset: nodes holding an allocation */
    int32_t naop, aopcap;
    struct dm_aop { /* ALLOC ops planned in the current batch */
        int32_t node;
        uint32_t epoch;
        int64_t op;
    } *aop;
} dm_buf_t;

/* Node copies of buffer `q` hold, at `qoff`, the address of their own copy
 * of `p` + `poff` (PTR_AND_OBJ); the host copy keeps the host pointer. */
typedef struct dm_attach {
    uint64_t q, qoff, p, poff;
} dm_attach_t;

/* The map table of one OpenMP device (hcrt__dm_select). The selected
 * one's fields are loaded into the dm itself, where every function finds
 * them; the counters (ops, buffers, versions, epochs) are the dm's, shared
 * by all devices: ids stay unique and settling covers every device. */
typedef struct dm_env {
    int dev;
    int32_t nbuf, bufcap;
    dm_buf_t **buf;
    int32_t natt, attcap;
    dm_attach_t *att;
} dm_env_t;

struct hcrt__dm {
    int nnodes, words;
    uint32_t epoch;
    int64_t next_op;
    int64_t plan_first; /* first op id of the task being planned */
    int64_t settled;    /* every op below this id has completed */
    uint64_t next_version;
    uint64_t next_buf;
    int32_t nbuf, bufcap;
    dm_buf_t **buf; /* sorted by begin, disjoint */
    int32_t natt, attcap;
    dm_attach_t *att;
    dm_env_t *env; /* every device's table; env[cur] is loaded above */
    int32_t nenv, envcap, cur;
};

/* ---- dm_seg.c ------------------------------------------------------------ */
/* A WAIT for `op` unless it is settled, in this task's plans, or waited
 * for already: ops of one plan run in order, so later ops wait too. */
hcrt_status_t hcrt__dm_wait_for(hcrt__dm_t *dm, hcrt__dm_plan_t *p,
                                const dm_buf_t *b, int node, int64_t op);
hcrt_status_t hcrt__dm_op_push(hcrt__dm_t *dm, hcrt__dm_plan_t *p,
                               const hcrt__dm_op_t *op, int64_t *id);
dm_buf_t *hcrt__dm_buf_new(hcrt__dm_t *dm, uintptr_t begin, uint64_t size);
void hcrt__dm_buf_free(dm_buf_t *b);
/* Splits so that segments start at off and at off + len; returns the index
 * of the first segment of the range. */
hcrt_status_t hcrt__dm_seg_split(dm_buf_t *b, uint64_t off, uint64_t len,
                                 int32_t *first);
void hcrt__dm_seg_merge(dm_buf_t *b);
/* Plans whatever makes [off, off+len) of b valid on node. */
hcrt_status_t hcrt__dm_make_valid(hcrt__dm_t *dm, dm_buf_t *b, uint64_t off,
                                  uint64_t len, int node, hcrt__dm_plan_t *p,
                                  int64_t plan_first);
/* The range now holds a new version, present only on node (op: the op that
 * writes it there, -1 for the task itself). */
hcrt_status_t hcrt__dm_write(hcrt__dm_t *dm, dm_buf_t *b, uint64_t off,
                             uint64_t len, int node, int64_t op);
/* Plans copies of [off, off+len) from the best holders to the host,
 * leaving out the pointer slots attached in b. */
hcrt_status_t hcrt__dm_copy_home(hcrt__dm_t *dm, dm_buf_t *b, uint64_t off,
                                 uint64_t len, hcrt__dm_plan_t *p);
/* ALLOC on node if b has no allocation there; if another task's plan of
 * this batch allocates it, a WAIT for that. */
hcrt_status_t hcrt__dm_ensure_alloc(hcrt__dm_t *dm, dm_buf_t *b, int node,
                                    hcrt__dm_plan_t *p);

#endif /* HCRT_OFFLOAD_DM_INT_H */
