/* Building and running the steps of one hcc invocation:
 *   hcc-s2s (C/C++) -> compile (clang/clang++/flang + plugin + offload
 *   flags) -> link (libhcrt, libomp, MPI).
 * Offload flags never reach the link step: with -fopenmp-targets a clang
 * link needs clang-linker-wrapper, which Debian does not ship, so sources
 * are always compiled to (temporary) objects first and linked separately. */
#include "driver.h"
#include "hcc_config.h"
#include "pragma_scan.h"
#include "proc.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct ctx {
  hcc_opts_t *o;
  const hcc_paths_t *p;
  char *tmpdir;   /* created on first use; removed at exit with all in it */
  strvec_t temps; /* owns the paths temp_path made */
  int counter;
  int linking; /* compiling sources to temp objects for a link */
} ctx_t;

static const char *tmpdir_get(ctx_t *c) {
  if (c->tmpdir)
    return c->tmpdir;
  const char *base = getenv("TMPDIR");
  if (!base || !*base)
    base = "/tmp";
  if (c->o->dry_run) {
    c->tmpdir = hcc_asprintf("%s/hcc-XXXXXX", base);
    return c->tmpdir;
  }
  c->tmpdir = hcc_asprintf("%s/hcc-XXXXXX", base);
  if (!mkdtemp(c->tmpdir)) {
    fprintf(stderr,
            "hcc: error: cannot create a temporary directory in "
            "'%s' (set TMPDIR to a writable directory)\n",
            base);
    exit(1);
  }
  return c->tmpdir;
}

/* A temp path named after the input, so messages and -save-temps stay
 * readable: <tmpdir>/<n>-<stem><suffix>. */
static char *temp_path(ctx_t *c, const char *input, const char *suffix) {
  const char *base = strrchr(input, '/');
  base = base ? base + 1 : input;
  const char *dot = strrchr(base, '.');
  int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
  char *path = hcc_asprintf("%s/%d-%.*s%s", tmpdir_get(c), c->counter++, stem,
                            base, suffix);
  strvec_push(&c->temps, path);
  return path;
}

/* Removes the temp directory and everything in it: hcc-s2s writes the
 * rewritten headers there under names of its own. Only system calls, as
 * it also runs in the signal handler. Entries removed while the directory
 * is read may hide others from that read: read again until none is left. */
static void remove_tmpdir(const char *dir) {
  for (int removed = 1; removed;) {
    removed = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return;
    char buf[4096];
    ssize_t n;
    while ((n = getdents64(fd, buf, sizeof(buf))) > 0)
      for (ssize_t off = 0; off < n;) {
        struct dirent64 *d = (struct dirent64 *)(buf + off);
        off += d->d_reclen;
        if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
          removed += unlinkat(fd, d->d_name, 0) == 0;
      }
    close(fd);
  }
  rmdir(dir);
}

static void cleanup(ctx_t *c) {
  if (!c->tmpdir || c->o->dry_run)
    return;
  if (c->o->keep_temps) {
    fprintf(stderr, "hcc: note: temporary files kept in %s\n", c->tmpdir);
    return;
  }
  remove_tmpdir(c->tmpdir);
}

/* Runs or prints one command. Returns its exit status (0 in dry-run). */
static int step(ctx_t *c, strvec_t *cmd, const char *in, const char *out) {
  if (c->o->dry_run || c->o->verbose)
    hcc_print_command(stderr, cmd->v);
  if (c->o->dry_run)
    return 0;
  int rc = hcc_run(cmd->v, in, out);
  return rc < 0 ? 1 : rc;
}

/* Default output name of a -c/-S step: basename with a new suffix. */
static char *default_output(const char *input, const char *suffix) {
  const char *base = strrchr(input, '/');
  base = base ? base + 1 : input;
  if (strcmp(base, "-") == 0)
    base = "-";
  const char *dot = strrchr(base, '.');
  int stem = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
  return hcc_asprintf("%.*s%s", stem, base, suffix);
}

static const char *compiler_for(ctx_t *c, hcc_lang_t lang) {
  if (lang == HCC_LANG_FORTRAN)
    return c->p->flang;
  return hcc_lang_is_cxx(lang) ? c->p->clangxx : c->p->clang;
}

