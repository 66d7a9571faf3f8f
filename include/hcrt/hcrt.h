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

#ifdef __cplusplus
}
#endif

#endif /* HCRT_H */
