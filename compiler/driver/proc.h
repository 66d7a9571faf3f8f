/* Running and printing sub-commands, shared by hcc and hcrun. */
#ifndef HCC_PROC_H
#define HCC_PROC_H

#include "strvec.h"

#include <stdio.h>

/* Prints argv the way `clang -###` does: each word quoted, one line. */
void hcc_print_command(FILE *out, char *const argv[]);

/* Runs argv (argv[0] looked up in PATH if it has no slash), optionally with
 * stdin/stdout redirected from/to a file (NULL: inherit). Returns the exit
 * status, 128+signal if it was killed, or -1 if it could not start (the
 * reason has been printed). */
int hcc_run(char *const argv[], const char *stdin_path,
            const char *stdout_path);

/* Full path of an executable: `name` itself if it contains a slash and is
 * executable, else the first match in PATH. NULL if none (caller frees). */
char *hcc_find_program(const char *name);

/* Directory holding the running executable (resolved via /proc/self/exe),
 * without trailing slash; caller frees. */
char *hcc_self_dir(void);

#endif