static void add_omp_flags(ctx_t *c, strvec_t *cmd, hcc_lang_t lang) {
  if (lang == HCC_LANG_ASM || lang == HCC_LANG_ASM_CPP)
    return;
  if (lang == HCC_LANG_IR) { /* no front end: the pass is all it needs */
    strvec_push(cmd, "-fopenmp");
    if (c->o->plugin)
      strvec_pushf(cmd, "-fpass-plugin=%s", c->p->plugin);
    return;
  }
  strvec_push(cmd, "-fopenmp");
  strvec_push(cmd, "-fopenmp-targets=" HCC_OFFLOAD_TRIPLE);
  strvec_push(cmd, "--offload-host-only");
  if (c->o->plugin)
    strvec_pushf(cmd, "-fpass-plugin=%s", c->p->plugin);
  strvec_pushf(cmd, "-I%s", c->p->incdir);
  if (lang != HCC_LANG_FORTRAN)
    strvec_push_words(cmd, HCC_MPI_COMPILE_FLAGS);
}

/* Flags that must not reach hcc-s2s: it only parses, so dependency files,
 * verbosity and output options would have side effects or noise. */
static int s2s_skips(const char *a, int *skip_next) {
  static const char *const with_value[] = {"-MF", "-MT", "-MQ", "-MJ", NULL};
  for (const char *const *w = with_value; *w; w++)
    if (strcmp(a, *w) == 0) {
      *skip_next = 1;
      return 1;
    }
  return strcmp(a, "-v") == 0 || strncmp(a, "-M", 2) == 0 ||
         strncmp(a, "-save-temps", 11) == 0 ||
         strncmp(a, "-fpass-plugin", 13) == 0;
}

/* The names s2s acts on (shared with its analysis). */
static const char *const s2s_names[] = {
#define HCC_S2S_ORIGIN(name, kind) name,
#define HCC_S2S_STREAM(name, in) name,
#include "Names.def"
};

/* The whole file, NUL-terminated (malloc), or NULL if it cannot be read. */
static char *read_file(const char *path, size_t *plen) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, len = 0, n;
  char *buf = malloc(cap + 1);
  while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      char *nb = realloc(buf, 2 * cap + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf)
    buf[len] = '\0';
  *plen = len;
  return buf;
}

/* Whether hcc-s2s itself must run: it can only change or report something
 * beyond the pragma scan in a file that names a hetprobe clause or one of
 * the calls it reports. Skipping it otherwise saves its start-up and parse
 * (about a -O0 compile). */
static int s2s_needed(const char *buf, size_t len) {
  if (memmem(buf, len, "hetprobe", 8)) /* hetprobe, hetprobe_i */
    return 1;
  /* The calls as whole identifiers: "gets" inside "targets" or
   * "omp_get_..." is no call of gets. */
  for (size_t i = 0; i < sizeof(s2s_names) / sizeof(*s2s_names); i++)
    if (hcc_mentions_word(buf, len, s2s_names[i]))
      return 1;
  return 0;
}

/* What a user header asks of hcc-s2s: hcc clauses (or malformed ones,
 * for s2s to report), loops to mark, or OpenMP directives next to calls s2s
 * warns about, or next to a nowait that may chain a loop in another file
 * of the unit (s2s then leaves orphaned loops alone in all of them). */
static int header_needs_s2s(const char *path, const char *text, size_t len,
                            void *arg) {
  const ctx_t *c = arg;
  if (!memmem(text, len, "omp", 3))
    return 0;
  hcc_scan_t scan;
  int bad = hcc_scan_pragmas(text, len, path, c->o->plugin, &scan);
  int need =
      bad || scan.nhints > 0 || scan.default_loops > 0 ||
      (scan.directives > 0 && (hcc_mentions_word(text, len, "nowait") ||
                               (c->o->s2s_warn && s2s_needed(text, len))));
  hcc_scan_free(&scan);
  return need;
}

/* The pragma scan alone changed the file (clause-less loops given the
 * implementation's schedule): write what hcc-s2s would have written. */
