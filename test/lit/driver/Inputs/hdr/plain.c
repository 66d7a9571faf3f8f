/* Its header has no OpenMP: nothing for hcc-s2s to do. */
#include <plain.h>
int use(void) { return PLAIN; }
