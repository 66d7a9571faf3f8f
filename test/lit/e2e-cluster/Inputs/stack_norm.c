/* The region half of stack_crossfile.c (issue 23): norm() accumulates into
 * the caller's array, a local of another file, inside a parallel region. */
double grid[4096];

void norm(double rms[5])
{
    int m;
    double loc[5];
    for (m = 0; m < 5; m++)
        rms[m] = 0.0;
#pragma omp parallel private(m, loc) shared(rms)
    {
        for (m = 0; m < 5; m++)
            loc[m] = 0.0;
#pragma omp for nowait
        for (int k = 0; k < 4096; k++)
            for (m = 0; m < 5; m++)
                loc[m] += grid[k] * (m + 1);
        for (m = 0; m < 5; m++) {
#pragma omp atomic
            rms[m] += loc[m];
        }
    }
}
