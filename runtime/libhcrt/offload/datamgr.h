/*
 * datamgr.h - the data manager of target offload (internal, MPI-free): the
 * map table of each OpenMP device (reference counts, sections, structs,
 * pointer attachment) whose device copy is spread over the cluster's nodes,
 * with per-range valid copies, versions and the transfer plans that keep
 * them coherent. Plans are data; the event system executes them.
 * See docs/offload.md.
 */
#ifndef HCRT_OFFLOAD_DATAMGR_H
#define HCRT_OFFLOAD_DATAMGR_H

#include "libhcrt/offload/offload.h"

/* The user's host memory (on the head) as a copy source or destination. */
#define HCRT_DM_HOST (-1)

typedef enum hcrt__dm_op_kind {
    HCRT_DM_OP_ALLOC = 0,  /* allocate buf (len bytes) on dst */
    HCRT_DM_OP_COPY = 1,   /* copy [off, off+len) of buf from src to dst */
    HCRT_DM_OP_ATTACH = 2, /* on dst, store dst's address of tbuf+toff into
                              buf at off (pointer attachment) */
    HCRT_DM_OP_FREE = 3,   /* free buf on dst */
    HCRT_DM_OP_WAIT = 4,   /* the task must not start before op wait_op */
} hcrt__dm_op_kind_t;

/* One step of a plan. `id`s grow over the run. An op may start once its
 * plan's task may start (pre plan: all predecessors done; post plan: the
 * task done) and op `wait_op` (if >= 0) completed: that op produced the
 * copy at `src`. Host addresses let the executor find the user's data. */
typedef struct hcrt__dm_op {
    int64_t id;
    hcrt__dm_op_kind_t kind;
    int32_t src, dst; /* node numbers, or HCRT_DM_HOST */
    uint64_t buf;     /* buffer id: never reused, even after unmapping */
    uintptr_t host;   /* host address of byte 0 of buf */
    uint64_t off, len;
    int64_t wait_op;
    uint64_t tbuf, toff; /* ATTACH target */
    uintptr_t thost;     /* host address of byte 0 of tbuf */
} hcrt__dm_op_t;

typedef struct hcrt__dm_plan {
    hcrt__dm_op_t *ops;
    int32_t n, cap;
} hcrt__dm_plan_t;

void hcrt__dm_plan_clear(hcrt__dm_plan_t *p);
void hcrt__dm_plan_fini(hcrt__dm_plan_t *p);

typedef struct hcrt__dm hcrt__dm_t;

/* `nnodes` >= 1; node 0 is the head (it may hold device copies too, in
 * memory separate from the user's). */
hcrt_status_t hcrt__dm_create(int nnodes, hcrt__dm_t **out);
void hcrt__dm_destroy(hcrt__dm_t *dm);

/* Every OpenMP device has its own data environment (map table, reference
 * counts, attachments): the calls below act on the selected device's,
 * device 0 after create. The nodes a device's copies live on are the
 * whole cluster's either way (a task of device 0's data may run on any
 * node); ids of ops and buffers are unique over all devices, and settling
 * covers all of them. HCRT_ERR_NOMEM if a new table cannot be made (the
 * selection is unchanged). */
hcrt_status_t hcrt__dm_select(hcrt__dm_t *dm, int dev);
int hcrt__dm_selected(const hcrt__dm_t *dm);

/* Starts planning a new batch: one-to-many trees restart from the current
 * holders. Ops of earlier batches may still be running (a size-bound
 * flush): new ops keep waiting for them until hcrt__dm_settle. */
void hcrt__dm_batch_begin(hcrt__dm_t *dm);
/* Every op planned so far has completed (after taskwait or barrier): later
 * plans stop waiting for them. */
void hcrt__dm_settle(hcrt__dm_t *dm);
/* Every op planned before op `op` has completed (later ones may not even
 * have started): later plans stop waiting for those. */
void hcrt__dm_settle_before(hcrt__dm_t *dm, int64_t op);

/* Plans one task placed on `node` (for exit data and update-from the node
 * is ignored). Call in recording order (a topological order of the batch).
 * `pre` gets what must happen before the task runs, `post` what follows
 * its completion; both are appended to. Errors, found before anything
 * changes (the table and the plans are left as they were):
 * HCRT_ERR_INVALID for a map that extends an existing mapping (the spec
 * forbids it) or a member outside its mapped parent, HCRT_ERR_NOT_FOUND for
 * `present` on unmapped data, HCRT_ERR_UNSUPPORTED (see hcrt__ofl_classify). */
typedef struct hcrt__dm_xlate {
    uint64_t buf; /* 0: not mapped data (literal, private, zero length) */
    uint64_t off; /* of the entry's begin in buf */
} hcrt__dm_xlate_t;

/* `xlate` (NULL, or one slot per map entry) gets where each entry lives:
 * on the task's node, the kernel argument of an entry is that node's copy
 * of `buf` + off (for PTR_AND_OBJ the pointee's). */
hcrt_status_t hcrt__dm_plan_task(hcrt__dm_t *dm, const hcrt__ofl_task_desc_t *t,
                                 int node, hcrt__dm_plan_t *pre,
                                 hcrt__dm_plan_t *post,
                                 hcrt__dm_xlate_t *xlate);

/* ---- queries ------------------------------------------------------------ */

/* The buffer holding host address `addr`: its id, the offset of addr and
 * the host address of its start. HCRT_ERR_NOT_FOUND if unmapped. The
 * kernel's argument on node n is (n's copy of buf) + off. */
hcrt_status_t hcrt__dm_lookup(const hcrt__dm_t *dm, const void *addr,
                              uint64_t *buf, uint64_t *off, uintptr_t *host);
/* The mapped range holding addr: its host start and size.
 * HCRT_ERR_NOT_FOUND if unmapped. */
hcrt_status_t hcrt__dm_extent(const hcrt__dm_t *dm, const void *addr,
                              void **begin, int64_t *size);
/* The mapped ranges overlapping [addr, addr+len): how many; the first
 * `max` of them (host start, size) in address order. */
int32_t hcrt__dm_overlapping(const hcrt__dm_t *dm, const void *addr,
                             int64_t len, void **begins, int64_t *sizes,
                             int32_t max);
/* Reference count of the mapping holding addr, or -1 if unmapped. */
int64_t hcrt__dm_refcount(const hcrt__dm_t *dm, const void *addr);
int32_t hcrt__dm_nbuffers(const hcrt__dm_t *dm);
/* Buffers of every device's table allocated on `node`: how many, their
 * bytes, the host address of the first (FT mode: what a lost node held). */
int32_t hcrt__dm_on_node(hcrt__dm_t *dm, int node, uint64_t *bytes,
                         uintptr_t *first);
/* Whether node holds a valid (latest) copy of every byte in the range. */
int hcrt__dm_is_valid(const hcrt__dm_t *dm, const void *addr, int64_t len,
                      int node);
/* Latest version of the byte at addr (bumped by every write), -1 if
 * unmapped. */
int64_t hcrt__dm_version(const hcrt__dm_t *dm, const void *addr);
/* Node of the last write of the byte at addr (a kernel's node, or the
 * destination of a `to` copy); -1 if never written or unmapped. */
int hcrt__dm_writer(const hcrt__dm_t *dm, const void *addr);
/* Nodes holding a valid copy of the whole range (up to max); 0 if none or
 * unmapped. Matches hcrt__dg_holders_cb (pass the dm as arg). */
int hcrt__dm_holders(void *dm, const void *begin, int64_t size, int *nodes,
                     int max);

#endif /* HCRT_OFFLOAD_DATAMGR_H */
