/* hcrun's parts (hcrun.c parses and builds the mpirun command). */
#ifndef HCC_HCRUN_H
#define HCC_HCRUN_H

#include "proc.h"
#include "strvec.h"

/* A UDP socket for the runtime's "the job ends" message; sets
 * HCRT_FAULT_LAUNCHER for the ranks. -1 if it cannot be opened. */
int hcrun_launcher_socket(void);

/* Runs argv[0] (mpirun, a full path) with argv and waits for it; when the
 * runtime reported a fault on `sock` and mpirun does not end within
 * `grace` seconds, stops it. With need_done (FT mode, an hcc program), a
 * run whose head never said it finished (HCRT-FT-DONE) fails even if
 * mpirun exits 0. Returns the exit status for hcrun. */
int hcrun_supervise(char *const argv[], int sock, double grace, int need_done);

/* --netns N: `netns.sh up N` (unless dry_run) and its mpirun options
 * appended to cmd; -1 after printing why it failed. */
int hcrun_netns_prepare(long netns, int dry_run, strvec_t *cmd);
/* After the run: what a failed run left in the namespaces. */
void hcrun_netns_clean(void);

#endif
