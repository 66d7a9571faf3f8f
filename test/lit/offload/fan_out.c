// Fan-out: a root block updated, then read by W tasks that each write their own
// block; three rounds, so each root update must wait for every reader of the
// previous round (in-set then inout) and each reader's write for the previous
// round's.
//
// RUN: %offload %s %t
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int r = 0; r < 3; r++) {
        t_upd(m, b[0], r);
        for (int w = 1; w <= W; w++)
            t_prod1(m, b[0], b[w], r * 10 + w);
    }
}

int main(void)
{
    return check("fan_out", W + 1, graph);
}
