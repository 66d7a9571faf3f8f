/* Internal interface of the hcc driver: the parsed command line and the
 * steps built from it. One invocation = parse (args.c) -> classify inputs
 * (inputs.c) -> build and run s2s / compile / link commands (steps.c). */
#ifndef HCC_DRIVER_H
#define HCC_DRIVER_H

#include "strvec.h"

typedef enum hcc_mode {
  HCC_MODE_LINK,       /* default: compile what needs it, then link */
  HCC_MODE_COMPILE,    /* -c */
  HCC_MODE_ASSEMBLE,   /* -S */
  HCC_MODE_PREPROCESS, /* -E, -M, -MM */
  HCC_MODE_SYNTAX      /* -fsyntax-only */
} hcc_mode_t;

typedef enum hcc_lang {
  HCC_LANG_NONE, /* unknown: an error unless it is a linker input */
  HCC_LANG_C,
  HCC_LANG_CXX,
  HCC_LANG_C_PP,   /* .i: preprocessed C */
  HCC_LANG_CXX_PP, /* .ii */
  HCC_LANG_FORTRAN,
  HCC_LANG_ASM,     /* .s */
  HCC_LANG_ASM_CPP, /* .S */
  HCC_LANG_IR,      /* .ll, .bc: LLVM IR, compiled by clang with the pass */
  HCC_LANG_MLIR,    /* .mlir (omp + llvm dialects): mlir-translate, then IR */
  HCC_LANG_LINKER   /* .o, .a, .so: straight to the link step */
} hcc_lang_t;

typedef struct hcc_input {
  const char *path; /* "-" is stdin */
  hcc_lang_t lang;
  const char *xname; /* the -x spelling in force for this input, or NULL */
  char *object;      /* output of its compile step (set by steps.c) */
  int quiet_triple;  /* IR from MLIR without a target triple: clang sets it */
} hcc_input_t;

/* One word of the link line in command-line order: either an input (by
 * index, replaced by its object) or a linker argument such as -lm. */
typedef struct hcc_link_item {
  int input; /* -1: use `arg` */
  const char *arg;
} hcc_link_item_t;

typedef struct hcc_opts {
  hcc_mode_t mode;
  int dry_run;        /* -### */
  int verbose;        /* -v */
  int version;        /* --version */
  int s2s;            /* run hcc-s2s (default on; -fno-hcc-s2s) */
  int s2s_warn;       /* hcc cluster warnings (-Wno-hcc turns them off) */
  int plugin;         /* add the pass plugin (-fno-hcc-pass turns it off) */
  int static_rt;      /* -static-hcrt */
  int cxx_mode;       /* invoked as hcc++ */
  int keep_temps;     /* HCC_KEEP_TEMPS=1 or -save-temps */
  int dep_files;      /* -MD/-MMD given */
  const char *output; /* -o */

  strvec_t compile_args; /* user flags for compile steps (and s2s) */
  strvec_t link_args;    /* user flags for the link step (not inputs) */
  hcc_input_t *inputs;
  int ninputs;
  hcc_link_item_t *link_items;
  int nlink_items;
} hcc_opts_t;

/* Where hcc's own pieces and the compilers are (hcc.c). */
typedef struct hcc_paths {
  char *bindir; /* directory of the hcc executable */
  char *libdir; /* <bindir>/../lib: HCCPasses.so, libhcrt */
  char *incdir; /* <bindir>/../include: hcrt/ headers */
  char *plugin; /* <libdir>/HCCPasses.so */
  char *s2s;    /* <bindir>/hcc-s2s */
  const char *clang, *clangxx, *flang; /* after HCC_CLANG* overrides */
  const char *mlir_translate;          /* after HCC_MLIR_TRANSLATE */
} hcc_paths_t;

/* args.c: parses argv (after @file expansion); returns 0 or prints an
 * error and returns -1. */
int hcc_args_parse(hcc_opts_t *o, int argc, char **argv);

/* inputs.c */
hcc_lang_t hcc_lang_from_path(const char *path);
/* Maps a -x spelling to a language; HCC_LANG_NONE for "none", -1 cast for
 * an unknown spelling. */
int hcc_lang_from_x(const char *x, hcc_lang_t *out);
int hcc_lang_is_cfamily(hcc_lang_t l);
int hcc_lang_is_cxx(hcc_lang_t l);
/* Checks every input exists and has a language; prints errors. */
int hcc_inputs_check(hcc_opts_t *o);

/* headers.c: calls fn(path, text, len, arg) for each user header (not
 * under /usr, not in a system directory) the source `path` with contents
 * `text` may include, directly or not, until fn returns nonzero. Returns 1
 * if fn did, or if the walk met an #include it cannot follow (a macro, a
 * flag that changes the search); 0 if fn said no for every header. */
typedef int (*hcc_header_fn)(const char *path, const char *text, size_t len,
                             void *arg);
int hcc_headers_walk(const strvec_t *compile_args, const char *path,
                     const char *text, size_t len, hcc_header_fn fn, void *arg);

/* mlir.c: after mlir-translate failed on `path` (contents `text`): when
 * the module uses dialects other than omp/llvm/builtin, says which and
 * the mlir-opt pipeline that lowers them. */
void hcc_mlir_explain(const char *translator, const char *path,
                      const char *text, size_t len);
/* Those dialects as "scf, arith" (malloc), or NULL. */
char *hcc_mlir_foreign_dialects(const char *text, size_t len);

/* steps.c: builds and runs (or prints) every step; returns the exit code. */
int hcc_steps_run(hcc_opts_t *o, const hcc_paths_t *p);

#endif
