static int pct(int n) {
  int s = 0;
#pragma omp parallel  for schedule(hetprobe, 200) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}
