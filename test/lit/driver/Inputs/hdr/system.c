/* syshp.h comes through -isystem: a system header, never rewritten. */
#include <syshp.h>
int use(void) { return sys_loop(3); }
