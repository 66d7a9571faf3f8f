/* hcrun_netns.c: hcrun --netns N runs each rank in its own network
 * namespace with scripts/netns.sh (installed as share/hcc/netns.sh): N
 * "hosts" on a bridge, so that a cut link is a real TCP failure
 * (docs/faults.md, "Multi-host fixture"). */
#include "hcrun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --netns N: scripts/netns.sh, installed as <bin>/../share/hcc/netns.sh,
 * makes N namespaces (hosts) on a bridge; its mpirun-args put one rank
 * in each. After the run, `clean` removes what a failed run left. */
static char *netns_script(void) {
  char *dir = hcc_self_dir();
  char *sh = hcc_asprintf("%s/../share/hcc/netns.sh", dir);
  free(dir);
  if (access(sh, X_OK) == 0)
    return sh;
  fprintf(stderr,
          "hcrun: error: --netns needs '%s' (scripts/netns.sh of the hcc "
          "sources, installed with hcc)\n",
          sh);
  free(sh);
  return NULL;
}

int hcrun_netns_prepare(long netns, int dry_run, strvec_t *cmd) {
  char *sh = netns_script(), n[32], tmp[] = "/tmp/hcrun-netns-XXXXXX";
  if (!sh)
    return -1;
  snprintf(n, sizeof n, "%ld", netns);
  char *up[] = {sh, "up", n, NULL}, *args[] = {sh, "mpirun-args", n, NULL};
  int fd = mkstemp(tmp);
  if (fd < 0 || (!dry_run && hcc_run(up, NULL, NULL) != 0) ||
      hcc_run(args, NULL, tmp) != 0) {
    fprintf(stderr,
            "hcrun: error: --netns %s: setting up the namespaces "
            "failed (see above)\n",
            n);
    if (fd >= 0)
      close(fd), unlink(tmp);
    return -1;
  }
  char line[4096];
  FILE *f = fdopen(fd, "r");
  if (f && fgets(line, sizeof line, f))
    for (char *w = strtok(line, " \n"); w; w = strtok(NULL, " \n"))
      strvec_push(cmd, w);
  if (f)
    fclose(f);
  unlink(tmp);
  free(sh);
  return 0;
}

void hcrun_netns_clean(void) {
  char *sh = netns_script();
  char *argv[] = {sh, "clean", NULL};
  if (sh && hcc_run(argv, NULL, NULL) != 0)
    fprintf(stderr, "hcrun: warning: netns.sh clean failed\n");
  free(sh);
}
