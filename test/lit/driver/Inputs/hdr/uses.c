/* Names no OpenMP itself: its header kern.h (-I) has a hetprobe clause. */
#include "kern.h"
double use(double *a, int n) { return fill(a, n); }
