// All-to-all: every task of a step reads all W blocks of the previous step (W x
// W edges per step), double buffered, 3 steps.
//
// RUN: %offload %s %t
// RUN: env HCRT_OFFLOAD_BATCH=0 OFFLOAD_RANKS=4 %offload %s %t.nobatch
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int s = 0; s < 3; s++) {
        long **in = b + (s % 2) * W, **out = b + (1 - s % 2) * W;
        for (int w = 0; w < W; w++)
            t_gather(m, in, out[w], s * W + w);
    }
}

int main(void)
{
    return check("all_to_all", 2 * W, graph);
}
