/* Command-line parsing. hcc must accept every clang flag, so the parser
 * only needs to know three things about a flag: does it change what hcc
 * does (mode, output, language), does it take the next word as its value,
 * and does it belong to the compile steps, the link step or both. */
#include "driver.h"
#include "hcc_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Flags whose value is the next word when written alone ("-I dir"). */
static const char *const separate_value[] = {"-I",
                                             "-D",
                                             "-U",
                                             "-L",
                                             "-l",
                                             "-F",
                                             "-B",
                                             "-A",
                                             "-J",
                                             "-include",
                                             "-imacros",
                                             "-isystem",
                                             "-iquote",
                                             "-idirafter",
                                             "-iprefix",
                                             "-iwithprefix",
                                             "-iwithprefixbefore",
                                             "-isysroot",
                                             "-isystem-after",
                                             "-cxx-isystem",
                                             "-ivfsoverlay",
                                             "-MF",
                                             "-MT",
                                             "-MQ",
                                             "-MJ",
                                             "-Xclang",
                                             "-Xassembler",
                                             "-Xpreprocessor",
                                             "-Xanalyzer",
                                             "-Xopenmp-target",
                                             "-Xarch_host",
                                             "-Xarch_device",
                                             "-Xflang",
                                             "-mllvm",
                                             "-target",
                                             "-arch",
                                             "-resource-dir",
                                             "-dependency-file",
                                             "-dependency-dot",
                                             "-serialize-diagnostics",
                                             "--param",
                                             "-module-dir",
                                             "-main-file-name",
                                             "-fmodule-file",
                                             "-working-directory",
                                             "--sysroot",
                                             "-gcc-toolchain",
                                             NULL};

/* Link-step-only flags taking a value: kept off compile steps. */
static const char *const link_value[] = {"-Xlinker", "-z", "-u",
                                         "-T",       "-e", NULL};

/* Link-step-only flags without a value. */
static const char *const link_only[] = {
    "-shared", "-rdynamic", "-pie", "-no-pie", "-s", "-r", NULL};

