/* nest1.h (no OpenMP) includes nest2.h, which has a clause-less loop. */
#include "inc/nest1.h"
int use(int *a, int n) { return clear(a, n); }
