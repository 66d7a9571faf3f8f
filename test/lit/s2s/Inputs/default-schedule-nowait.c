/* Input of default-schedule.c: a file with a nowait. */
double a[100], b[100];
void g(void) {
#pragma omp parallel for
  for (int i = 0; i < 100; i++)
    a[i] = i;
#pragma omp parallel
  {
#pragma omp for nowait
    for (int i = 0; i < 100; i++)
      a[i] = i;
#pragma omp for
    for (int i = 0; i < 100; i++)
      b[i] = a[i];
  }
}
