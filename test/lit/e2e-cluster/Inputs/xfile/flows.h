/* Pointer flows between separately compiled files (xfile_*.c tests): each
 * function here runs a parallel region on memory its caller passed in. */
#ifndef XFILE_FLOWS_H
#define XFILE_FLOWS_H
#include <stddef.h>

#define NROW 4096
extern double grid[NROW];

struct work {
    double *out; /* 5 sums */
    long *count;
    int n;
};

/* flows_b.c */
void norm_atomic(double rms[5]);  /* atomic updates of rms in a region */
void norm_reduce(double rms[5]);  /* reduction(+ : rms[:5]) */
void norm_critical(struct work *w); /* critical section updates */
void set_target(double *p);       /* stores p in a global of flows_b.c */
void fill_target(int n);          /* plain writes through that global */
void make_buffer(double **out, int n); /* returns a heap buffer */
void static_buffer(double **out);      /* returns its own static array */
double sum_buffer(const double *p, int n); /* reduction over p */
typedef void (*cb_t)(void *ctx, int i);
void apply(cb_t cb, void *ctx, int n); /* parallel for calling cb */
/* Sorts runs of `n` elements in parallel with qsort, then merges. */
void psort(void *base, size_t n, size_t size,
           int (*cmp)(const void *, const void *));

/* flows_lib.c, linked from a static library */
void lib_norm(double rms[5]);
#endif
