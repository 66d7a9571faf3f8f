/*
 * clock.h - the runtime's one clock (internal): monotonic nanoseconds.
 */
#ifndef HCRT_CLOCK_H
#define HCRT_CLOCK_H

#include <stdint.h>

uint64_t hcrt__now_ns(void);

#endif /* HCRT_CLOCK_H */
