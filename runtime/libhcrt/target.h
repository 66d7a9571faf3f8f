/*
 * target.h - shared by target.c and target_data.c (internal).
 */
#ifndef HCRT_TARGET_H
#define HCRT_TARGET_H

#include <stdint.h>
#include <stdio.h>

/* OpenMP map-type bits (libomptarget's OMP_TGT_MAPTYPE_*). */
enum {
    HCRT_MAP_TO = 0x01,
    HCRT_MAP_FROM = 0x02,
    HCRT_MAP_ALWAYS = 0x04,
    HCRT_MAP_DELETE = 0x08,
    HCRT_MAP_PTR_AND_OBJ = 0x10,
    HCRT_MAP_TARGET_PARAM = 0x20,
    HCRT_MAP_RETURN_PARAM = 0x40,
    HCRT_MAP_PRIVATE = 0x80,
    HCRT_MAP_LITERAL = 0x100,
    HCRT_MAP_IMPLICIT = 0x200,
    HCRT_MAP_CLOSE = 0x400,
    HCRT_MAP_PRESENT = 0x1000,
    HCRT_MAP_OMPX_HOLD = 0x2000
};

/* Whether device_id names the host device (the head on one node). */
int hcrt__device_is_host(int64_t device_id);
/* Prints the host device's mapping counts; non-zero if there were any. */
int hcrt__target_data_print(FILE *out);

#endif /* HCRT_TARGET_H */
