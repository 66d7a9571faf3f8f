/* hcc: a drop-in for `clang-19 -fopenmp` that builds cluster OpenMP
 * programs (see docs/driver.md). This file: locating hcc's own files and
 * the compilers, response files, --version, and the top-level flow. */
#include "driver.h"
#include "hcc_config.h"
#include "proc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The build tree is laid out like the install tree (bin/, lib/,
 * include/), so both are found from the executable's own directory. */
static void paths_init(hcc_paths_t *p) {
  p->bindir = hcc_self_dir();
  p->libdir = hcc_asprintf("%s/../lib", p->bindir);
  p->incdir = hcc_asprintf("%s/../include", p->bindir);
  char *real = realpath(p->libdir, NULL);
  if (real)
    free(p->libdir), p->libdir = real;
  real = realpath(p->incdir, NULL);
  if (real)
    free(p->incdir), p->incdir = real;
  p->plugin = hcc_asprintf("%s/HCCPasses.so", p->libdir);
  p->s2s = hcc_asprintf("%s/hcc-s2s", p->bindir);
}

/* Resolves a compiler: environment override, else the configure-time
 * default. Returns its full path or NULL after printing an error. */
static const char *find_compiler(const char *what, const char *env,
                                 const char *def) {
  const char *name = getenv(env);
  if (!name || !*name)
    name = def;
  char *path = hcc_find_program(name);
  if (!path)
    fprintf(stderr,
            "hcc: error: %s '%s' not found (set %s to the "
            "compiler to use)\n",
            what, name && *name ? name : "(none configured)", env);
  return path;
}

static const char *quiet_find(const char *env, const char *def) {
  const char *name = getenv(env);
  return hcc_find_program(name && *name ? name : def);
}

/* MLIR input needs mlir-translate (Debian: mlir-19-tools). */
static int translator_init(hcc_paths_t *p) {
  const char *name = getenv("HCC_MLIR_TRANSLATE");
  if (!name || !*name)
    name = HCC_DEFAULT_MLIR_TRANSLATE;
  if ((p->mlir_translate = hcc_find_program(name)))
    return 0;
  fprintf(stderr,
          "hcc: error: MLIR translator '%s' not found: it turns .mlir input "
          "into LLVM IR (install LLVM 19's mlir-translate, on Debian the "
          "package mlir-19-tools, or set HCC_MLIR_TRANSLATE to it)\n",
          name);
  return -1;
}

/* Only the compilers this invocation needs must exist. */
static int compilers_init(hcc_paths_t *p, const hcc_opts_t *o) {
  int c = o->ninputs == 0, cxx = o->cxx_mode, f = 0, mlir = 0;
  for (int i = 0; i < o->ninputs; i++) {
    hcc_lang_t l = o->inputs[i].lang;
    f |= l == HCC_LANG_FORTRAN;
    mlir |= l == HCC_LANG_MLIR;
    cxx |= hcc_lang_is_cxx(l);
    c |= !hcc_lang_is_cxx(l) && l != HCC_LANG_FORTRAN;
  }
  int ok = 1;
  if (c &&
      !(p->clang = find_compiler("C compiler", "HCC_CLANG", HCC_DEFAULT_CLANG)))
    ok = 0;
  if (cxx && !(p->clangxx = find_compiler("C++ compiler", "HCC_CLANGXX",
                                          HCC_DEFAULT_CLANGXX)))
    ok = 0;
  if (f && !(p->flang = find_compiler("Fortran compiler", "HCC_FLANG",
                                      HCC_DEFAULT_FLANG)))
    ok = 0;
  if (mlir && translator_init(p) < 0)
    ok = 0;
  return ok ? 0 : -1;
}

/* Expands @file arguments (whitespace-separated, with '' "" and \
 * quoting, as gcc and clang read them). */
