// Chain: 24 inout updates of one block, then 24 producers alternating between
// two blocks (each reads the block the previous one wrote and overwrites the
// one it read: RAW and WAR edges), then a join.
//
// RUN: %offload %s %t
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int s = 0; s < 24; s++)
        t_upd(m, b[0], s);
    for (int s = 0; s < 24; s++)
        t_prod1(m, b[1 + s % 2], b[1 + (s + 1) % 2], s);
    t_acc(m, b[1], b[0], 99);
}

int main(void)
{
    return check("chain", 3, graph);
}
