// Fan-in: W independent producers, then one task reading all W blocks (8
// depend(in) items, 8 maps); the result feeds the next round's producers (WAR
// on every input).
//
// RUN: %offload %s %t
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int r = 0; r < 3; r++) {
        for (int w = 0; w < W; w++)
            t_acc(m, b[W], b[w], r * W + w);
        t_gather(m, b, b[W], 100 + r);
    }
}

int main(void)
{
    return check("fan_in", W + 1, graph);
}
