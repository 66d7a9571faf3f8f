/* hcrun: launch an hcc program on N nodes (MPI ranks) with defaults that
 * suit hybrid MPI+OpenMP runs:
 *  - one rank per node, OMP_NUM_THREADS = cores/N unless set (or --threads);
 *  - ranks get disjoint cores (--map-by slot:PE=T --bind-to core) when they
 *    fit, else --oversubscribe --bind-to none, never Open MPI's default of
 *    binding a multi-threaded rank to a single core;
 *  - OMP_*, KMP_*, HCRT_* and LD_LIBRARY_PATH are exported to every rank;
 *  - root is allowed (Open MPI refuses it unless told).
 * Options hcrun does not know go to mpirun unchanged; the user's own
 * --bind-to / --map-by / --oversubscribe win over the defaults. */
#include "hcc_config.h"
#include "proc.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

typedef struct run_opts {
  long ranks;
  long threads; /* 0: not given */
  int verbose, dry_run;
  int user_bind, user_map, user_oversub, user_hosts;
  strvec_t mpi_args; /* passthrough mpirun options, in order */
  char **prog;       /* program and its arguments */
} run_opts_t;

/* mpirun options that take a value (two for --mca), so the value is not
 * mistaken for the program. */
static int mpirun_values(const char *a) {
  static const char *const one[] = {"-x",
                                    "--map-by",
                                    "-map-by",
                                    "--bind-to",
                                    "-bind-to",
                                    "--rank-by",
                                    "-rank-by",
                                    "-H",
                                    "--host",
                                    "-host",
                                    "--hostfile",
                                    "-hostfile",
                                    "--machinefile",
                                    "-machinefile",
                                    "--default-hostfile",
                                    "--wdir",
                                    "-wdir",
                                    "--prefix",
                                    "-prefix",
                                    "--npernode",
                                    "-npernode",
                                    "-N",
                                    "--npersocket",
                                    "--output-filename",
                                    "--timeout",
                                    "--cpus-per-proc",
                                    "--cpus-per-rank",
                                    "-cpus-per-proc",
                                    "--app",
                                    "--tune",
                                    "-am",
                                    "--preload-files",
                                    "--path",
                                    "--report-pid",
                                    "--report-uri",
                                    "--stdin",
                                    "--xml-file",
                                    "--cpu-set",
                                    "--rankfile",
                                    "-rf",
                                    NULL};
  if (strcmp(a, "--mca") == 0 || strcmp(a, "-mca") == 0 ||
      strcmp(a, "--gmca") == 0 || strcmp(a, "-gmca") == 0)
    return 2;
  for (const char *const *o = one; *o; o++)
    if (strcmp(a, *o) == 0)
      return 1;
  return 0;
}

static void usage(FILE *out) {
  fprintf(out, "usage: hcrun [-n N] [--threads T] [-v] [--dry-run] "
               "[--host-file F] [mpirun options] program [args...]\n"
               "  -n, -np N        number of nodes (MPI ranks), default 1\n"
               "  --threads T      OpenMP threads per node (OMP_NUM_THREADS)\n"
               "  --host-file F    hosts to run on (mpirun --hostfile)\n"
               "  -v, --verbose    print the mpirun command before running it\n"
               "  --dry-run        print the mpirun command, do not run it\n"
               "  HCC_MPIRUN       mpirun to use (default: mpirun in PATH)\n");
}

static int parse_count(const char *flag, const char *s, long *out) {
  char *end;
  long v = s ? strtol(s, &end, 10) : 0;
  if (!s || !*s || *end || v < 1 || v > 1000000) {
    fprintf(stderr,
            "hcrun: error: invalid value '%s' for %s: expected "
            "a positive integer\n",
            s ? s : "", flag);
    return -1;
  }
  *out = v;
  return 0;
}

static void note_user_policy(run_opts_t *o, const char *a) {
  o->user_bind |= strstr(a, "bind-to") != NULL;
  o->user_map |= strstr(a, "map-by") != NULL || strstr(a, "npernode");
  o->user_oversub |= strstr(a, "oversubscribe") != NULL;
  o->user_hosts |= strstr(a, "host") != NULL || strcmp(a, "-H") == 0 ||
                   strstr(a, "machinefile") != NULL;
}

/* Returns 0, or -1 after printing an error. */
static int parse(run_opts_t *o, int argc, char **argv) {
  int i;
  for (i = 1; i < argc && argv[i][0] == '-'; i++) {
    const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (!strcmp(a, "-n") || !strcmp(a, "-np") || !strcmp(a, "--np") ||
        !strcmp(a, "-c")) {
      if (parse_count(a, next, &o->ranks) < 0)
        return -1;
      i++;
    } else if (!strcmp(a, "--threads") || !strcmp(a, "-t")) {
      if (parse_count(a, next, &o->threads) < 0)
        return -1;
      i++;
    } else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
      o->verbose = 1;
    } else if (!strcmp(a, "--dry-run") || !strcmp(a, "-###")) {
      o->dry_run = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      exit(0);
    } else if (!strcmp(a, "--host-file") && next && access(next, R_OK)) {
      fprintf(stderr, "hcrun: error: cannot read host file '%s'\n", next);
      return -1;
    } else if (!strcmp(a, "--host-file") && next) {
      strvec_push(&o->mpi_args, "--hostfile");
      strvec_push(&o->mpi_args, next);
      o->user_hosts = 1;
      i++;
    } else {
      int nv = mpirun_values(a);
      if (i + nv >= argc) {
        fprintf(stderr,
                "hcrun: error: option '%s' needs %d "
                "value(s)\n",
                a, nv);
        return -1;
      }
      note_user_policy(o, a);
      strvec_push(&o->mpi_args, a);
      for (int k = 0; k < nv; k++)
        strvec_push(&o->mpi_args, argv[++i]);
    }
  }
  if (i >= argc) {
    fprintf(stderr, "hcrun: error: no program to run\n");
    usage(stderr);
    return -1;
  }
  o->prog = &argv[i];
  return 0;
}

