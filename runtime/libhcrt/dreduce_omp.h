/*
 * dreduce_omp.h - OpenMP reductions over the dynamic reduction (internal;
 * dreduce_omp.c), and what reduce.c lends it.
 */
#ifndef HCRT_DREDUCE_OMP_H
#define HCRT_DREDUCE_OMP_H

#include <stddef.h>
#include <stdint.h>

#include "hcrt/abi.h"

/* 1: the site's next reduction runs the dynamic scheme (the same answer
 * on every rank). */
int hcrt__dr_omp_mode(const hcrt_ident_t *loc);
/* Records the decision the root or scheduler sent for the site. */
void hcrt__dr_omp_learn(const hcrt_ident_t *loc, int dynamic);
/* The scheme of a site's next reduction, by the rank that saw the whole
 * run: the largest partial of any rank, the measured spread of the ranks'
 * task costs, the longest wait for a late rank. 1: dynamic. */
int hcrt__dr_omp_decide(uint64_t max_window, double spread, double late_ns);
/* Step 2 of a cluster reduction (reduce.c) with the dynamic scheme: this
 * node's partial in `data` (a reduce list of `size` bytes, folded with
 * `fn`) joins the others'; rank 0 ends with the total. */
void hcrt__dr_omp_reduce(hcrt_ident_t *loc, void *data, size_t size,
                         hcrt_reduce_fn_t fn);
/* Reductions run with the dynamic scheme, and decisions that changed. */
void hcrt__dr_omp_counts(uint64_t *dynamic, uint64_t *switches);

/* ---- reduce.c: a partial on the wire ------------------------------------- */

/* Packs the reduce list and the stack window its private copies lie in
 * into a malloc'ed *msg (DSM writes released first); returns its length. */
size_t hcrt__reduce_pack(void *data, size_t size, void **msg);
/* Folds a packed partial into `data` with `fn` (DSM acquired first). */
void hcrt__reduce_unpack_fold(void *data, hcrt_reduce_fn_t fn, void *msg);
/* The bytes hcrt__reduce_pack would produce. */
size_t hcrt__reduce_window(void *data, size_t size);

#endif /* HCRT_DREDUCE_OMP_H */
