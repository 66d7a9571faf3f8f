#include "strvec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *hcc_xrealloc(void *p, size_t size) {
  void *q = realloc(p, size);
  if (!q) {
    fprintf(stderr, "hcc: error: out of memory\n");
    exit(1);
  }
  return q;
}

char *hcc_strdup(const char *s) {
  size_t len = strlen(s) + 1;
  return memcpy(hcc_xrealloc(NULL, len), s, len);
}

static char *vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *s = hcc_xrealloc(NULL, (size_t)len + 1);
  vsnprintf(s, (size_t)len + 1, fmt, ap);
  return s;
}

char *hcc_asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = vformat(fmt, ap);
  va_end(ap);
  return s;
}

void strvec_init(strvec_t *sv) {
  sv->n = 0;
  sv->cap = 8;
  sv->v = hcc_xrealloc(NULL, sv->cap * sizeof(char *));
  sv->v[0] = NULL;
}

void strvec_free(strvec_t *sv) {
  for (size_t i = 0; i < sv->n; i++)
    free(sv->v[i]);
  free(sv->v);
  sv->v = NULL;
  sv->n = sv->cap = 0;
}

static void push_owned(strvec_t *sv, char *s) {
  if (sv->n + 2 > sv->cap) {
    sv->cap *= 2;
    sv->v = hcc_xrealloc(sv->v, sv->cap * sizeof(char *));
  }
  sv->v[sv->n++] = s;
  sv->v[sv->n] = NULL;
}

void strvec_push(strvec_t *sv, const char *s) { push_owned(sv, hcc_strdup(s)); }

void strvec_pushf(strvec_t *sv, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  push_owned(sv, vformat(fmt, ap));
  va_end(ap);
}

void strvec_append(strvec_t *sv, const strvec_t *other) {
  for (size_t i = 0; i < other->n; i++)
    strvec_push(sv, other->v[i]);
}

void strvec_push_words(strvec_t *sv, const char *words) {
  const char *p = words;
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    const char *start = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\n')
      p++;
    if (p > start)
      push_owned(sv, strndup(start, (size_t)(p - start)));
  }
}
