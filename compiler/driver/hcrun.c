/* hcrun: launch an hcc program on N nodes (MPI ranks) with defaults that
 * suit hybrid MPI+OpenMP runs:
 *  - one rank per node, OMP_NUM_THREADS = cores/N unless set (or --threads;
 *    a list --threads 4,2 gives node k its own count via HCRT_NODE_THREADS);
 *  - ranks get disjoint cores (--map-by slot:PE=T --bind-to core) when they
 *    fit, else --oversubscribe --bind-to none, never Open MPI's default of
 *    binding a multi-threaded rank to a single core;
 *  - OMP_*, KMP_*, HCRT_* and LD_LIBRARY_PATH are exported to every rank;
 *  - root is allowed (Open MPI refuses it unless told).
 * Options hcrun does not know go to mpirun unchanged; the user's own
 * --bind-to / --map-by / --oversubscribe win over the defaults. */
#include "hcrun.h"
#include "elfsym.h"
#include "hcc_config.h"

#include <ctype.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

typedef struct run_opts {
  long ranks;
  long threads;            /* 0: not given; a list: its largest count */
  const char *thread_list; /* --threads with several counts, else NULL */
  int thread_items;
  int verbose, dry_run;
  int user_bind, user_map, user_oversub, user_hosts;
  int ranks_given, ft;
  long netns;         /* --netns N: ranks in N network namespaces */
  const char *inject; /* --inject-failure SPEC (HCRT_FAULT_INJECT) */
  strvec_t mpi_args;  /* passthrough mpirun options, in order */
  char **prog;        /* program and its arguments */
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
  fprintf(
      out,
      "usage: hcrun [-n N] [--threads T] [-v] [--dry-run] "
      "[--host-file F] [mpirun options] program [args...]\n"
      "  -n, -np N        number of nodes (MPI ranks), default 1\n"
      "  --threads T      OpenMP threads per node (OMP_NUM_THREADS);\n"
      "  --threads T0,T1  per node: node k gets Tk (HCRT_NODE_THREADS)\n"
      "  --host-file F    hosts to run on (mpirun --hostfile)\n"
      "  --netns N        each of N ranks in its own network namespace\n"
      "                   on a bridge (root; share/hcc/netns.sh)\n"
      "  --inject-failure RANK@SECONDS[:kill|stop|exit|segv|cut|starve=S],...\n"
      "                   make ranks fail, for tests (HCRT_FAULT_INJECT)\n"
      "  --ft             FT mode: the job goes on without a lost worker\n"
      "                   (HCRT_FT=1 and Open MPI's --enable-recovery)\n"
      "  -v, --verbose    print the mpirun command before running it\n"
      "  --dry-run        print the mpirun command, do not run it\n"
      "  HCC_MPIRUN       mpirun to use (default: mpirun in PATH)\n");
}

static int parse_count(const char *flag, const char *s, long *out) {
  char *end;
  if (!s) {
    fprintf(stderr, "hcrun: error: option %s needs a value\n", flag);
    return -1;
  }
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

/* --threads T or T0,T1,...: every count positive; a list is passed to the
 * runtime as HCRT_NODE_THREADS (the largest count sizes the placement). */
static int parse_threads(const char *flag, const char *s, run_opts_t *o) {
  long max = 0;
  int items = 0;
  for (const char *p = s; p && *p;) {
    char *end;
    long v = strtol(p, &end, 10);
    if (!isdigit((unsigned char)*p) || v < 1 || v > 4096 ||
        (*end && *end != ','))
      break;
    max = v > max ? v : max;
    items++;
    p = *end ? end + 1 : end;
    if (!*p && *end == ',')
      max = 0; /* a trailing comma */
  }
  if (!s || max == 0 || (int)strspn(s, "0123456789,") != (int)strlen(s) ||
      strstr(s, ",,")) {
    fprintf(stderr,
            "hcrun: error: invalid value '%s' for %s: expected a thread "
            "count 1..4096 or one count per node like 4,2\n",
            s ? s : "", flag);
    return -1;
  }
  o->threads = max;
  o->thread_list = items > 1 ? s : NULL;
  o->thread_items = items;
  return 0;
}

/* Options of hcrun itself; a near miss of one is an error, not something
 * to hand to mpirun (where `--thread 4` would run a program named 4). */
static const char *const own_options[] = {
    "--threads", "--host-file", "--dry-run",        "--verbose",
    "--help",    "--netns",     "--inject-failure", NULL};

static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), row[64];
  if (lb >= 64 || la >= 64)
    return 64;
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      best = row[j] + 1 < best ? row[j] + 1 : best;
      best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
      row[j] = best;
      diag = up;
    }
  }
  return row[lb];
}