static const char *write_scanned(ctx_t *c, hcc_input_t *in,
                                 const hcc_scan_t *scan, int *rewritten) {
  int cxx = hcc_lang_is_cxx(in->lang);
  char *out = temp_path(c, in->path, cxx ? ".hcc.cpp" : ".hcc.c");
  *rewritten = 1;
  if (c->o->dry_run)
    return out;
  FILE *f = fopen(out, "w");
  if (!f) {
    fprintf(stderr, "hcc: error: cannot write '%s'\n", out);
    exit(1);
  }
  fputs("#line 1 \"", f);
  for (const char *p = in->path; *p; p++) {
    if (*p == '"' || *p == '\\')
      fputc('\\', f);
    fputc(*p, f);
  }
  fputs("\"\n", f);
  fwrite(scan->out, 1, scan->out_len, f);
  if (fclose(f) != 0) {
    fprintf(stderr, "hcc: error: cannot write '%s'\n", out);
    exit(1);
  }
  return out;
}

/* Runs hcc-s2s on a C/C++ input. Returns the file to compile (the s2s
 * output, or the input itself when s2s is off or cannot help) or NULL after
 * a user error that s2s reported (e.g. a bad hetprobe percentage). When
 * s2s rewrote the unit, *overlay is the VFS overlay it wrote (showing the
 * main file and any rewritten header at their paths); after the in-process
 * scan alone it is NULL. */
static const char *run_s2s(ctx_t *c, hcc_input_t *in, int *rewritten,
                           const char **overlay) {
  *rewritten = 0;
  *overlay = NULL;
  if (!c->o->s2s || !hcc_lang_is_cfamily(in->lang) ||
      c->o->mode == HCC_MODE_PREPROCESS || strcmp(in->path, "-") == 0)
    return in->path;
  /* The pragma scan runs here, in-process, on every OpenMP source; s2s
   * (which repeats it) only where it has more to do. An unreadable file is
   * left to s2s, which reports the error. */
  size_t len = 0;
  char *text = read_file(in->path, &len);
  int headers = text && hcc_headers_walk(&c->o->compile_args, in->path, text,
                                         len, header_needs_s2s, c);
  if (text && !headers && !memmem(text, len, "omp", 3)) {
    free(text);
    return in->path;
  }
  if (text && !headers && !s2s_needed(text, len)) {
    hcc_scan_t scan;
    int bad = hcc_scan_pragmas(text, len, in->path, c->o->plugin, &scan);
    const char *res = in->path;
    if (bad) {
      fputs(scan.errors ? scan.errors : "", stderr);
      res = NULL;
    } else if (scan.default_loops > 0) {
      res = write_scanned(c, in, &scan, rewritten);
    }
    hcc_scan_free(&scan);
    free(text);
    return res;
  }
  free(text);
  int cxx = hcc_lang_is_cxx(in->lang);
  char *out = temp_path(c, in->path, cxx ? ".hcc.cpp" : ".hcc.c");
  char *yaml = temp_path(c, in->path, ".vfs.yaml");
  strvec_t cmd;
  strvec_init(&cmd);
  strvec_push(&cmd, c->p->s2s);
  strvec_push(&cmd, "--report-unchanged");
  /* Rewritten headers go into this invocation's own directory: parallel
   * builds including the same header never share a file. */
  strvec_push(&cmd, "--overlay");
  strvec_push(&cmd, yaml);
  strvec_push(&cmd, "--header-dir");
  strvec_push(&cmd, tmpdir_get(c));
  if (!c->o->plugin) /* the marker means nothing to plain libomp */
    strvec_push(&cmd, "--no-default-schedule");
  if (!c->o->s2s_warn)
    strvec_push(&cmd, "--no-warnings");
  strvec_push(&cmd, "-o");
  strvec_push(&cmd, out);
  strvec_push(&cmd, in->path);
  strvec_push(&cmd, "--");
  strvec_push(&cmd, "-x");
  strvec_push(&cmd, in->xname                     ? in->xname
                    : in->lang == HCC_LANG_CXX    ? "c++"
                    : in->lang == HCC_LANG_C_PP   ? "cpp-output"
                    : in->lang == HCC_LANG_CXX_PP ? "c++-cpp-output"
                                                  : "c");
  for (size_t i = 0; i < c->o->compile_args.n; i++) {
    int skip_next = 0;
    if (s2s_skips(c->o->compile_args.v[i], &skip_next))
      i += (size_t)skip_next;
    else
      strvec_push(&cmd, c->o->compile_args.v[i]);
  }
  strvec_push(&cmd, "-fopenmp");
  strvec_pushf(&cmd, "-I%s", c->p->incdir);
  strvec_push_words(&cmd, HCC_MPI_COMPILE_FLAGS);
  int rc = step(c, &cmd, NULL, NULL);
  strvec_free(&cmd);
  if (rc == 0) {
    *rewritten = 1;
    *overlay = yaml;
    return out;
  }
  if (rc == 1) /* s2s found an error in hcc syntax and reported it */
    return NULL;
  if (rc == 3) /* nothing to rewrite */
    return in->path;
  if (rc == 2) {
    /* Could not parse: the output has the clause rewrites only, so
     * clang's own errors (if the code is invalid) come out unchanged. */
    *rewritten = 2;
    *overlay = yaml;
    return out;
  }
  fprintf(stderr,
          "hcc: warning: hcc-s2s failed on '%s' (status %d); "
          "compiling the original source\n",
          in->path, rc);
  return in->path;
}

