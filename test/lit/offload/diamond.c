// Diamond: a -> (b, c) -> d -> a, eight diamonds in a row.
//
// RUN: %offload %s %t
#include "pattern.h"

static void graph(int m, long **b)
{
    for (int r = 0; r < 8; r++) {
        t_prod1(m, b[0], b[1], r);
        t_prod1(m, b[0], b[2], r + 100);
        t_prod2(m, b[1], b[2], b[3], r);
        t_acc(m, b[3], b[0], r);
    }
}

int main(void)
{
    return check("diamond", 4, graph);
}
