/*
 * ofl_exec.h - target offload over MPI (internal): the worker ranks are the
 * OpenMP devices; the head places target regions on them, the data manager
 * (datamgr.h) plans the copies and the event system (event/event.h) runs
 * kernels and copies. See docs/offload.md, "Execution".
 */
#ifndef HCRT_OFFLOAD_EXEC_H
#define HCRT_OFFLOAD_EXEC_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "hcrt/abi.h"
#include "hcrt/hcrt.h"

/* Collective over comm (every rank of a job started by __hcrt_main):
 * starts the event system and registers the offload event types. Does
 * nothing (devices stay 0) with one rank or HCRT_OFFLOAD=0. */
void hcrt__offload_init(MPI_Comm comm);
/* Collective: drains and stops the event system. */
void hcrt__offload_fini(void);
/* The head's figures for the statistics table (non-zero: it did work). */
int hcrt__offload_print(FILE *out);
/* Worker ranks serving as devices (0: target regions run on the head). */
int hcrt__offload_ndev(void);
/* On a worker, inside an offloaded kernel: its device number, else -1. */
int hcrt__offload_cur_device(void);

/* Head: runs a target region on a device. Returns 0 when it ran (or was
 * started, for nowait inside a target task: the task completes later), 1
 * when the caller must run it on the head (unsupported forms, with a
 * diagnostic; unknown kernels). */
int32_t hcrt__offload_kernel(hcrt_ident_t *loc, int64_t device_id,
                             const hcrt_kernel_desc_t *k,
                             const hcrt_kernel_args_t *args);

/* Head: target data begin (1), end (2) and update (3) on the devices.
 * Returns 0 when done, 1 when unsupported here (the caller keeps host
 * semantics). */
int hcrt__offload_data(int what, int64_t device_id, int32_t nargs, void **bases,
                       void **ptrs, int64_t *sizes, int64_t *types,
                       void **mappers);

/* Head: whether host address p is mapped in `device`'s data environment
 * (HCRT_OFFLOAD_DATA_ENV=shared: the one of all devices). */
int hcrt__offload_is_present(const void *p, int device);

/* omp_target_alloc for a worker device (head): the block lives in the
 * head's memory and is known as device memory; a region that receives it
 * (is_device_ptr) runs on the head (hcrt__offload_kernel). NULL if size is
 * 0 or memory is short. */
void *hcrt__offload_dev_alloc(size_t size);
/* Frees p if it came from hcrt__offload_dev_alloc: 1, else 0. */
int hcrt__offload_dev_free(void *p);
/* Whether [p, p + len) lies in a block of hcrt__offload_dev_alloc. */
int hcrt__offload_is_dev_mem(const void *p, size_t len);
/* Records the program's `requires` clauses (flags of all modules, or-ed):
 * what they ask decides which target regions may leave the head. */
void hcrt__offload_register_requires(int64_t flags);

/* Task hooks (tasks.c): target tasks are allocated detachable and their
 * depend lists remembered, so a nowait region can complete its task later
 * without a thread waiting for it. */
void *hcrt__offload_target_task_alloc(hcrt_ident_t *loc, int32_t gtid,
                                      int32_t flags, size_t sizeof_task,
                                      size_t sizeof_shareds,
                                      hcrt_task_entry_t entry,
                                      int64_t device_id);
void hcrt__offload_task_deps(void *task, int32_t ndeps,
                             const hcrt_depend_info_t *deps, int32_t nnoalias,
                             const hcrt_depend_info_t *noalias);

#endif /* HCRT_OFFLOAD_EXEC_H */
