/* An include the driver cannot follow: hcc-s2s decides. */
#define HEADER <plain.h>
#include HEADER
int use(void) { return PLAIN; }
