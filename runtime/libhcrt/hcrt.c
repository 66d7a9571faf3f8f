/*
 * hcrt.c - the public API of include/hcrt/hcrt.h (hcrt_strerror is in
 * base/status.c, for every layer).
 */
#include "hcrt/hcrt.h"
#include "libhcrt/core.h"
#include "libhcrt/runtime.h"

#define STR2(x) #x
#define STR(x) STR2(x)

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
