/*
 * hcrt.c - the public API of include/hcrt/hcrt.h.
 */
#include <time.h>

#include "hcrt/hcrt.h"
#include "libhcrt/core.h"
#include "libhcrt/runtime.h"

#define STR2(x) #x
#define STR(x) STR2(x)

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

HCRT_EXPORT int hcrt_node_id(void)
{
    hcrt__runtime_ensure();
    return hcrt__rank();
}

HCRT_EXPORT int hcrt_num_nodes(void)
{
    hcrt__runtime_ensure();
    return hcrt__size();
}

HCRT_EXPORT const char *hcrt_version(void)
{
    return STR(HCRT_VERSION_MAJOR) "." STR(HCRT_VERSION_MINOR) "." STR(
        HCRT_VERSION_PATCH);
}

uint64_t hcrt__now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
