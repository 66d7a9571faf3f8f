// hcrun --ft passes the program's exit status on after a lost rank: mpirun
// --enable-recovery exits 0 whatever the head returned, and hcrun used to
// return that 0 (a failing program reported as a success).
// RUN: %hcc -O2 -fopenmp %s -o %t
// RUN: env HCRT_FAULT_TIMEOUT=2 timeout -k 5 90 %hcrun --ft -n 3 --inject-failure 2@1:kill %t >%t.out 2>&1; echo "status $?" >>%t.out
// RUN: FileCheck %s <%t.out
// RUN: timeout -k 5 90 %hcrun --ft -n 3 %t >%t.ok 2>&1; echo "status $?" >>%t.ok
// RUN: FileCheck %s --check-prefix=NOLOSS <%t.ok
// CHECK: rank 2 {{.*}}the job goes on without it (FT mode)
// CHECK: done
// CHECK: status 3
// NOLOSS: done
// NOLOSS: status 3
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    sleep(4);
    printf("done\n");
    fflush(stdout);
    return 3;
}
