// Found through -isystem: a system header, which hcc never rewrites.
static int sys_loop(int n) {
  int s = 0;
#pragma omp parallel for schedule(hetprobe) reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += i;
  return s;
}
