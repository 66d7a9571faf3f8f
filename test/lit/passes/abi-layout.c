// The descriptor layouts the pass emits (ForkLowering.cpp, Target.cpp,
// ModuleDesc.cpp, TaskSites.cpp) must match include/hcrt/abi.h: this fails to compile if
// either side changes alone.
// RUN: %clang -fsyntax-only -I %runtime_inc %s
#include <hcrt/abi.h>
#include <stddef.h>

// { i64, ptr, ptr, i32, i32, i32, i32, ptr, ptr, i32, i32 }
_Static_assert(sizeof(hcrt_region_desc_t) == 64, "region desc size");
_Static_assert(offsetof(hcrt_region_desc_t, line) == 24, "region line");
_Static_assert(offsetof(hcrt_region_desc_t, nloops) == 36, "region nloops");
_Static_assert(offsetof(hcrt_region_desc_t, tramp) == 40, "region tramp");
_Static_assert(offsetof(hcrt_region_desc_t, microtask) == 48, "microtask");
_Static_assert(offsetof(hcrt_region_desc_t, flags) == 56, "region flags");
_Static_assert(HCRT_REGION_OWN_DATA == 1, "ForkLowering.cpp flags");
// { i64, ptr, ptr, ptr, ptr, i32, i32, ptr }
_Static_assert(sizeof(hcrt_kernel_desc_t) == 56, "kernel desc size");
_Static_assert(offsetof(hcrt_kernel_desc_t, host_only) == 48, "host_only");
// { ptr, ptr, i64 } (Target.cpp)
_Static_assert(sizeof(hcrt_kernel_global_t) == 24, "kernel global size");
_Static_assert(offsetof(hcrt_kernel_desc_t, host_fn) == 32, "kernel host_fn");
_Static_assert(offsetof(hcrt_kernel_desc_t, line) == 44, "kernel line");
// { i32, i32, ptr, i64, i32, i32, ptr, ptr, ptr, ptr, ptr, ptr }
_Static_assert(sizeof(hcrt_module_desc_t) == 80, "module desc size");
_Static_assert(offsetof(hcrt_module_desc_t, nregions) == 24, "nregions");
_Static_assert(offsetof(hcrt_module_desc_t, regions) == 32, "regions");
_Static_assert(offsetof(hcrt_module_desc_t, shared_begin) == 48, "shared");
_Static_assert(offsetof(hcrt_module_desc_t, shared_bss_end) == 72, "bss end");
_Static_assert(HCRT_ABI_VERSION == 3, "ModuleDesc.cpp AbiVersion");
// { i64, ptr, ptr, i32, i32, ptr } (TaskSites.cpp)
_Static_assert(sizeof(hcrt_task_site_t) == 40, "task site size");
_Static_assert(offsetof(hcrt_task_site_t, line) == 24, "task site line");
_Static_assert(offsetof(hcrt_task_site_t, flags) == 28, "task site flags");
_Static_assert(offsetof(hcrt_task_site_t, entry) == 32, "task site entry");
_Static_assert(HCRT_REGION_TASKS == 2, "ForkLowering.cpp RegionTasks");
