/*
 * offload.h - types shared by the MPI-free core of target offload (internal):
 * the dependence recorder (depgraph.h) and the data manager (datamgr.h).
 * See docs/offload.md.
 */
#ifndef HCRT_OFFLOAD_H
#define HCRT_OFFLOAD_H

#include <stdint.h>

#include "hcrt/abi.h"
#include "hcrt/hcrt.h"

/* Map-type bits, as libomptarget's OMP_TGT_MAPTYPE_*. */
enum {
    HCRT_OFL_MAP_TO = 0x01,
    HCRT_OFL_MAP_FROM = 0x02,
    HCRT_OFL_MAP_ALWAYS = 0x04,
    HCRT_OFL_MAP_DELETE = 0x08,
    HCRT_OFL_MAP_PTR_AND_OBJ = 0x10,
    HCRT_OFL_MAP_TARGET_PARAM = 0x20,
    HCRT_OFL_MAP_RETURN_PARAM = 0x40,
    HCRT_OFL_MAP_PRIVATE = 0x80,
    HCRT_OFL_MAP_LITERAL = 0x100,
    HCRT_OFL_MAP_IMPLICIT = 0x200,
    HCRT_OFL_MAP_CLOSE = 0x400,
    HCRT_OFL_MAP_PRESENT = 0x1000,
    HCRT_OFL_MAP_OMPX_HOLD = 0x2000,
};
#define HCRT_OFL_MAP_MEMBER_OF(t) ((int)(((uint64_t)(t) >> 48) & 0xffff))

/* Depend flags, as libomp's kmp_depend_info_t (hcrt_depend_info_t). */
enum {
    HCRT_OFL_DEP_IN = 1,
    HCRT_OFL_DEP_OUT = 2,
    HCRT_OFL_DEP_INOUT = 3,
    HCRT_OFL_DEP_MTX = 4,
    HCRT_OFL_DEP_SET = 8,
    HCRT_OFL_DEP_ALL = 0x80, /* omp_all_memory (base_addr 0 or -1) */
};

/* One map entry, the four arrays clang passes to __tgt_target_* zipped. */
typedef struct hcrt__ofl_map {
    void *base;
    void *begin;
    int64_t size;
    int64_t type;
} hcrt__ofl_map_t;

typedef enum hcrt__ofl_kind {
    HCRT_OFL_HOST_TASK = 0,   /* plain `task`: runs on the head */
    HCRT_OFL_KERNEL = 1,      /* `target` region */
    HCRT_OFL_DATA_ENTER = 2,  /* `target enter data` / start of `target data` */
    HCRT_OFL_DATA_EXIT = 3,   /* `target exit data` / end of `target data` */
    HCRT_OFL_DATA_UPDATE = 4, /* `target update` (to: entries TO, from: FROM) */
} hcrt__ofl_kind_t;

/* One recorded task as the runtime describes it. Arrays are copied. */
typedef struct hcrt__ofl_task_desc {
    hcrt__ofl_kind_t kind;
    uint64_t kernel; /* kernel id (hcrt_kernel_desc_t.id), 0 if none */
    double work;     /* cost-model multiplier, 1 for one launch */
    int pin;         /* node forced by device(n) or a host task; -1: free */
    const hcrt_depend_info_t *deps;
    int32_t ndeps;
    const hcrt_depend_info_t *noalias;
    int32_t nnoalias;
    const hcrt__ofl_map_t *maps;
    int32_t nmaps;
} hcrt__ofl_task_desc_t;

/* Why a construct cannot be offloaded (see hcrt__ofl_classify). */
typedef enum hcrt__ofl_unsupported {
    HCRT_OFL_OK = 0,
    HCRT_OFL_USE_DEVICE_PTR,  /* use_device_ptr/addr: RETURN_PARAM entries */
    HCRT_OFL_HOLD,            /* ompx_hold */
    HCRT_OFL_USM,             /* requires unified_shared_memory */
    HCRT_OFL_UNIFIED_ADDRESS, /* requires unified_address */
    HCRT_OFL_DEVICE_PTR,      /* is_device_ptr / omp_target_alloc memory */
    HCRT_OFL_BAD_MAP, /* malformed entry (negative size, bad MEMBER_OF) */
} hcrt__ofl_unsupported_t;

/* Classifies a map list: HCRT_OK, or HCRT_ERR_UNSUPPORTED /
 * HCRT_ERR_INVALID with *why (may be NULL) naming the form; the runtime
 * prints a diagnostic and runs the construct on the head. */
hcrt_status_t hcrt__ofl_classify(const hcrt__ofl_map_t *maps, int32_t nmaps,
                                 hcrt__ofl_unsupported_t *why);
/* Classifies __tgt_register_requires flags (OMP_REQ_*: 0x2 reverse_offload,
 * 0x4 unified_address, 0x8 unified_shared_memory, 0x10 dynamic_allocators). */
hcrt_status_t hcrt__ofl_classify_requires(int64_t flags,
                                          hcrt__ofl_unsupported_t *why);
/* A one-line, user-facing explanation of `why` (never NULL). */
const char *hcrt__ofl_unsupported_str(hcrt__ofl_unsupported_t why);

#endif /* HCRT_OFFLOAD_H */
