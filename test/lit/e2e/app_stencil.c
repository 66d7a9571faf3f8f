// A small application: 2-D Jacobi relaxation on heap grids swapped every
// sweep, a max-norm convergence test (order-independent), a boundary
// update in a single, and a final sequential checksum of the field.
// RUN: %e2e --O0 %s %t
#include <math.h>
#include <stdlib.h>

#include "e2e.h"

#define NX 130
#define NY 97

int main(void)
{
    double *u = calloc(NX * NY, sizeof(double));
    double *v = calloc(NX * NY, sizeof(double));
    int sweeps = 0;
    double delta = 1;
    /* hot top edge, cold elsewhere */
    for (int j = 0; j < NY; j++)
        u[j] = v[j] = 100.0;
    while (delta > 1e-3 && sweeps < 400) {
        delta = 0;
#pragma omp parallel
        {
#pragma omp for reduction(max : delta) schedule(static)
            for (int i = 1; i < NX - 1; i++)
                for (int j = 1; j < NY - 1; j++) {
                    double nv = 0.25 * (u[(i - 1) * NY + j] + u[(i + 1) * NY + j] +
                                        u[i * NY + j - 1] + u[i * NY + j + 1]);
                    v[i * NY + j] = nv;
                    delta = fmax(delta, fabs(nv - u[i * NY + j]));
                }
#pragma omp single
            {
                double *t = u;
                u = v;
                v = t;
                sweeps++;
            }
        }
    }
    double sum = 0, center = u[(NX / 2) * NY + NY / 2];
    for (int k = 0; k < NX * NY; k++)
        sum += u[k];
    CHECK(sweeps == 400 || delta <= 1e-3, "did not converge");
    CHECK(center > 0 && center < 100, "center %g", center);
    printf("stencil: sweeps=%d delta=%.6e center=%.12f sum=%.10f hash=%016llx\n",
           sweeps, delta, center, sum,
           (unsigned long long)e2e_hash_doubles(u, NX * NY));
    free(u);
    free(v);
    return e2e_finish("app_stencil");
}
