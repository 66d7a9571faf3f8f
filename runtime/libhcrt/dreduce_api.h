/*
 * dreduce_api.h - the public reduction API's element operators
 * (dreduce_ops.c), internal.
 */
#ifndef HCRT_DREDUCE_API_H
#define HCRT_DREDUCE_API_H

#include <stddef.h>

#include "hcrt/hcrt.h"

/* out[i] = a[i] op b[i] for i < n; 0 if the type does not take the op. */
int hcrt__dr_op_apply(hcrt_type_t t, hcrt_op_t op, void *out, const void *a,
                      const void *b, size_t n);
/* Bytes of one element, 0 for no such type. */
size_t hcrt__dr_type_size(hcrt_type_t t);

#endif /* HCRT_DREDUCE_API_H */
