// The keeper (docs/dsm.md "The keeper"): while the job runs, each rank's
// DSM memory (its memfd) is also held by a `tail --pid=<rank>` that is not
// the rank's child, so the kernel frees it after the rank's exit instead
// of inside it; the keeper ends within 50 ms after its rank. Each node's
// one thread looks for its keeper inside a cluster region; afterwards no
// keeper of the job's ranks may be left. HCRT_DSM_KEEPER=0 starts none.
// RUN: %hcc -fopenmp -O1 %s -o %t.keeper
// RUN: env HCRT_CLUSTER=1 OMP_NUM_THREADS=1 %mpirun -x HCRT_CLUSTER -x OMP_NUM_THREADS -np 2 %t.keeper > %t.out
// RUN: FileCheck %s < %t.out
// RUN: sleep 1; for p in $(sed -n 's/^pid //p' %t.out); do pgrep -f -- "--pid=$p " && exit 1; done; true
// RUN: env HCRT_CLUSTER=1 HCRT_DSM_KEEPER=0 OMP_NUM_THREADS=1 %mpirun -x HCRT_CLUSTER -x HCRT_DSM_KEEPER -x OMP_NUM_THREADS -np 2 %t.keeper | FileCheck --check-prefix=OFF %s
// CHECK-DAG: node 0: a keeper holds the DSM memory and is not the rank's child
// CHECK-DAG: node 1: a keeper holds the DSM memory and is not the rank's child
// OFF-DAG: node 0: no keeper
// OFF-DAG: node 1: no keeper
#include <dirent.h>
#include <hcrt/hcrt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The keeper of process `me`: the pid whose command line has
 * "--pid=<me>", or 0. */
static long find_keeper(long me)
{
    char want[32];
    snprintf(want, sizeof want, "--pid=%ld", me);
    DIR *d = opendir("/proc");
    struct dirent *e;
    long found = 0;
    while (d && (e = readdir(d)) && !found) {
        long pid = atol(e->d_name);
        if (pid <= 0)
            continue;
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < n; i++) /* arguments are NUL-separated */
            if (!strncmp(buf + i, want, strlen(want)) &&
                (buf[i + strlen(want)] == '\0' || i + strlen(want) == n))
                found = pid;
    }
    if (d)
        closedir(d);
    return found;
}

static long parent_of(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the name may hold spaces */
    long ppid = -1;
    if (p)
        sscanf(p + 2, "%*c %ld", &ppid);
    return ppid;
}

int main(void)
{
#pragma omp parallel
    {
        long me = (long)getpid(), k = find_keeper(me);
        char path[64], link[256] = "";
        if (k) {
            snprintf(path, sizeof path, "/proc/%ld/fd/3", k);
            ssize_t n = readlink(path, link, sizeof link - 1);
            link[n > 0 ? n : 0] = '\0';
        }
#pragma omp critical
        {
            printf("pid %ld\n", me);
            if (!k)
                printf("node %d: no keeper\n", hcrt_node_id());
            else if (strncmp(link, "/memfd:hcrt-dsm", 15))
                printf("node %d: keeper %ld holds %s, not the DSM memory\n",
                       hcrt_node_id(), k, link);
            else if (parent_of(k) == me)
                printf("node %d: the keeper is the rank's child\n",
                       hcrt_node_id());
            else
                printf("node %d: a keeper holds the DSM memory and is not "
                       "the rank's child\n",
                       hcrt_node_id());
        }
    }
    return 0;
}