static long online_cores(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

/* Binding and mapping defaults (see the header comment). */
static void add_placement(run_opts_t *o, strvec_t *cmd, long cores) {
  /* Threads per rank: --threads, else the user's OMP_NUM_THREADS (its
   * first level), else an even share of the cores. */
  const char *env = getenv("OMP_NUM_THREADS");
  long per_rank = o->threads             ? o->threads
                  : env && atol(env) > 0 ? atol(env)
                                         : cores / o->ranks;
  if (per_rank < 1)
    per_rank = 1;
  if (!o->threads && !env && !o->user_hosts)
    setenv("OMP_NUM_THREADS", hcc_asprintf("%ld", per_rank), 1);
  if (o->user_hosts) {
    if (!o->user_bind)
      strvec_push(cmd, "--bind-to"), strvec_push(cmd, "none");
    return;
  }
  int fits = o->ranks * per_rank <= cores;
  if (o->ranks > cores && !o->user_oversub)
    strvec_push(cmd, "--oversubscribe");
  if (fits && !o->user_map && !o->user_bind) {
    strvec_push(cmd, "--map-by");
    strvec_pushf(cmd, "slot:PE=%ld", per_rank);
    strvec_push(cmd, "--bind-to");
    strvec_push(cmd, "core");
  } else if (!o->user_bind) {
    strvec_push(cmd, "--bind-to");
    strvec_push(cmd, "none");
  }
}

static int exported(const char *name) {
  return !strncmp(name, "OMP_", 4) || !strncmp(name, "KMP_", 4) ||
         !strncmp(name, "HCRT_", 5) || !strncmp(name, "LD_LIBRARY_PATH=", 16);
}

static void add_exports(strvec_t *cmd) {
  for (char **e = environ; *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq || !exported(*e))
      continue;
    strvec_push(cmd, "-x");
    strvec_pushf(cmd, "%.*s", (int)(eq - *e), *e);
  }
}

/* The program must exist here; mpirun's own message for a typo is long. */
static int check_program(const char *prog) {
  char *path = hcc_find_program(prog);
  if (path) {
    free(path);
    return 0;
  }
  if (!strchr(prog, '/') && access(prog, X_OK) == 0)
    fprintf(stderr,
            "hcrun: error: program '%s' is not in PATH (did you "
            "mean ./%s?)\n",
            prog, prog);
  else
    fprintf(stderr,
            "hcrun: error: program '%s' not found or not "
            "executable\n",
            prog);
  return -1;
}

int main(int argc, char **argv) {
  run_opts_t o = {.ranks = 1};
  strvec_init(&o.mpi_args);
  if (parse(&o, argc, argv) < 0 || check_program(o.prog[0]) < 0)
    return 1;
  const char *mpirun = getenv("HCC_MPIRUN");
  char *path = hcc_find_program(mpirun && *mpirun ? mpirun : "mpirun");
  if (!path && !(mpirun && *mpirun))
    path = hcc_find_program(HCC_DEFAULT_MPIRUN);
  if (!path) {
    fprintf(stderr,
            "hcrun: error: mpirun '%s' not found (install Open "
            "MPI or set HCC_MPIRUN)\n",
            mpirun ? mpirun : "mpirun");
    return 1;
  }
  if (o.threads)
    setenv("OMP_NUM_THREADS", hcc_asprintf("%ld", o.threads), 1);
  strvec_t cmd;
  strvec_init(&cmd);
  strvec_push(&cmd, path);
  strvec_push(&cmd, "-np");
  strvec_pushf(&cmd, "%ld", o.ranks);
  add_placement(&o, &cmd, online_cores());
  if (getuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    strvec_push(&cmd, "--allow-run-as-root");
  }
  add_exports(&cmd);
  strvec_append(&cmd, &o.mpi_args);
  for (char **a = o.prog; *a; a++)
    strvec_push(&cmd, *a);
  if (o.verbose || o.dry_run) {
    const char *t = getenv("OMP_NUM_THREADS");
    fprintf(stderr, "hcrun: OMP_NUM_THREADS=%s\n", t ? t : "(unset)");
    fprintf(stderr, "hcrun:");
    hcc_print_command(stderr, cmd.v);
  }
  if (o.dry_run)
    return 0;
  execv(path, cmd.v);
  fprintf(stderr, "hcrun: error: cannot run '%s'\n", path);
  return 127;
}