static int in_list(const char *const *list, const char *s) {
  for (; *list; list++)
    if (strcmp(*list, s) == 0)
      return 1;
  return 0;
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void add_link_item(hcc_opts_t *o, int input, const char *arg) {
  o->link_items = hcc_xrealloc(o->link_items, (size_t)(o->nlink_items + 1) *
                                                  sizeof(*o->link_items));
  o->link_items[o->nlink_items].input = input;
  o->link_items[o->nlink_items].arg = arg;
  o->nlink_items++;
}

static void add_input(hcc_opts_t *o, const char *path, const char *xname) {
  o->inputs =
      hcc_xrealloc(o->inputs, (size_t)(o->ninputs + 1) * sizeof(*o->inputs));
  hcc_input_t *in = &o->inputs[o->ninputs];
  in->path = path;
  in->xname = xname;
  in->object = NULL;
  in->quiet_triple = 0;
  in->lang = HCC_LANG_NONE;
  if (xname)
    hcc_lang_from_x(xname, &in->lang);
  else
    in->lang = hcc_lang_from_path(path);
  add_link_item(o, o->ninputs, NULL);
  o->ninputs++;
}

/* Flags hcc owns. Returns 1 if consumed, 0 if not ours, -1 on error. */
static int parse_hcc_flag(hcc_opts_t *o, const char *a) {
  if (strcmp(a, "-fno-hcc-s2s") == 0)
    o->s2s = 0;
  else if (strcmp(a, "-fhcc-s2s") == 0)
    o->s2s = 1;
  else if (strcmp(a, "-fno-hcc-pass") == 0)
    o->plugin = 0;
  else if (strcmp(a, "-fhcc-pass") == 0)
    o->plugin = 1;
  else if (strcmp(a, "-Wno-hcc") == 0)
    o->s2s_warn = 0;
  else if (strcmp(a, "-Whcc") == 0)
    o->s2s_warn = 1;
  else if (strcmp(a, "-static-hcrt") == 0)
    o->static_rt = 1;
  else if (strcmp(a, "-fno-openmp") == 0) {
    fprintf(stderr, "hcc: error: '-fno-openmp' cannot be used with hcc, "
                    "which always compiles OpenMP (use clang-19 to "
                    "build without OpenMP)\n");
    return -1;
  } else if (starts(a, "-fopenmp-targets=")) {
    if (strcmp(a + strlen("-fopenmp-targets="), HCC_OFFLOAD_TRIPLE) != 0) {
      fprintf(stderr,
              "hcc: error: '%s' is not supported: hcc offloads "
              "target regions to cluster nodes and always uses "
              "-fopenmp-targets=" HCC_OFFLOAD_TRIPLE " (remove the flag)\n",
              a);
      return -1;
    }
  } else if (starts(a, "-fopenmp=") && strcmp(a, "-fopenmp=libomp") != 0) {
    fprintf(stderr,
            "hcc: error: '%s' is not supported: hcc's runtime "
            "sits on LLVM's libomp (remove the flag)\n",
            a);
    return -1;
  } else if (strcmp(a, "-fopenmp") == 0 || starts(a, "-fopenmp=") ||
             strcmp(a, "--offload-host-only") == 0)
    ; /* hcc adds these itself */
  else
    return 0;
  return 1;
}

/* Mode-setting and driver-level flags. Returns 1 if consumed. */
static int parse_mode_flag(hcc_opts_t *o, const char *a) {
  if (strcmp(a, "-c") == 0)
    o->mode = o->mode == HCC_MODE_LINK ? HCC_MODE_COMPILE : o->mode;
  else if (strcmp(a, "-S") == 0)
    o->mode = o->mode == HCC_MODE_PREPROCESS ? o->mode : HCC_MODE_ASSEMBLE;
  else if (strcmp(a, "-E") == 0 || strcmp(a, "-M") == 0 ||
           strcmp(a, "-MM") == 0) {
    o->mode = HCC_MODE_PREPROCESS;
    return 0; /* clang needs to see it too */
  } else if (strcmp(a, "-fsyntax-only") == 0) {
    o->mode = HCC_MODE_SYNTAX;
    return 0;
  } else if (strcmp(a, "-###") == 0)
    o->dry_run = 1;
  else if (strcmp(a, "-v") == 0) {
    o->verbose = 1;
    return 0; /* clang -v also prints its own invocation */
  } else if (strcmp(a, "--version") == 0)
    o->version = 1;
  else
    return 0;
  return 1;
}

int hcc_args_parse(hcc_opts_t *o, int argc, char **argv) {
  const char *xname = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int r;
    if (a[0] != '-' || strcmp(a, "-") == 0) {
      add_input(o, a, xname);
      continue;
    }
    if ((r = parse_hcc_flag(o, a)) != 0) {
      if (r < 0)
        return -1;
      continue;
    }
    if (parse_mode_flag(o, a))
      continue;
    if (strcmp(a, "-o") == 0 || strcmp(a, "-x") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr,
                "hcc: error: argument to '%s' is missing "
                "(expected 1 value)\n",
                a);
        return -1;
      }
      if (a[1] == 'o')
        o->output = argv[++i];
      else
        xname = strcmp(argv[++i], "none") == 0 ? NULL : argv[i];
      if (xname) {
        hcc_lang_t l;
        if (hcc_lang_from_x(xname, &l) < 0) {
          fprintf(stderr,
                  "hcc: error: language not recognized: "
                  "'%s' (hcc knows c, c++, cpp-output, "
                  "c++-cpp-output, f95, f95-cpp-input, "
                  "assembler, assembler-with-cpp, ir, mlir)\n",
                  xname);
          return -1;
        }
      }
      continue;
    }
    if (starts(a, "-o") && a[2]) {
      o->output = a + 2;
      continue;
    }
    if (strcmp(a, "-MD") == 0 || strcmp(a, "-MMD") == 0)
      o->dep_files = 1;
    if (starts(a, "-save-temps")) /* clang's temps, and hcc's own */
      o->keep_temps = 1;
    if (starts(a, "-l") || starts(a, "-L") || starts(a, "-Wl,") ||
        starts(a, "-fuse-ld=") || starts(a, "-rtlib=") ||
        starts(a, "-unwindlib=") || starts(a, "-static-lib") ||
        in_list(link_value, a) || in_list(link_only, a)) {
      /* Link-only: keep command-line order relative to inputs. */
      add_link_item(o, -1, a);
      if (in_list(link_value, a) || strcmp(a, "-l") == 0 ||
          strcmp(a, "-L") == 0) {
        if (i + 1 < argc)
          add_link_item(o, -1, argv[++i]);
      }
      continue;
    }
    strvec_push(&o->compile_args, a);
    strvec_push(&o->link_args, a);
    if (in_list(separate_value, a) && i + 1 < argc) {
      strvec_push(&o->compile_args, argv[++i]);
      strvec_push(&o->link_args, argv[i]);
    }
  }
  return 0;
}
