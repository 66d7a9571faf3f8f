static int warn(int n) {
  int s = 0;
#pragma omp parallel for schedule(hetprobe, 10) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += i;
  int unused_here;
  return s;
}
