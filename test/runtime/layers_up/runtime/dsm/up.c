/* A DSM file that includes a header of the layer above (libhcrt): the
 * layer check (scripts/check_layers.py) must reject it. */
#include "base/log.h"
#include "libhcrt/cluster.h"