static const char *near_miss(const char *a) {
  if (strncmp(a, "--", 2) != 0)
    return NULL;
  char name[64];
  snprintf(name, sizeof(name), "%.*s", (int)strcspn(a, "="), a);
  for (const char *const *o = own_options; *o; o++)
    if (strcmp(name, *o) != 0 && distance(name, *o) <= 2)
      return *o;
  return NULL;
}

static void note_user_policy(run_opts_t *o, const char *a) {
  o->user_bind |= strstr(a, "bind-to") != NULL;
  o->user_map |= strstr(a, "map-by") != NULL || strstr(a, "npernode");
  o->user_oversub |= strstr(a, "oversubscribe") != NULL;
  o->user_hosts |= strstr(a, "host") != NULL || strcmp(a, "-H") == 0 ||
                   strstr(a, "machinefile") != NULL;
}

/* One item of --inject-failure: RANK@(SECONDS|startup|shutdown)[:KIND]. */
static int inject_item_ok(const char *s, size_t len) {
  char buf[128], when[32] = "", kind[32] = "kill", extra;
  int rank;
  if (len >= sizeof buf)
    return 0;
  memcpy(buf, s, len);
  buf[len] = 0;
  int n = sscanf(buf, "%d@%31[^:]:%31s%c", &rank, when, kind, &extra);
  if (n < 2 || n > 3 || rank < 0)
    return 0;
  char *end;
  double at = strtod(when, &end);
  if (*end ? strcmp(when, "startup") && strcmp(when, "shutdown") : at < 0)
    return 0;
  if (!strncmp(kind, "stop=", 5))
    return strtod(kind + 5, &end) > 0 && !*end;
  if (!strncmp(kind, "starve=", 7))
    return strtod(kind + 7, &end) > 0 && !*end;
  return !strcmp(kind, "kill") || !strcmp(kind, "stop") ||
         !strcmp(kind, "exit") || !strcmp(kind, "segv") || !strcmp(kind, "cut");
}

