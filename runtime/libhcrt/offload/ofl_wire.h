/*
 * ofl_wire.h - the offload event types and their headers (internal, shared
 * by the head's executor ofl_exec.c and every rank's handlers ofl_node.c).
 */
#ifndef HCRT_OFFLOAD_WIRE_H
#define HCRT_OFFLOAD_WIRE_H

#include <stdint.h>

#include "libhcrt/event/event.h"

/* Event type ids (event system types 1..63; tests use low ids). */
enum {
    OFL_EV_ALLOC = 40,  /* hdr ofl_buf_hdr: allocate buf (len bytes) */
    OFL_EV_FREE = 41,   /* hdr ofl_buf_hdr: free buf */
    OFL_EV_PUT = 42,    /* hdr ofl_buf_hdr, 1 buffer: write buf[off..) */
    OFL_EV_GET = 43,    /* hdr ofl_buf_hdr, 1 reply buffer: read buf[off..) */
    OFL_EV_ATTACH = 44, /* hdr ofl_attach_hdr */
    OFL_EV_KERNEL = 45, /* hdr ofl_kernel_hdr [+ params, + private data] */
    OFL_EV_GPUT = 46,   /* hdr ofl_buf_hdr (buf 0), 1 buffer: write the
                           executable's static data at offset off */
    OFL_EV_GGET = 47,   /* the same, read (1 reply buffer) */
    OFL_EV_BATCH = 48,  /* hdr ofl_batch_hdr, 1 buffer (the batch blob), 1
                           reply buffer (the GETs' bytes, in order) */
};

typedef struct ofl_buf_hdr {
    uint64_t buf, off, len;
} ofl_buf_hdr_t;

typedef struct ofl_attach_hdr {
    uint64_t buf, off, tbuf, toff;
} ofl_attach_hdr_t;

/* One kernel parameter: a literal (buf 0: the value), a device address
 * (this node's copy of buf + val, val may be negative: a base pointer
 * before the mapped section) or a private copy (buf OFL_PRIV: offset val
 * in the private data buffer). */
#define OFL_PRIV UINT64_MAX
typedef struct ofl_param {
    uint64_t buf;
    int64_t val;
} ofl_param_t;

#define OFL_HDR_PARAMS 14 /* params that fit in the event header */
typedef struct ofl_kernel_hdr {
    uint64_t kernel; /* hcrt_kernel_desc_t.id */
    uint32_t nparams;
    int32_t device;       /* for omp_get_device_num inside the kernel */
    int32_t thread_limit; /* the target's thread_limit clause (0: none) */
    uint32_t pad_;
    ofl_param_t p[OFL_HDR_PARAMS];
} ofl_kernel_hdr_t;

_Static_assert(sizeof(ofl_kernel_hdr_t) <= HCRT_EVENT_HDR_MAX,
               "kernel header too big");

typedef struct ofl_kernel_reply {
    uint64_t run_ns; /* the kernel's own time on the node */
} ofl_kernel_reply_t;

/* A batch: a run of one task's data ops on one node, with its kernel, in
 * one event (one round trip instead of one per op). The blob holds nrec
 * records, then nparams kernel parameters, then priv_len bytes of private
 * data, then put_len bytes: the PUTs' data, in record order. The node runs
 * the records in order; a GET's bytes are appended to the reply buffer. */
enum {
    OFL_REC_ALLOC,
    OFL_REC_PUT,
    OFL_REC_ATTACH,
    OFL_REC_KERNEL,
    OFL_REC_GET,
    OFL_REC_FREE
};

typedef struct ofl_rec {
    uint32_t kind, pad;
    uint64_t buf, off, len; /* ALLOC: len; PUT/GET: the range */
    uint64_t tbuf, toff;    /* ATTACH target */
} ofl_rec_t;

typedef struct ofl_batch_hdr {
    uint64_t kernel; /* hcrt_kernel_desc_t.id, if has_kernel */
    uint32_t nparams;
    int32_t device;
    uint32_t nrec, has_kernel;
    int32_t thread_limit; /* the kernel's thread_limit clause (0: none) */
    uint32_t pad_;
    uint64_t priv_len, put_len, get_len;
} ofl_batch_hdr_t;

/* ofl_node.c: offset of addr from the executable's load address if addr
 * lies in one of its writable segments (its globals), else -1. */
int64_t hcrt__ofl_exe_offset(const void *addr, size_t len);
/* ofl_node.c: registers the handlers (every rank). */
void hcrt__ofl_node_register(void);
/* This rank's copy of buffer `buf` (NULL if none), for local copies. */
void *hcrt__ofl_node_ptr(uint64_t buf);

#endif /* HCRT_OFFLOAD_WIRE_H */