static void push_response_file(strvec_t *out, const char *path) {
  FILE *f = fopen(path + 1, "r");
  if (!f) {
    strvec_push(out, path); /* clang treats a missing @file as an input */
    return;
  }
  size_t len = 0, cap = 256;
  char *buf = hcc_xrealloc(NULL, cap);
  int ch, quote = 0, have = 0;
  while ((ch = fgetc(f)) != EOF) {
    int escaped = ch == '\\';
    if (escaped && (ch = fgetc(f)) == EOF)
      break;
    if (!escaped && quote && ch == quote) {
      quote = 0;
      continue;
    }
    if (!escaped && !quote && (ch == '\'' || ch == '"')) {
      quote = ch, have = 1;
      continue;
    }
    if (!escaped && !quote &&
        (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r')) {
      if (have)
        buf[len] = '\0', strvec_push(out, buf);
      len = 0, have = 0;
      continue;
    }
    if (len + 2 > cap)
      buf = hcc_xrealloc(buf, cap *= 2);
    buf[len++] = (char)ch, have = 1;
  }
  if (have)
    buf[len] = '\0', strvec_push(out, buf);
  free(buf);
  fclose(f);
}

static void print_version(const hcc_paths_t *p) {
  printf("hcc version %s (cluster OpenMP; LLVM %s)\n", HCC_VERSION,
         HCC_LLVM_VERSION);
  printf("plugin: %s%s\n", p->plugin,
         access(p->plugin, R_OK) == 0 ? "" : " (missing)");
  printf("runtime: %s/libhcrt.so\n", p->libdir);
  printf("compilers: %s, %s, %s\n", p->clang ? p->clang : "(not found)",
         p->clangxx ? p->clangxx : "(not found)",
         p->flang ? p->flang : "(not found)");
  fflush(stdout);
}

/* In a real run, hcc's own pieces must exist; say which and how to fix. */
static int check_own_files(const hcc_opts_t *o, const hcc_paths_t *p) {
  if (o->dry_run)
    return 0;
  if (o->plugin && o->mode != HCC_MODE_PREPROCESS &&
      o->mode != HCC_MODE_SYNTAX && access(p->plugin, R_OK) != 0) {
    fprintf(stderr,
            "hcc: error: pass plugin not found: %s (build the "
            "HCCPasses target, or pass -fno-hcc-pass)\n",
            p->plugin);
    return -1;
  }
  if (o->s2s && access(p->s2s, X_OK) != 0) {
    fprintf(stderr,
            "hcc: error: source tool not found: %s (build the "
            "hcc-s2s target, or pass -fno-hcc-s2s)\n",
            p->s2s);
    return -1;
  }
  return 0;
}

/* Without inputs hcc has nothing of its own to do: print its version if
 * asked, then let clang answer queries such as -dumpmachine,
 * -print-file-name=, -print-resource-dir or -v, as a drop-in must. */
static int no_inputs(hcc_opts_t *o, hcc_paths_t *p, int argc) {
  if (o->version || o->verbose) {
    p->clang = quiet_find("HCC_CLANG", HCC_DEFAULT_CLANG);
    p->clangxx = quiet_find("HCC_CLANGXX", HCC_DEFAULT_CLANGXX);
    p->flang = quiet_find("HCC_FLANG", HCC_DEFAULT_FLANG);
    print_version(p);
  }
  if (argc <= 1) {
    fprintf(stderr, "hcc: error: no input files\n");
    return 1;
  }
  if (o->version && argc == 2)
    return 0;
  if (compilers_init(p, o) < 0)
    return 1;
  strvec_t cmd;
  strvec_init(&cmd);
  strvec_push(&cmd, o->cxx_mode ? p->clangxx : p->clang);
  strvec_append(&cmd, &o->compile_args);
  for (int i = 0; i < o->nlink_items; i++)
    strvec_push(&cmd, o->link_items[i].arg);
  if (o->output) {
    strvec_push(&cmd, "-o");
    strvec_push(&cmd, o->output);
  }
  if (o->dry_run || o->verbose)
    hcc_print_command(stderr, cmd.v);
  int rc = o->dry_run ? 0 : hcc_run(cmd.v, NULL, NULL);
  strvec_free(&cmd);
  return rc < 0 ? 1 : rc;
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

int main(int argc, char **argv) {
  hcc_opts_t o = {.s2s = 1, .s2s_warn = 1, .plugin = 1};
  hcc_paths_t p = {0};
  strvec_t args;
  strvec_init(&args);
  strvec_init(&o.compile_args);
  strvec_init(&o.link_args);
  for (int i = 0; i < argc; i++) {
    if (i > 0 && argv[i][0] == '@')
      push_response_file(&args, argv[i]);
    else
      strvec_push(&args, argv[i]);
  }
  o.cxx_mode = ends_with(argv[0], "++");
  const char *keep = getenv("HCC_KEEP_TEMPS");
  o.keep_temps = keep && *keep && strcmp(keep, "0") != 0;
  paths_init(&p);
  if (hcc_args_parse(&o, (int)args.n, args.v) < 0)
    return 1;
  if (o.ninputs == 0)
    return no_inputs(&o, &p, (int)args.n);
  if (hcc_inputs_check(&o) < 0 || compilers_init(&p, &o) < 0 ||
      check_own_files(&o, &p) < 0)
    return 1;
  if (o.verbose) { /* the compilers these inputs do not need, too */
    hcc_paths_t shown = p;
    if (!shown.clang)
      shown.clang = quiet_find("HCC_CLANG", HCC_DEFAULT_CLANG);
    if (!shown.clangxx)
      shown.clangxx = quiet_find("HCC_CLANGXX", HCC_DEFAULT_CLANGXX);
    if (!shown.flang)
      shown.flang = quiet_find("HCC_FLANG", HCC_DEFAULT_FLANG);
    print_version(&shown);
  }
  return hcc_steps_run(&o, &p);
}
