/*
 * hcrt.h - public API of the hcc cluster runtime (libhcrt).
 *
 * Programs compiled with hcc need none of this: plain OpenMP is enough. These
 * calls let a program (or a test) ask about the cluster it runs on.
 */
#ifndef HCRT_H
#define HCRT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HCRT_BUILDING_RUNTIME)
#define HCRT_EXPORT __attribute__((visibility("default")))
#else
#define HCRT_EXPORT
#endif

#define HCRT_VERSION_MAJOR 0
#define HCRT_VERSION_MINOR 1
#define HCRT_VERSION_PATCH 0

/* One status type everywhere: 0 is success, errors are negative. */
typedef enum hcrt_status {
    HCRT_OK = 0,
    HCRT_ERR_INVALID = -1,     /* bad argument or setting */
    HCRT_ERR_NOMEM = -2,       /* out of memory (host or DSM range) */
    HCRT_ERR_MPI = -3,         /* an MPI call failed */
    HCRT_ERR_UNSUPPORTED = -4, /* construct or mode not supported */
    HCRT_ERR_TIMEOUT = -5,     /* a peer did not answer in time */
    HCRT_ERR_NODE_FAILED = -6, /* a node died or was cut off */
    HCRT_ERR_MISMATCH = -7,    /* ranks run different binaries / ABIs */
    HCRT_ERR_BUSY = -8,        /* try again */
    HCRT_ERR_IO = -9,          /* a system call failed */
    HCRT_ERR_NOT_FOUND = -10,  /* no such object */
} hcrt_status_t;

/* A static string describing `status`. */
HCRT_EXPORT const char *hcrt_strerror(hcrt_status_t status);

/* This rank's node number (0 is the head) and the number of nodes. */
HCRT_EXPORT int hcrt_node_id(void);
HCRT_EXPORT int hcrt_num_nodes(void);

/* "major.minor.patch" of the runtime in use. */
HCRT_EXPORT const char *hcrt_version(void);

/* ---- reductions across ranks (docs/reduce.md) ---------------------------
 *
 * The task-based dynamic reduction: ready partials are paired as they
 * arrive, each pair reduced on the faster of the two holders, data moving
 * rank to rank. Collective: every rank starts the same reductions in the
 * same order (one rank's k-th start matches every other's k-th), each
 * with the same count, type, operator and root. Any number may run at
 * once. Progress happens inside hcrt_future_test / hcrt_future_wait and
 * inside any other reduction call on the rank.
 */

typedef enum hcrt_type {
    HCRT_INT8,
    HCRT_UINT8,
    HCRT_INT16,
    HCRT_UINT16,
    HCRT_INT32,
    HCRT_UINT32,
    HCRT_INT64,
    HCRT_UINT64,
    HCRT_FLOAT,
    HCRT_DOUBLE,
    HCRT_LONG_DOUBLE,
    HCRT_FLOAT_COMPLEX,
    HCRT_DOUBLE_COMPLEX,
    HCRT_TYPE_COUNT
} hcrt_type_t;

/* OpenMP's reduction operators ('-' reduces as '+'). Bitwise operators
 * take integer types; complex types take SUM and PROD. */
typedef enum hcrt_op {
    HCRT_OP_SUM,
    HCRT_OP_PROD,
    HCRT_OP_MIN,
    HCRT_OP_MAX,
    HCRT_OP_BAND,
    HCRT_OP_BOR,
    HCRT_OP_BXOR,
    HCRT_OP_LAND,
    HCRT_OP_LOR,
    HCRT_OP_COUNT
} hcrt_op_t;

/* A user operator: combines `count` elements of `in` into `inout`. It
 * must be associative and commutative (the pairing order is dynamic). */
typedef void (*hcrt_reduce_op_cb)(void *inout, const void *in, size_t count,
                                  void *arg);

typedef struct hcrt_future hcrt_future_t;

/* How a reduction ended. */
typedef struct hcrt_reduce_status {
    hcrt_status_t status; /* HCRT_OK: the root's recvbuf has the result */
    int lost_rank;        /* the rank whose input was lost, else -1 */
    int recovered;        /* inputs rebuilt from a raw copy or replica */
    const char *why;      /* the reason in words (static) */
} hcrt_reduce_status_t;

/* Starts a reduction of `count` elements of `sendbuf` into the root's
 * `recvbuf` (ignored elsewhere; may equal sendbuf). Both buffers must stay
 * untouched until the future is waited for. */
HCRT_EXPORT hcrt_status_t hcrt_reduce_start(const void *sendbuf, void *recvbuf,
                                            size_t count, hcrt_type_t type,
                                            hcrt_op_t op, int root,
                                            hcrt_future_t **future);
/* The same with a user operator over elements of `size` bytes. */
HCRT_EXPORT hcrt_status_t hcrt_reduce_start_user(
    const void *sendbuf, void *recvbuf, size_t count, size_t size,
    hcrt_reduce_op_cb op, void *arg, int root, hcrt_future_t **future);
/* *done = 1 once the reduction ended on this rank (then wait returns at
 * once). */
HCRT_EXPORT hcrt_status_t hcrt_future_test(hcrt_future_t *future, int *done);
/* Waits for the end, fills *status (may be NULL), frees the future and
 * returns the status. Never waits for ever: a failed rank ends it. */
HCRT_EXPORT hcrt_status_t hcrt_future_wait(hcrt_future_t *future,
                                           hcrt_reduce_status_t *status);
/* Blocking: start and wait. */
HCRT_EXPORT hcrt_status_t hcrt_reduce(const void *sendbuf, void *recvbuf,
                                      size_t count, hcrt_type_t type,
                                      hcrt_op_t op, int root,
                                      hcrt_reduce_status_t *status);

#ifdef __cplusplus
}
#endif

#endif /* HCRT_H */
