/*
 * trace.h - the HCRT_TRACE timeline's events (internal): per-thread
 * buffers, rendered as Chrome/Perfetto trace-event JSON.
 *
 * libhcrt's observation hooks (libhcrt/observe.h) record into it; at
 * shutdown every rank renders its events and the head writes one file.
 */
#ifndef HCRT_TRACE_H
#define HCRT_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "hcrt/abi.h"

/* Non-zero when HCRT_TRACE names a file (set at start-up). */
extern int hcrt__trace_on;

typedef enum hcrt_trace_kind {
    HCRT_TEV_REGION,  /* obj: region descriptor; a: 1 if on the head only */
    HCRT_TEV_LOOP,    /* obj: ident; a: iterations, b: chunks */
    HCRT_TEV_BARRIER, /* obj: NULL */
    HCRT_TEV_DSM,     /* counter sample; a: faults, b: bytes fetched */
    HCRT_TEV_PLACE    /* obj: region descriptor; a: head us/call << 1 |
                         1 if now on the head alone, b: all-nodes us/call */
} hcrt_trace_kind_t;

/* Records one event on the calling thread's track (a span [t0, t1], or a
 * counter sample at t0). `obj` must outlive the run. */
void hcrt__trace_add(hcrt_trace_kind_t kind, const void *obj, uint64_t t0,
                     uint64_t t1, uint64_t a, uint64_t b);
/* This rank's events as JSON objects, each followed by ",\n" (malloc'd,
 * *len bytes), timestamps moved by -offset_ns to the head's clock and made
 * relative to the head's `origin_ns`. */
char *hcrt__trace_render(int64_t offset_ns, uint64_t origin_ns, size_t *len);
/* The head writes one file from every rank's rendered events. */
int hcrt__trace_write(const char *path, char *const *parts, const size_t *lens,
                      int nparts);
/* Events dropped on this rank (buffers full) and recorded. */
uint64_t hcrt__trace_dropped(void);
uint64_t hcrt__trace_count(void);
/* Reads HCRT_TRACE_EVENTS and makes the calling thread track 0 of the
 * node (when tracing). */
void hcrt__trace_init(void);

#endif /* HCRT_TRACE_H */
