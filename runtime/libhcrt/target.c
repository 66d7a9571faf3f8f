/*
 * target.c - target regions (__hcrt_target_kernel).
 *
 * With worker ranks as devices (HCRT_OFFLOAD, several ranks) a region goes
 * to offload/ofl_target.c, which runs it on a worker node. Otherwise (one
 * rank, the host device, unsupported forms) it runs its host fallback here,
 * through the kernel's trampoline, with the parameter vector libomptarget
 * would build for a host device. A kernel hcrt does not know (a translation
 * unit not built by hcc) returns 1, and clang's code then runs the host
 * fallback itself.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "base/log.h"
#include "base/stats.h"
#include "libhcrt/core.h"
#include "libhcrt/offload/ofl_exec.h"
#include "libhcrt/target.h"

#define MAX_STACK_PARAMS 64

static uint64_t unknown_kernels; /* fallback: kernel not registered */
static uint64_t bad_version;     /* fallback: kernel args of another ABI */
static int warned_version;

int hcrt__num_devices(void)
{
    return hcrt__offload_ndev(); /* the worker ranks, or none */
}

int hcrt__device_is_host(int64_t device_id)
{
    int ndev = hcrt__num_devices();
    /* -1: omp_initial_device, or OFFLOAD_DEVICE_DEFAULT (the default
     * device: the host only when there is no other). */
    return (device_id == -1 && ndev == 0) || device_id == ndev;
}

/* The kernel's parameters: one per TARGET_PARAM entry, in order. Both a
 * pointer argument (which aliases host memory on the host device) and a
 * literal (passed by value in the base pointer slot) come from arg_base_ptrs.
 * For PTR_AND_OBJ the base is the pointer's own address (e.g. &gp for a
 * global `gp` mapped as gp[0:n]) and the kernel receives the pointee, as
 * libomptarget passes it. */
static uint32_t kernel_params(const hcrt_kernel_args_t *args, void **params)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < args->num_args; i++) {
        int64_t type = args->arg_types[i];
        if (!(type & HCRT_MAP_TARGET_PARAM))
            continue;
        void *base = args->arg_base_ptrs[i];
        params[n++] = (type & HCRT_MAP_PTR_AND_OBJ) ? *(void **)base : base;
    }
    return n;
}

static int version_ok(const hcrt_kernel_args_t *args)
{
    if (HCRT_LIKELY(args && args->version == HCRT_KERNEL_ARGS_VERSION))
        return 1;
    __atomic_fetch_add(&bad_version, 1, __ATOMIC_RELAXED);
    if (!__atomic_exchange_n(&warned_version, 1, __ATOMIC_RELAXED))
        hcrt_warn(HCRT_MOD_TARGET,
                  "target kernel arguments have version %u, this runtime "
                  "knows version %d: target regions run as plain host code "
                  "(rebuild with the hcc matching this runtime)",
                  args ? args->version : 0u, HCRT_KERNEL_ARGS_VERSION);
    return 0;
}

static void kernel_run(hcrt_kernel_stats_t *k, void **params)
{
    uint64_t t0 = hcrt__stats_on ? hcrt__now_ns() : 0;

    k->desc->tramp(params);
    __atomic_fetch_add(&k->launches, 1, __ATOMIC_RELAXED);
    if (hcrt__stats_on)
        __atomic_fetch_add(&k->time_ns, hcrt__now_ns() - t0, __ATOMIC_RELAXED);
}

HCRT_ABI_EXPORT int32_t __hcrt_target_kernel(
    hcrt_ident_t *loc, int64_t device_id, int32_t num_teams,
    int32_t thread_limit, void *host_ptr, hcrt_kernel_args_t *args)
{
    void *stack_params[MAX_STACK_PARAMS], **params = stack_params;
    hcrt_kernel_stats_t *k;

    (void)num_teams, (void)thread_limit;
    hcrt__runtime_ensure();
    if (!version_ok(args))
        return 1;
    k = hcrt__registry_kernel(host_ptr);
    if (!k || !k->desc->tramp) {
        __atomic_fetch_add(&unknown_kernels, 1, __ATOMIC_RELAXED);
        hcrt_debug(HCRT_MOD_TARGET,
                   "kernel %p is not registered: host "
                   "fallback by the caller",
                   host_ptr);
        return 1;
    }
    if (hcrt__num_devices() > 0 &&
        hcrt__offload_kernel(loc, device_id, k->desc, args) == 0) {
        __atomic_fetch_add(&k->launches, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&k->offloaded, 1, __ATOMIC_RELAXED);
        return 0; /* ran (or, nowait, runs) on a worker node */
    }
    if (args->num_args > MAX_STACK_PARAMS) {
        params = malloc(args->num_args * sizeof(void *));
        if (!params)
            hcrt_fatal(HCRT_MOD_TARGET,
                       "out of memory for %u kernel "
                       "arguments",
                       args->num_args);
    }
    kernel_params(args, params);
    kernel_run(k, params);
    if (params != stack_params)
        free(params);
    return 0;
}

static int print_target(FILE *out, void *arg)
{
    (void)arg;
    fprintf(out,
            "devices %d; kernels run by the caller's host fallback: "
            "unregistered %" PRIu64 ", wrong args version %" PRIu64 "\n",
            hcrt__num_devices(), unknown_kernels, bad_version);
    int said = unknown_kernels || bad_version;
    said |= hcrt__target_data_print(out);
    said |= hcrt__offload_print(out);
    return said;
}

void hcrt__target_stats_init(void)
{
    hcrt__stats_register("target offload", print_target, NULL);
}