/* Value of a flag given as "-MF x" or "-MFx" among the compile args. */
static const char *find_flag_value(const strvec_t *args, const char *flag) {
  const char *val = NULL;
  size_t len = strlen(flag);
  for (size_t i = 0; i < args->n; i++) {
    if (strcmp(args->v[i], flag) == 0 && i + 1 < args->n)
      val = args->v[++i];
    else if (strncmp(args->v[i], flag, len) == 0 && args->v[i][len])
      val = args->v[i] + len;
  }
  return val;
}

/* -MD/-MMD while compiling to a temp object for a link: clang would name
 * the dependency file and its target after the temp object; name them
 * after the source, as clang does for compile+link. */
static void add_link_dep_flags(ctx_t *c, strvec_t *cmd, const hcc_input_t *in) {
  char *obj = default_output(in->path, ".o");
  if (!find_flag_value(&c->o->compile_args, "-MT") &&
      !find_flag_value(&c->o->compile_args, "-MQ")) {
    strvec_push(cmd, "-MT");
    strvec_push(cmd, obj);
  }
  if (!find_flag_value(&c->o->compile_args, "-MF")) {
    obj[strlen(obj) - 1] = 'd';
    strvec_push(cmd, "-MF");
    strvec_push(cmd, obj);
  }
  free(obj);
}

/* Appends `s` as a JSON string. */
static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The rewritten source reaches clang through a VFS overlay that shows it
 * at the user's own path: clang is given the user's file name, so
 * `#include ""` lookups, __FILE__/__BASE_FILE__, the module name (which the
 * pass uses to name the module), debug info and -MD dependency files are
 * exactly those of a plain compile. Returns the overlay file. */
static char *write_overlay(ctx_t *c, const hcc_input_t *in, const char *src) {
  char *yaml = temp_path(c, in->path, ".vfs.yaml");
  if (c->o->dry_run)
    return yaml;
  char cwd[4096];
  char *abs = in->path[0] == '/' || !getcwd(cwd, sizeof(cwd))
                  ? hcc_strdup(in->path)
                  : hcc_asprintf("%s/%s", cwd, in->path);
  char *slash = strrchr(abs, '/');
  *slash = '\0';
  FILE *f = fopen(yaml, "w");
  if (!f) {
    fprintf(stderr, "hcc: error: cannot write '%s'\n", yaml);
    exit(1);
  }
  fputs("{\"version\": 0, \"use-external-names\": false, \"roots\": [\n"
        " {\"type\": \"directory\", \"name\": ",
        f);
  json_string(f, abs);
  fputs(", \"contents\": [{\"type\": \"file\", \"name\": ", f);
  json_string(f, slash + 1);
  fputs(", \"external-contents\": ", f);
  json_string(f, src);
  fputs("}]}]}\n", f);
  fclose(f);
  free(abs);
  return yaml;
}

static int compile_mlir(ctx_t *c, hcc_input_t *in, const char *out);

