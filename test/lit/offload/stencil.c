// Stencil: 1-D three-point stencil over W blocks, 6 steps, double buffered
// (every task reads its neighbours' blocks of the previous step).
//
// RUN: %offload %s %t
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int s = 0; s < 6; s++) {
        long **cur = b + (s % 2) * W, **nxt = b + (1 - s % 2) * W;
        for (int w = 0; w < W; w++) {
            if (w == 0)
                t_prod2(m, cur[0], cur[1], nxt[0], s);
            else if (w == W - 1)
                t_prod2(m, cur[W - 2], cur[W - 1], nxt[W - 1], s);
            else
                t_prod3(m, cur[w - 1], cur[w], cur[w + 1], nxt[w], s);
        }
    }
}

int main(void)
{
    return check("stencil", 2 * W, graph);
}
