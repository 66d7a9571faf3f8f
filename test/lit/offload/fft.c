// FFT butterfly: log2 W stages where block w combines itself with block w xor
// 2^s, double buffered; two passes.
//
// RUN: %offload %s %t
// RUN: env HCRT_OFFLOAD_BATCH=0 OFFLOAD_RANKS=4 %offload %s %t.nobatch
#include "pattern.h"

static void graph(int m, long **b)
{
    int k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int s = 1; s < W; s *= 2, k++) {
            long **in = b + (k % 2) * W, **out = b + (1 - k % 2) * W;
            for (int w = 0; w < W; w++) {
                int p = w ^ s;
                if (w < p)
                    t_prod2(m, in[w], in[p], out[w], k);
                else
                    t_prod2(m, in[p], in[w], out[w], k + 7);
            }
        }
}

int main(void)
{
    return check("fft", 2 * W, graph);
}
