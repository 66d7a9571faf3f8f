/*
 * dred_int.h - helpers shared by dred.c and dred_ft.c (internal).
 */
#ifndef HCRT_SCHED_DRED_INT_H
#define HCRT_SCHED_DRED_INT_H

#include "sched/dred.h"

hcrt_status_t hcrt__dred_push(hcrt__dred_t *d, const hcrt__dred_msg_t *m);
hcrt__dred_msg_t hcrt__dred_pop(hcrt__dred_t *d);
/* A zeroed path bitset, with `rank` set when >= 0; NULL: out of memory. */
uint64_t *hcrt__dred_path_new(const hcrt__dred_t *d, int rank);
/* The index of task `id` among those handed out, or -1. */
int hcrt__dred_find_task(const hcrt__dred_t *d, int id);
/* Forgets task index i (its messages' paths now belong to the caller). */
void hcrt__dred_drop_task(hcrt__dred_t *d, int i);

#endif /* HCRT_SCHED_DRED_INT_H */
