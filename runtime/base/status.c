/*
 * status.c - hcrt_strerror (public, include/hcrt/hcrt.h): the one status
 * type's messages, for every layer.
 */
#include "hcrt/hcrt.h"

HCRT_EXPORT const char *hcrt_strerror(hcrt_status_t status)
{
    switch (status) {
    case HCRT_OK:
        return "success";
    case HCRT_ERR_INVALID:
        return "invalid argument or setting";
    case HCRT_ERR_NOMEM:
        return "out of memory";
    case HCRT_ERR_MPI:
        return "an MPI call failed";
    case HCRT_ERR_UNSUPPORTED:
        return "not supported";
    case HCRT_ERR_TIMEOUT:
        return "a peer did not answer in time";
    case HCRT_ERR_NODE_FAILED:
        return "a node failed";
    case HCRT_ERR_MISMATCH:
        return "ranks run different binaries or ABIs";
    case HCRT_ERR_BUSY:
        return "busy, try again";
    case HCRT_ERR_IO:
        return "a system call failed";
    case HCRT_ERR_NOT_FOUND:
        return "no such object";
    }
    return "unknown status";
}