static int check_inject(const char *spec) {
  const char *s = spec;
  while (s && *s) {
    size_t len = strcspn(s, ",");
    if (!inject_item_ok(s, len))
      break;
    s += len + (s[len] == ',');
  }
  if (spec && *spec && !*s)
    return 0;
  fprintf(stderr,
          "hcrun: error: invalid value '%s' for --inject-failure: expected "
          "RANK@SECONDS[:KIND] or RANK@startup|shutdown[:KIND], KIND one of "
          "kill, stop, stop=SECONDS, exit, segv, cut, starve=SECONDS; "
          "several separated by "
          "commas (e.g. 1@2.5:stop)\n",
          spec ? spec : "");
  return -1;
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
      o->ranks_given = 1;
      i++;
    } else if (!strcmp(a, "--inject-failure") ||
               !strncmp(a, "--inject-failure=", 17)) {
      o->inject = a[16] == '=' ? a + 17 : next;
      if (a[16] != '=')
        i++;
      if (check_inject(o->inject) < 0)
        return -1;
    } else if (!strcmp(a, "--netns") || !strncmp(a, "--netns=", 8)) {
      if (parse_count("--netns", a[7] == '=' ? a + 8 : next, &o->netns) < 0)
        return -1;
      if (a[7] != '=')
        i++;
    } else if (!strcmp(a, "--ft")) {
      o->ft = 1;
    } else if (!strcmp(a, "--threads") || !strcmp(a, "-t")) {
      if (parse_threads(a, next, o) < 0)
        return -1;
      i++;
    } else if (!strncmp(a, "--threads=", 10)) {
      if (parse_threads("--threads", a + 10, o) < 0)
        return -1;
    } else if (near_miss(a)) {
      fprintf(stderr,
              "hcrun: error: unknown option '%s'; did you mean '%s'? "
              "(hcrun --help lists hcrun's options; mpirun's are passed "
              "through)\n",
              a, near_miss(a));
      return -1;
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
  if (o->netns && o->user_hosts) {
    fprintf(stderr, "hcrun: error: --netns makes its own hosts; drop "
                    "--host-file/--host\n");
    return -1;
  }
  if (o->netns && o->ranks_given && o->ranks != o->netns) {
    fprintf(stderr,
            "hcrun: error: --netns %ld runs one rank per namespace, but -n "
            "is %ld: give the same count (or only --netns)\n",
            o->netns, o->ranks);
    return -1;
  }
  if (o->netns)
    o->ranks = o->netns;
  if (o->thread_items > o->ranks) {
    fprintf(stderr,
            "hcrun: error: --threads %s gives %d counts for %ld node(s): "
            "give at most one count per node (-n)\n",
            o->thread_list, o->thread_items, o->ranks);
    return -1;
  }
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
  if (o->thread_list)
    setenv("HCRT_NODE_THREADS", o->thread_list, 1);
  if (o->user_hosts || o->netns) {
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

/* A program that calls MPI_Init itself (the pass defines
 * __hcrt_mpi_program in it) runs as an MPI program, every rank its own
 * main: options of hcc's cluster runtime have nothing to act on. */
static int check_mpi_program(const char *prog, const char *path,
                             const run_opts_t *o) {
  if (!(o->ft || o->inject) ||
      hcc_elf_has_symbol(path, "__hcrt_mpi_program") != 1)
    return 0;
  fprintf(stderr,
          "hcrun: error: %s calls MPI_Init itself (an MPI+OpenMP program): "
          "every rank runs its own main and hcc's fault handling does not "
          "run, so %s has nothing to act on; drop it\n",
          prog, o->ft ? "--ft" : "--inject-failure");
  return -1;
}

/* The program must exist here; mpirun's own message for a typo is long.
 * A program whose main hcc did not wrap (no __hcrt_main: plain OpenMP, or
 * hcc objects linked by another compiler's main) is no cluster program:
 * mpirun starts one independent copy per rank, which is said once. */
static int check_program(const char *prog, const run_opts_t *o) {
  char *path = hcc_find_program(prog);
  if (path) {
    int rc = check_mpi_program(prog, path, o);
    if (!rc && o->ranks > 1 && hcc_elf_has_symbol(path, "__hcrt_main") == 0)
      fprintf(stderr,
              "hcrun: note: %s was not built with hcc: each rank runs its "
              "own copy\n",
              prog);
    free(path);
    return rc;
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

/* Seconds mpirun gets to end after the runtime reported a fault. */
static double fault_grace(void) {
  const char *g = getenv("HCC_FAULT_GRACE");
  double v = g ? atof(g) : 0;
  return v > 0 ? v : 3.0;
}

int main(int argc, char **argv) {
  run_opts_t o = {.ranks = 1};
  strvec_init(&o.mpi_args);
  if (parse(&o, argc, argv) < 0 || check_program(o.prog[0], &o) < 0)
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
  if (o.threads && !o.thread_list)
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
  if (o.netns && hcrun_netns_prepare(o.netns, o.dry_run, &cmd) < 0)
    return 1;
  if (o.ft) { /* survivors live on when a rank dies (docs/faults.md) */
    strvec_push(&cmd, "--enable-recovery");
    setenv("HCRT_FT", "1", 0); /* the runtime's FT mode */
  }
  if (o.inject)
    setenv("HCRT_FAULT_INJECT", o.inject, 1);
  int sock = o.dry_run ? -1 : hcrun_launcher_socket();
  add_exports(&cmd);
  strvec_append(&cmd, &o.mpi_args);
  for (char **a = o.prog; *a; a++)
    strvec_push(&cmd, *a);
  if (o.verbose || o.dry_run) {
    const char *t = getenv("OMP_NUM_THREADS");
    fprintf(stderr, "hcrun: OMP_NUM_THREADS=%s\n", t ? t : "(unset)");
    if (o.thread_list)
      fprintf(stderr, "hcrun: HCRT_NODE_THREADS=%s\n", o.thread_list);
    fprintf(stderr, "hcrun:");
    hcc_print_command(stderr, cmd.v);
  }
  if (o.dry_run)
    return 0;
  char *prog_path = hcc_find_program(o.prog[0]);
  int need_done = o.ft && sock >= 0 && prog_path && o.ranks > 1 &&
                  hcc_elf_has_symbol(prog_path, "__hcrt_main") == 1;
  free(prog_path);
  int st = hcrun_supervise(cmd.v, sock, fault_grace(), need_done);
  if (o.netns)
    hcrun_netns_clean();
  return st;
}
