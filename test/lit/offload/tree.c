// Tree: a binary reduction tree over W blocks (in place, log2 W levels), then a
// broadcast tree back down; twice.
//
// RUN: %offload %s %t
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int r = 0; r < 2; r++) {
        for (int w = 0; w < W; w++)
            t_upd(m, b[w], r * W + w);
        for (int h = 1; h < W; h *= 2)
            for (int i = 0; i < W; i += 2 * h)
                t_acc(m, b[i + h], b[i], h);
        for (int h = W / 2; h >= 1; h /= 2)
            for (int i = 0; i < W; i += 2 * h)
                t_acc(m, b[i], b[i + h], h + 50);
    }
}

int main(void)
{
    return check("tree", W, graph);
}
