// Under a launcher every rank re-executes itself with address-space
// randomisation off (docs/dsm.md, "Address space"); it keeps its own name
// for ps, top and pgrep: /proc/self/comm is the program's file name (its
// first 15 bytes), not "exe" (the kernel's name for /proc/self/exe). Each
// rank's one thread checks it inside a cluster region; node 0 also under
// hcrun.
// RUN: %hcc -fopenmp -O1 %s -o %t.comm-name
// RUN: env HCRT_CLUSTER=1 OMP_NUM_THREADS=1 %mpirun -x HCRT_CLUSTER -x OMP_NUM_THREADS -np 2 %t.comm-name | FileCheck %s
// RUN: env HCRT_CLUSTER=1 timeout -k 5 120 %hcrun -n 2 --threads 1 %t.comm-name | FileCheck %s
// CHECK-DAG: node 0: randomisation off, name ok
// CHECK-DAG: node 1: randomisation off, name ok
#include <hcrt/hcrt.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>

/* The first line of /proc/self/<what> (up to a newline or NUL). */
static void proc_read(const char *what, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/%s", what);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
}

/* Each rank's own argv[0] (cmdline), not the head's pointer. */
static void check(void)
{
    char comm[64], cmd[4096], want[16];
    proc_read("comm", comm, sizeof(comm));
    proc_read("cmdline", cmd, sizeof(cmd));
    const char *slash = strrchr(cmd, '/');
    snprintf(want, sizeof(want), "%s", slash ? slash + 1 : cmd);
    int pers = personality(0xffffffff);
    int ok = strcmp(comm, want) == 0;
    printf("node %d: randomisation %s, name %s%s%s\n", hcrt_node_id(),
           pers != -1 && (pers & ADDR_NO_RANDOMIZE) ? "off" : "on",
           ok ? "ok" : comm, ok ? "" : ", not ", ok ? "" : want);
    fflush(stdout);
}

int main(void)
{
#pragma omp parallel
    check();
    return 0;
}