static int compile_one(ctx_t *c, hcc_input_t *in, const char *out) {
  if (in->lang == HCC_LANG_MLIR)
    return compile_mlir(c, in, out);
  int rewritten = 0;
  const char *overlay;
  const char *src = run_s2s(c, in, &rewritten, &overlay);
  if (!src)
    return 1;
  strvec_t cmd;
  strvec_init(&cmd);
  strvec_push(&cmd, compiler_for(c, in->lang));
  strvec_append(&cmd, &c->o->compile_args);
  add_omp_flags(c, &cmd, in->lang);
  if (rewritten) {
    /* Straight to cc1: the driver drops preprocessor flags for .i/.ii. */
    strvec_push(&cmd, "-Xclang");
    strvec_push(&cmd, "-ivfsoverlay");
    strvec_push(&cmd, "-Xclang");
    strvec_push(&cmd, overlay ? overlay : write_overlay(c, in, src));
  }
  if (in->quiet_triple)
    strvec_push(&cmd, "-Wno-override-module");
  if (c->linking && c->o->dep_files && in->lang != HCC_LANG_IR)
    add_link_dep_flags(c, &cmd, in);
  if (c->o->mode == HCC_MODE_PREPROCESS || c->o->mode == HCC_MODE_SYNTAX)
    ; /* -E / -fsyntax-only are in compile_args already */
  else
    strvec_push(&cmd, c->o->mode == HCC_MODE_ASSEMBLE ? "-S" : "-c");
  if (out) {
    strvec_push(&cmd, "-o");
    strvec_push(&cmd, out);
  }
  if (in->xname) {
    strvec_push(&cmd, "-x");
    strvec_push(&cmd, in->xname);
  }
  strvec_push(&cmd, in->path);
  int rc = step(c, &cmd, NULL, NULL);
  strvec_free(&cmd);
  if (rc == 0 && rewritten == 2 && !c->o->dry_run)
    fprintf(stderr,
            "hcc: warning: hcc-s2s could not analyse '%s': "
            "compiled without schedule hints and cluster-safety "
            "checks\n",
            in->path);
  return rc;
}

/* MLIR in the omp + llvm dialects: mlir-translate turns it into LLVM IR
 * (the omp operations into __kmpc_* calls, as flang's are), which then
 * takes the compile step of any .ll: clang with the pass. -fsyntax-only
 * only translates; -E has nothing to preprocess. */
static int compile_mlir(ctx_t *c, hcc_input_t *in, const char *out) {
  if (c->o->mode == HCC_MODE_PREPROCESS) {
    fprintf(stderr, "hcc: warning: %s: MLIR input unused with -E/-M\n",
            in->path);
    return 0;
  }
  int syntax = c->o->mode == HCC_MODE_SYNTAX;
  size_t len = 0;
  char *text = read_file(in->path, &len);
  hcc_input_t ir = {.lang = HCC_LANG_IR};
  ir.path = syntax ? "/dev/null" : temp_path(c, in->path, ".ll");
  /* A module without a triple gets clang's: no warning for that. */
  ir.quiet_triple = !text || !strstr(text, "llvm.target_triple");
  strvec_t cmd;
  strvec_init(&cmd);
  strvec_push(&cmd, c->p->mlir_translate);
  strvec_push(&cmd, "--mlir-to-llvmir");
  strvec_push(&cmd, in->path);
  strvec_push(&cmd, "-o");
  strvec_push(&cmd, ir.path);
  int rc = step(c, &cmd, NULL, NULL);
  strvec_free(&cmd);
  if (rc != 0 && text)
    hcc_mlir_explain(c->p->mlir_translate, in->path, text, len);
  free(text);
  if (rc != 0 || syntax)
    return rc;
  return compile_one(c, &ir, out);
}

static int needs_compile(hcc_lang_t l) {
  return l != HCC_LANG_LINKER && l != HCC_LANG_NONE;
}

/* -emit-llvm changes clang's default output names (.bc/.ll). */
static int emit_llvm(const ctx_t *c) {
  for (size_t i = 0; i < c->o->compile_args.n; i++)
    if (strcmp(c->o->compile_args.v[i], "-emit-llvm") == 0)
      return 1;
  return 0;
}

/* -c, -S, -E, -fsyntax-only: one compile step per source. */
static int run_compile_only(ctx_t *c) {
  hcc_opts_t *o = c->o;
  int nsrc = 0;
  for (int i = 0; i < o->ninputs; i++)
    nsrc += needs_compile(o->inputs[i].lang);
  if (o->output && nsrc > 1 && o->mode != HCC_MODE_SYNTAX) {
    fprintf(stderr, "hcc: error: cannot specify -o when generating "
                    "multiple output files\n");
    return 1;
  }
  for (int i = 0; i < o->ninputs; i++) {
    hcc_input_t *in = &o->inputs[i];
    if (!needs_compile(in->lang)) {
      fprintf(stderr, "hcc: warning: %s: linker input unused\n", in->path);
      continue;
    }
    char *out = NULL;
    if (o->output)
      out = hcc_strdup(o->output);
    else if (o->mode == HCC_MODE_COMPILE)
      out = default_output(in->path, emit_llvm(c) ? ".bc" : ".o");
    else if (o->mode == HCC_MODE_ASSEMBLE)
      out = default_output(in->path, emit_llvm(c) ? ".ll" : ".s");
    int rc = compile_one(c, in, out);
    free(out);
    if (rc != 0)
      return rc;
  }
  return 0;
}

