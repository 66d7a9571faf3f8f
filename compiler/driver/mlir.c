/* MLIR input: what hcc says when mlir-translate cannot turn a file into
 * LLVM IR. hcc takes modules in the `omp` and `llvm` dialects (what flang
 * and other MLIR front ends end with); a module still in higher dialects
 * (scf, arith, func, memref, affine, ...) must be lowered with mlir-opt
 * first, and the message names the dialects found and a pipeline. */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dialects mlir-translate turns into LLVM IR for hcc. */
static int translated(const char *d, size_t n) {
  return (n == 7 && memcmp(d, "builtin", 7) == 0) ||
         (n == 4 && memcmp(d, "llvm", 4) == 0) ||
         (n == 3 && memcmp(d, "omp", 3) == 0);
}

static int op_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
         (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '$';
}

/* The operation name a statement line starts with, after its results
 * ("%x = ", "%a, %b = ", "%c:2 = "), in custom (dialect.op) or generic
 * ("dialect.op") form; its length in *n, or NULL. `key = value` lines
 * (attribute dictionaries spread over lines) are no operations. */
static const char *op_name(const char *line, const char *end, size_t *n) {
  const char *p = line;
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (p < end && *p == '%') {
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (!eq)
      return NULL;
    for (p = eq + 1; p < end && *p == ' ';)
      p++;
  }
  int quoted = p < end && *p == '"';
  const char *name = p + quoted;
  for (p = name; p < end && op_char(*p);)
    p++;
  *n = (size_t)(p - name);
  while (!quoted && p < end && *p == ' ')
    p++;
  if (!quoted && p < end && *p == '=')
    return NULL;
  return *n && memchr(name, '.', *n) ? name : NULL;
}

char *hcc_mlir_foreign_dialects(const char *text, size_t len) {
  strvec_t found;
  strvec_init(&found);
  for (const char *line = text; line < text + len;) {
    const char *end = memchr(line, '\n', (size_t)(text + len - line));
    end = end ? end : text + len;
    size_t n;
    const char *name = op_name(line, end, &n);
    size_t dn = name ? (size_t)((const char *)memchr(name, '.', n) - name) : 0;
    int known = !name || translated(name, dn);
    for (size_t i = 0; !known && i < found.n; i++)
      known = strlen(found.v[i]) == dn && memcmp(found.v[i], name, dn) == 0;
    if (!known && found.n < 12) {
      char *d = hcc_asprintf("%.*s", (int)dn, name);
      strvec_push(&found, d);
      free(d);
    }
    line = end + 1;
  }
  char *list = NULL;
  for (size_t i = 0; i < found.n; i++) {
    char *more =
        hcc_asprintf("%s%s%s", list ? list : "", list ? ", " : "", found.v[i]);
    free(list);
    list = more;
  }
  strvec_free(&found);
  return list;
}

static int listed(const char *list, const char *d) {
  size_t n = strlen(d);
  for (const char *p = list; (p = strstr(p, d)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
      return 1;
  return 0;
}

void hcc_mlir_explain(const char *translator, const char *path,
                      const char *text, size_t len) {
  char *list = hcc_mlir_foreign_dialects(text, len);
  if (!list)
    return;
  /* mlir-opt sits next to mlir-translate, with the same suffix. */
  const char *base = strrchr(translator, '/');
  base = base ? base + 1 : translator;
  const char *t = strstr(base, "translate");
  char *opt = t ? hcc_asprintf("%.*sopt%s", (int)(t - base), base, t + 9)
                : hcc_strdup("mlir-opt-19");
  fprintf(stderr,
          "hcc: error: '%s' uses the %s dialect%s: hcc compiles MLIR in the "
          "omp and llvm dialects (%s --mlir-to-llvmir); lower the rest "
          "first, e.g.\n  %s%s%s%s --convert-to-llvm "
          "--convert-openmp-to-llvm --reconcile-unrealized-casts %s -o "
          "lowered.mlir\n",
          path, list, strchr(list, ',') ? "s" : "", base, opt,
          listed(list, "affine") ? " --lower-affine" : "",
          listed(list, "scf") || listed(list, "affine")
              ? " --convert-scf-to-openmp"
              : "",
          listed(list, "scf") || listed(list, "affine") ? " --convert-scf-to-cf"
                                                        : "",
          path);
  free(opt);
  free(list);
}
