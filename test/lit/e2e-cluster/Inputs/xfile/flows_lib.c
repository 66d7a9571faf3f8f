/* A parallel region in a static library (xfile_*.c tests). */
#include "flows.h"

void lib_norm(double rms[5])
{
    for (int m = 0; m < 5; m++)
        rms[m] = 0.0;
#pragma omp parallel for reduction(+ : rms[:5]) schedule(static)
    for (int k = 0; k < NROW; k++)
        for (int m = 0; m < 5; m++)
            rms[m] += grid[k] * (m + 1);
}