static void add_runtime_libs(ctx_t *c, strvec_t *cmd) {
  const hcc_paths_t *p = c->p;
  if (c->o->static_rt) {
    strvec_pushf(cmd, "%s/libhcrt.a", p->libdir);
    strvec_push_words(cmd, HCC_STATIC_RT_LIBS);
  } else {
    strvec_pushf(cmd, "-L%s", p->libdir);
    strvec_pushf(cmd, "-Wl,-rpath,%s", p->libdir);
    strvec_push(cmd, "-lhcrt");
  }
  strvec_push(cmd, "-L" HCC_LLVM_LIBDIR);
  strvec_push(cmd, "-Wl,-rpath," HCC_LLVM_LIBDIR);
  strvec_push(cmd, "-lomp");
  strvec_push_words(cmd, HCC_MPI_LINK_FLAGS);
}

/* The link driver: flang if any Fortran input (it brings the Fortran
 * runtime), else clang++ if any C++ input (libstdc++), else clang. */
static const char *pick_linker(ctx_t *c, int *cxx_with_flang) {
  int fortran = 0, cxx = c->o->cxx_mode;
  for (int i = 0; i < c->o->ninputs; i++) {
    fortran |= c->o->inputs[i].lang == HCC_LANG_FORTRAN;
    cxx |= hcc_lang_is_cxx(c->o->inputs[i].lang);
  }
  *cxx_with_flang = fortran && cxx;
  return fortran ? c->p->flang : cxx ? c->p->clangxx : c->p->clang;
}

static int run_link(ctx_t *c) {
  hcc_opts_t *o = c->o;
  for (int i = 0; i < o->ninputs; i++) {
    hcc_input_t *in = &o->inputs[i];
    if (!needs_compile(in->lang))
      continue;
    in->object = temp_path(c, in->path, ".o");
    hcc_mode_t saved = o->mode;
    o->mode = HCC_MODE_COMPILE;
    int rc = compile_one(c, in, in->object);
    o->mode = saved;
    if (rc != 0)
      return rc;
  }
  int cxx_with_flang;
  strvec_t cmd;
  strvec_init(&cmd);
  strvec_push(&cmd, pick_linker(c, &cxx_with_flang));
  strvec_append(&cmd, &o->link_args);
  strvec_push(&cmd, "-fopenmp");
  for (int i = 0; i < o->nlink_items; i++) {
    const hcc_link_item_t *it = &o->link_items[i];
    if (it->input < 0)
      strvec_push(&cmd, it->arg);
    else if (o->inputs[it->input].object)
      strvec_push(&cmd, o->inputs[it->input].object);
    else
      strvec_push(&cmd, o->inputs[it->input].path);
  }
  add_runtime_libs(c, &cmd);
  if (cxx_with_flang)
    strvec_push(&cmd, "-lstdc++");
  if (o->output) {
    strvec_push(&cmd, "-o");
    strvec_push(&cmd, o->output);
  }
  int rc = step(c, &cmd, NULL, NULL);
  strvec_free(&cmd);
  return rc;
}

/* Ctrl-C or a build system's kill must not leave temp directories behind
 * (remove_tmpdir is async-signal-safe). */
static ctx_t *volatile active;

static void on_signal(int sig) {
  ctx_t *c = active;
  if (c && c->tmpdir && !c->o->keep_temps && !c->o->dry_run)
    remove_tmpdir(c->tmpdir);
  signal(sig, SIG_DFL);
  raise(sig);
}

int hcc_steps_run(hcc_opts_t *o, const hcc_paths_t *p) {
  ctx_t c = {.o = o, .p = p, .linking = o->mode == HCC_MODE_LINK};
  strvec_init(&c.temps);
  active = &c;
  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  signal(SIGHUP, on_signal);
  int rc = o->mode == HCC_MODE_LINK ? run_link(&c) : run_compile_only(&c);
  cleanup(&c);
  active = NULL;
  strvec_free(&c.temps);
  free(c.tmpdir);
  return rc;
}
