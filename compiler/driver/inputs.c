/* Input classification: which compiler handles a file, as clang would
 * decide from its extension or the -x in force. */
#include "driver.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
  const char *ext;
  hcc_lang_t lang;
} ext_table[] = {
    {"c", HCC_LANG_C},         {"i", HCC_LANG_C_PP},
    {"cc", HCC_LANG_CXX},      {"cpp", HCC_LANG_CXX},
    {"cxx", HCC_LANG_CXX},     {"c++", HCC_LANG_CXX},
    {"C", HCC_LANG_CXX},       {"CPP", HCC_LANG_CXX},
    {"cp", HCC_LANG_CXX},      {"ii", HCC_LANG_CXX_PP},
    {"f90", HCC_LANG_FORTRAN}, {"F90", HCC_LANG_FORTRAN},
    {"f95", HCC_LANG_FORTRAN}, {"F95", HCC_LANG_FORTRAN},
    {"f03", HCC_LANG_FORTRAN}, {"F03", HCC_LANG_FORTRAN},
    {"f08", HCC_LANG_FORTRAN}, {"F08", HCC_LANG_FORTRAN},
    {"f", HCC_LANG_FORTRAN},   {"F", HCC_LANG_FORTRAN},
    {"for", HCC_LANG_FORTRAN}, {"FOR", HCC_LANG_FORTRAN},
    {"s", HCC_LANG_ASM},       {"S", HCC_LANG_ASM_CPP},
    {"ll", HCC_LANG_IR},       {"bc", HCC_LANG_IR},
    {"mlir", HCC_LANG_MLIR},   {"o", HCC_LANG_LINKER},
    {"a", HCC_LANG_LINKER},    {"so", HCC_LANG_LINKER},
    {"lo", HCC_LANG_LINKER},
};

static const struct {
  const char *name;
  hcc_lang_t lang;
} x_table[] = {
    {"c", HCC_LANG_C},
    {"c++", HCC_LANG_CXX},
    {"cpp-output", HCC_LANG_C_PP},
    {"c-cpp-output", HCC_LANG_C_PP},
    {"c++-cpp-output", HCC_LANG_CXX_PP},
    {"f95", HCC_LANG_FORTRAN},
    {"f95-cpp-input", HCC_LANG_FORTRAN},
    {"f77", HCC_LANG_FORTRAN},
    {"f77-cpp-input", HCC_LANG_FORTRAN},
    {"fortran", HCC_LANG_FORTRAN},
    {"assembler", HCC_LANG_ASM},
    {"assembler-with-cpp", HCC_LANG_ASM_CPP},
    {"ir", HCC_LANG_IR},
    {"mlir", HCC_LANG_MLIR},
};

hcc_lang_t hcc_lang_from_path(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  /* Versioned shared libraries: libfoo.so.1.2 */
  if (strstr(base, ".so."))
    return HCC_LANG_LINKER;
  const char *dot = strrchr(base, '.');
  if (!dot || dot == base)
    return HCC_LANG_NONE;
  for (size_t i = 0; i < sizeof(ext_table) / sizeof(ext_table[0]); i++)
    if (strcmp(dot + 1, ext_table[i].ext) == 0)
      return ext_table[i].lang;
  return HCC_LANG_NONE;
}

int hcc_lang_from_x(const char *x, hcc_lang_t *out) {
  for (size_t i = 0; i < sizeof(x_table) / sizeof(x_table[0]); i++)
    if (strcmp(x, x_table[i].name) == 0) {
      *out = x_table[i].lang;
      return 0;
    }
  return -1;
}

int hcc_lang_is_cfamily(hcc_lang_t l) {
  return l == HCC_LANG_C || l == HCC_LANG_CXX || l == HCC_LANG_C_PP ||
         l == HCC_LANG_CXX_PP;
}

int hcc_lang_is_cxx(hcc_lang_t l) {
  return l == HCC_LANG_CXX || l == HCC_LANG_CXX_PP;
}

int hcc_inputs_check(hcc_opts_t *o) {
  int bad = 0;
  for (int i = 0; i < o->ninputs; i++) {
    hcc_input_t *in = &o->inputs[i];
    struct stat st;
    if (strcmp(in->path, "-") == 0) {
      if (!in->xname && o->mode == HCC_MODE_PREPROCESS) {
        in->lang = HCC_LANG_C;
      } else if (!in->xname) {
        fprintf(stderr, "hcc: error: -E or -x required when input is "
                        "from standard input\n");
        bad = 1;
      }
      continue;
    }
    if (stat(in->path, &st) != 0) {
      fprintf(stderr, "hcc: error: no such file or directory: '%s'\n",
              in->path);
      bad = 1;
      continue;
    }
    if (in->lang == HCC_LANG_NONE) {
      fprintf(stderr,
              "hcc: error: unknown language for input '%s': "
              "use a known extension (.c .cpp .cc .cxx .f90 "
              ".F90 .f .s .S .ll .bc .mlir .o .a .so) or -x "
              "<language>\n",
              in->path);
      bad = 1;
    }
    if (o->cxx_mode && !in->xname && in->lang == HCC_LANG_C)
      in->lang = HCC_LANG_CXX;
  }
  return bad ? -1 : 0;
}
