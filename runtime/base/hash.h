/*
 * hash.h - the 64-bit mixer of the runtime's hash tables (internal).
 */
#ifndef HCRT_BASE_HASH_H
#define HCRT_BASE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Bucket of `key` in a table of `nbuckets` (a power of two). */
static inline size_t hcrt__hash_bucket(uint64_t key, size_t nbuckets)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)(key & (nbuckets - 1));
}

#endif /* HCRT_BASE_HASH_H */
