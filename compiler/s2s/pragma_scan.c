/*
 * pragma_scan.c - the textual pass over OpenMP pragmas (pragma_scan.h).
 *
 * A small scanner, not a preprocessor: comments and string/character
 * literals are skipped, `#pragma` is recognised only at the start of a
 * line, and inside a directive words are matched whole.
 */
#include "pragma_scan.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
  char *p;
  size_t n, cap;
} buf_t;

static void buf_add(buf_t *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 256;
    while (cap < b->n + n + 1)
      cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
      fputs("hcc: error: out of memory in the pragma scan\n", stderr);
      exit(1);
    }
    b->p = p, b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

static void buf_addf(buf_t *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;

  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
  va_end(ap);
  if (n > 0)
    buf_add(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

typedef struct scanner {
  const char *src;
  size_t len;
  const char *file;
  buf_t out, errs;
  hcc_sched_hint_t *hints;
  size_t nhints, hints_cap;
  size_t copied; /* src[0, copied) is already in out */
  int failed;
  int defaults;    /* give clause-less loops the implementation's schedule */
  int file_nowait; /* the file (or its unit) says "nowait" somewhere */
  unsigned ndefault;
  unsigned ndirectives;
} scanner_t;

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static char at(const scanner_t *s, size_t p) {
  return p < s->len ? s->src[p] : '\0';
}

static unsigned line_of(const scanner_t *s, size_t pos) {
  unsigned line = 1;
  for (size_t i = 0; i < pos && i < s->len; i++)
    line += s->src[i] == '\n';
  return line;
}

static unsigned col_of(const scanner_t *s, size_t pos) {
  size_t i = pos;
  while (i > 0 && s->src[i - 1] != '\n')
    i--;
  return (unsigned)(pos - i + 1);
}

/* Whitespace including backslash-newline splices. */
static size_t skip_space(const scanner_t *s, size_t p, size_t end) {
  const char *c = s->src;
  while (p < end) {
    if (c[p] == ' ' || c[p] == '\t')
      ++p;
    else if (c[p] == '\\' && p + 1 < end && c[p + 1] == '\n')
      p += 2;
    else if (c[p] == '\\' && p + 2 < end && c[p + 1] == '\r' &&
             c[p + 2] == '\n')
      p += 3;
    else
      break;
  }
  return p;
}

static size_t end_of_logical_line(const scanner_t *s, size_t p) {
  const char *c = s->src;
  while (p < s->len && c[p] != '\n')
    ++p;
  while (
      p < s->len && p > 0 &&
      (c[p - 1] == '\\' || (c[p - 1] == '\r' && p > 1 && c[p - 2] == '\\'))) {
    ++p;
    while (p < s->len && c[p] != '\n')
      ++p;
  }
  return p;
}

/* The position after the comment starting at p, or p if none does. */
static size_t skip_comment(const scanner_t *s, size_t p) {
  if (at(s, p) == '/' && at(s, p + 1) == '/')
    return end_of_logical_line(s, p);
  if (at(s, p) == '/' && at(s, p + 1) == '*') {
    for (size_t q = p + 2; q + 1 < s->len; q++)
      if (s->src[q] == '*' && s->src[q + 1] == '/')
        return q + 2;
    return s->len;
  }
  return p;
}

/* `w` as a whole word at p (p < end). */
static int word_at(const scanner_t *s, size_t p, size_t end, const char *w) {
  size_t n = strlen(w);
  return p + n <= end && memcmp(s->src + p, w, n) == 0 &&
         (p == 0 || !is_ident(s->src[p - 1])) &&
         (p + n >= end || !is_ident(s->src[p + n]));
}

static size_t ident_end(const scanner_t *s, size_t p, size_t end) {
  while (p < end && is_ident(s->src[p]))
    ++p;
  return p;
}

static void error(scanner_t *s, size_t pos, const char *fmt, ...) {
  char msg[400];
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  s->failed = 1;
  unsigned col = col_of(s, pos);
  buf_addf(&s->errs, "%s:%u:%u: error: hcc: %s\n", s->file, line_of(s, pos),
           col, msg);
  size_t ls = pos - (col - 1), le = ls;
  while (le < s->len && s->src[le] != '\n')
    le++;
  buf_add(&s->errs, s->src + ls, le - ls);
  buf_add(&s->errs, "\n", 1);
  for (unsigned i = 1; i < col; i++)
    buf_add(&s->errs, " ", 1);
  buf_add(&s->errs, "^\n", 2);
}

static void add_hint(scanner_t *s, hcc_sched_hint_t h) {
  if (s->nhints == s->hints_cap) {
    size_t cap = s->hints_cap ? 2 * s->hints_cap : 8;
    hcc_sched_hint_t *p = realloc(s->hints, cap * sizeof(*p));
    if (!p) {
      fputs("hcc: error: out of memory in the pragma scan\n", stderr);
      exit(1);
    }
    s->hints = p, s->hints_cap = cap;
  }
  s->hints[s->nhints++] = h;
}

/* Copies the source up to `to` into the output. */
static void copy_to(scanner_t *s, size_t to) {
  buf_add(&s->out, s->src + s->copied, to - s->copied);
  s->copied = to;
}

/* At `pos` starts the word "schedule". Rewrites the clause when it is an
 * hcc extension. */
static void rewrite_clause(scanner_t *s, size_t pos, size_t end,
                           unsigned line) {
  const char *c = s->src;
  size_t p = skip_space(s, pos + 8, end);
  if (p >= end || c[p] != '(')
    return;
  p = skip_space(s, p + 1, end);
  size_t kpos = p;
  p = ident_end(s, p, end);
  size_t klen = p - kpos;
  int hp = klen == 8 && memcmp(c + kpos, "hetprobe", 8) == 0;
  int hpi = klen == 10 && memcmp(c + kpos, "hetprobe_i", 10) == 0;
  if (!hp && !hpi)
    return;
  const char *kind = hp ? "hetprobe" : "hetprobe_i";
  hcc_sched_hint_t h = {line, hp ? HCC_HINT_HETPROBE : HCC_HINT_HETPROBE_I, 0};
  p = skip_space(s, p, end);
  if (p < end && c[p] == ',') {
    p = skip_space(s, p + 1, end);
    size_t npos = p;
    while (p < end && (is_ident(c[p]) || c[p] == '.' || c[p] == '-'))
      ++p;
    unsigned long v = 0;
    int ok = p > npos;
    for (size_t i = npos; ok && i < p; i++) {
      ok = c[i] >= '0' && c[i] <= '9';
      if (v <= 1000)
        v = v * 10 + (unsigned long)(c[i] - '0');
    }
    if (!ok || v < 1 || v > 100) {
      error(s, npos,
            "invalid percentage '%.*s' in schedule(%s, ...): it must "
            "be an integer from 1 to 100 (%s)",
            (int)(p - npos), c + npos, kind,
            hp ? "the share of iterations probed" : "how often to re-probe");
      return;
    }
    h.percent = (int)v;
    p = skip_space(s, p, end);
  }
  if (p >= end || c[p] != ')') {
    error(s, p,
          "expected ')' in schedule(%s[, percent]): hcc accepts only an "
          "integer percentage here",
          kind);
    return;
  }
  /* Replace, keeping every line splice so the line count is unchanged. */
  copy_to(s, pos);
  buf_add(&s->out, "schedule(runtime)", 17);
  for (size_t i = pos; i <= p; i++)
    if (c[i] == '\n')
      buf_add(&s->out, " \\\n", 3);
  s->copied = p + 1;
  add_hint(s, h);
}

/* After "omp" at p: the end of a `for`, `for simd`, `parallel for` or
 * `parallel for simd` directive name, or 0 for any other directive
 * (`target ... for`, `distribute ... for`, `taskloop`, ...: not ours to
 * change). *orphan says it is a `for` without `parallel`. */
static size_t loop_name_end(const scanner_t *s, size_t p, size_t end,
                            int *orphan) {
  size_t q = skip_space(s, p, end), w = ident_end(s, q, end);
  *orphan = 1;
  if (w - q == 8 && memcmp(s->src + q, "parallel", 8) == 0) {
    *orphan = 0;
    q = skip_space(s, w, end), w = ident_end(s, q, end);
  }
  if (w - q != 3 || memcmp(s->src + q, "for", 3) != 0)
    return 0;
  size_t name_end = w;
  q = skip_space(s, w, end), w = ident_end(s, q, end);
  if (w - q == 4 && memcmp(s->src + q, "simd", 4) == 0)
    name_end = w;
  return name_end;
}

static void scan_directive(scanner_t *s, size_t begin, size_t end,
                           unsigned line) {
  size_t p = skip_space(s, begin, end);
  /* "omp" as the first word of the pragma body */
  if (p + 3 > end || memcmp(s->src + p, "omp", 3) != 0 ||
      (p + 3 < end && is_ident(s->src[p + 3])))
    return;
  p += 3;
  s->ndirectives++;
  /* A worksharing loop without a schedule clause gets the
   * implementation's schedule, except where another construct's meaning
   * depends on the static one: ordered and scan loops, and (with nowait
   * anywhere in the file) orphaned loops, which a nowait may chain to a
   * loop assuming the same iteration-to-thread mapping. */
  int orphan = 0;
  size_t name_end = s->defaults ? loop_name_end(s, p, end, &orphan) : 0;
  if (name_end) {
    int keep = orphan && s->file_nowait;
    for (size_t q = name_end; !keep && q < end; ++q)
      keep = word_at(s, q, end, "schedule") || word_at(s, q, end, "ordered") ||
             word_at(s, q, end, "order") || word_at(s, q, end, "inscan") ||
             word_at(s, q, end, "nowait");
    if (!keep) {
      copy_to(s, name_end);
      buf_addf(&s->out, " schedule(dynamic, %d)", HCC_DEFAULT_SCHED_CHUNK);
      s->ndefault++;
      return;
    }
  }
  for (; p < end; ++p)
    if (word_at(s, p, end, "schedule"))
      rewrite_clause(s, p, end, line);
}

static int run(scanner_t *s) {
  const char *c = s->src;
  int line_start = 1;

  for (size_t p = 0; p < s->len;) {
    char ch = c[p];
    size_t e = skip_comment(s, p);
    if (e != p) {
      p = e; /* a comment does not end the "only blanks so far" state */
      continue;
    }
    if (ch == '"' || ch == '\'') { /* "_Pragma" in a literal is text */
      for (++p; p < s->len && c[p] != ch && c[p] != '\n'; ++p)
        if (c[p] == '\\')
          ++p;
      ++p;
      line_start = 0;
      continue;
    }
    if (ch == '\n') {
      line_start = 1;
      ++p;
      continue;
    }
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f') {
      ++p;
      continue;
    }
    if (ch == '#' && line_start) {
      size_t end = end_of_logical_line(s, p);
      size_t q = skip_space(s, p + 1, end);
      if (q + 6 <= end && memcmp(c + q, "pragma", 6) == 0 &&
          !is_ident(at(s, q + 6))) {
        scan_directive(s, q + 6, end, line_of(s, p));
        p = end;
        continue;
      }
      /* other directives (#define PFOR _Pragma("omp ...")) scan on */
    }
    if (ch == '_' && p + 7 <= s->len && memcmp(c + p, "_Pragma", 7) == 0 &&
        (p == 0 || !is_ident(c[p - 1]))) {
      size_t q = p + 7;
      while (q < s->len && isspace((unsigned char)c[q]))
        ++q;
      if (q < s->len && c[q] == '(') {
        const char *open = memchr(c + q, '"', s->len - q);
        const char *close =
            open ? memchr(open + 1, '"', (size_t)(c + s->len - open - 1))
                 : NULL;
        if (close)
          scan_directive(s, (size_t)(open + 1 - c), (size_t)(close - c),
                         line_of(s, p));
        p = close ? (size_t)(close - c) + 1 : s->len;
        line_start = 0;
        continue;
      }
    }
    line_start = 0;
    ++p;
  }
  copy_to(s, s->len);
  return s->failed ? -1 : 0;
}

int hcc_mentions_word(const char *src, size_t len, const char *w) {
  size_t n = strlen(w);
  for (const char *p = src; (p = memchr(p, w[0], (size_t)(src + len - p))); p++)
    if ((size_t)(src + len - p) >= n && memcmp(p, w, n) == 0 &&
        (p == src || !is_ident(p[-1])) &&
        ((size_t)(src + len - p) == n || !is_ident(p[n])))
      return 1;
  return 0;
}

int hcc_scan_pragmas(const char *src, size_t len, const char *file,
                     int default_loops, hcc_scan_t *res) {
  scanner_t s = {0};

  s.src = src, s.len = len, s.file = file;
  s.defaults = default_loops;
  s.file_nowait = default_loops == HCC_SCAN_DEFAULTS_NOWAIT ||
                  (default_loops && hcc_mentions_word(src, len, "nowait"));
  buf_add(&s.out, "", 0);
  int rc = run(&s);
  *res = (hcc_scan_t){s.out.p,    s.out.n,       s.hints, s.nhints,
                      s.ndefault, s.ndirectives, s.errs.p};
  return rc;
}

void hcc_scan_free(hcc_scan_t *res) {
  free(res->out);
  free(res->hints);
  free(res->errors);
  *res = (hcc_scan_t){0};
}
