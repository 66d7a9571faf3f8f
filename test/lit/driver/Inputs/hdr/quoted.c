/* qloop.h is found through -iquote. */
#include "qloop.h"
int use(int *a, int n) { return qclear(a, n); }
