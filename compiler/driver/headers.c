/* The user headers a source may include, for the driver's one question:
 * must hcc-s2s see this source for its headers' sake? hcc-s2s finds the
 * headers exactly, through clang's preprocessor, but starting it costs
 * more than most compiles; this walk finds a superset cheaply. It follows
 * every #include of every #if branch into every candidate directory
 * clang could pick (the includer's directory, -iquote, -I, CPATH), skips
 * anything under /usr (system headers), and gives up -- "run s2s" -- where
 * it cannot follow (#include MACRO, flags that change the search). */
#include "driver.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 4096 /* beyond: not worth walking, run s2s */

typedef struct walk {
  strvec_t quote, angled; /* user search directories, in order */
  strvec_t forced;        /* -include / -imacros files */
  dev_t *dev;             /* files seen, by identity */
  ino_t *ino;
  size_t nseen;
  hcc_header_fn fn;
  void *arg;
  int found;  /* fn said yes for some header */
  int unsure; /* the walk cannot follow everything clang would */
} walk_t;

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Flags whose effect on the search this walk does not model. */
static int changes_search(const char *a) {
  static const char *const flags[] = {
      "-I-",       "-iwithprefixbefore", "-ivfsoverlay",  "-working-directory",
      "-fmodules", "-fmodule-map-file",  "-fmodule-file", "-include-pch",
      NULL};
  for (const char *const *f = flags; *f; f++)
    if (starts(a, *f))
      return 1;
  return 0;
}

/* The value of `flag` at args[*i] ("-Ifoo", "-I foo", "--flag=foo"), or
 * NULL when args[*i] is another flag. */
static const char *value_of(const strvec_t *args, size_t *i, const char *flag) {
  const char *a = args->v[*i];
  size_t n = strlen(flag);
  if (strncmp(a, flag, n) != 0)
    return NULL;
  if (a[n] == '\0')
    return *i + 1 < args->n ? args->v[++*i] : NULL;
  if (flag[1] == '-')
    return a[n] == '=' ? a + n + 1 : NULL;
  return a + n;
}

/* System search directories (never the user's headers): only their
 * separate values must be skipped. */
static int system_dir_flag(const char *a) {
  static const char *const flags[] = {
      "-isystem",  "-idirafter",  "-iprefix",     "-iwithprefix",
      "-isysroot", "-iframework", "-cxx-isystem", "-isystem-after",
      "--sysroot", NULL};
  for (const char *const *f = flags; *f; f++)
    if (strcmp(a, *f) == 0)
      return 1;
  return 0;
}

static void parse_args(walk_t *w, const strvec_t *args) {
  for (size_t i = 0; i < args->n; i++) {
    const char *a = args->v[i], *v;
    if (strcmp(a, "-Xclang") == 0 || strcmp(a, "-Xpreprocessor") == 0) {
      const char *x = i + 1 < args->n ? args->v[++i] : "";
      w->unsure |= changes_search(x) || starts(x, "-I") ||
                   starts(x, "-iquote") || starts(x, "-include") ||
                   starts(x, "-imacros");
    } else if (changes_search(a)) {
      w->unsure = 1;
    } else if (system_dir_flag(a)) {
      i++;
    } else if ((v = value_of(args, &i, "-iquote"))) {
      strvec_push(&w->quote, v);
    } else if ((v = value_of(args, &i, "--include-directory"))) {
      strvec_push(&w->angled, v);
    } else if ((v = value_of(args, &i, "-include")) ||
               (v = value_of(args, &i, "-imacros"))) {
      strvec_push(&w->forced, v);
    } else if ((v = value_of(args, &i, "-I"))) {
      strvec_push(&w->angled, v);
    }
  }
  /* CPATH: like -I, after them; an empty entry is the current directory. */
  const char *cpath = getenv("CPATH");
  while (cpath && *cpath) {
    size_t n = strcspn(cpath, ":");
    char *dir = n ? hcc_asprintf("%.*s", (int)n, cpath) : hcc_strdup(".");
    strvec_push(&w->angled, dir);
    free(dir);
    cpath += n + (cpath[n] == ':');
  }
}

/* Installed software, not the user's: system headers for hcc. */
static int under_usr(const char *path) {
  char *real = realpath(path, NULL);
  int usr = starts(path, "/usr/") || (real && starts(real, "/usr/"));
  free(real);
  return usr;
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 14, n;
  char *buf = hcc_xrealloc(NULL, cap + 1);
  *len = 0;
  while ((n = fread(buf + *len, 1, cap - *len, f)) > 0)
    if ((*len += n) == cap)
      buf = hcc_xrealloc(buf, (cap *= 2) + 1);
  fclose(f);
  buf[*len] = '\0';
  return buf;
}

static void follow(walk_t *w, const char *path, const char *text, size_t len);

/* A candidate for an #include: walk it if it is a user file not seen. */
static void try_file(walk_t *w, const char *dir, const char *name, int nlen) {
  if (w->found || w->unsure)
    return;
  char *path = dir && *dir && name[0] != '/'
                   ? hcc_asprintf("%s/%.*s", dir, nlen, name)
                   : hcc_asprintf("%.*s", nlen, name);
  struct stat st;
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !under_usr(path)) {
    size_t i = 0;
    while (i < w->nseen && (w->dev[i] != st.st_dev || w->ino[i] != st.st_ino))
      i++;
    if (i == w->nseen && w->nseen == MAX_FILES) {
      w->unsure = 1;
    } else if (i == w->nseen) {
      w->dev = hcc_xrealloc(w->dev, (w->nseen + 1) * sizeof(*w->dev));
      w->ino = hcc_xrealloc(w->ino, (w->nseen + 1) * sizeof(*w->ino));
      w->dev[w->nseen] = st.st_dev, w->ino[w->nseen++] = st.st_ino;
      size_t len = 0;
      char *text = read_all(path, &len);
      if (!text)
        w->unsure = 1;
      else if (w->fn(path, text, len, w->arg))
        w->found = 1;
      else
        follow(w, path, text, len);
      free(text);
    }
  }
  free(path);
}

/* Every place clang might find `name` included from the file `from`. */
static void resolve(walk_t *w, const char *from, const char *name, int nlen,
                    int quoted) {
  if (name[0] == '/') {
    try_file(w, NULL, name, nlen);
    return;
  }
  if (quoted) {
    const char *slash = strrchr(from, '/');
    char *dir = slash ? hcc_asprintf("%.*s", (int)(slash - from), from)
                      : hcc_strdup(".");
    try_file(w, dir, name, nlen);
    free(dir);
    for (size_t i = 0; i < w->quote.n; i++)
      try_file(w, w->quote.v[i], name, nlen);
  }
  for (size_t i = 0; i < w->angled.n; i++)
    try_file(w, w->angled.v[i], name, nlen);
}

static size_t skip_blank(const char *t, size_t p, size_t len) {
  while (p < len && (t[p] == ' ' || t[p] == '\t'))
    p++;
  return p;
}

/* Follows the #include / #include_next / #import lines of one file. */
static void follow(walk_t *w, const char *path, const char *text, size_t len) {
  for (size_t p = 0; p < len && !w->found && !w->unsure;) {
    size_t q = skip_blank(text, p, len), e = q;
    if (q < len && text[q] == '#') {
      q = skip_blank(text, q + 1, len);
      size_t id = q;
      while (q < len && (text[q] == '_' || (text[q] >= 'a' && text[q] <= 'z')))
        q++;
      int inc = (q - id == 7 && memcmp(text + id, "include", 7) == 0) ||
                (q - id == 12 && memcmp(text + id, "include_next", 12) == 0) ||
                (q - id == 6 && memcmp(text + id, "import", 6) == 0);
      if (inc) {
        q = skip_blank(text, q, len);
        char close = q < len && text[q] == '"'   ? '"'
                     : q < len && text[q] == '<' ? '>'
                                                 : 0;
        const char *end =
            close ? memchr(text + q + 1, close, len - q - 1) : NULL;
        const char *nl = memchr(text + q, '\n', len - q);
        if (!end || (nl && end > nl))
          w->unsure = 1; /* #include MACRO: only clang can follow it */
        else
          resolve(w, path, text + q + 1, (int)(end - text - q - 1),
                  close == '"');
      }
      e = q;
    }
    const char *nl = memchr(text + e, '\n', len - e);
    p = nl ? (size_t)(nl - text) + 1 : len;
  }
}

int hcc_headers_walk(const strvec_t *compile_args, const char *path,
                     const char *text, size_t len, hcc_header_fn fn,
                     void *arg) {
  walk_t w = {0};
  strvec_init(&w.quote);
  strvec_init(&w.angled);
  strvec_init(&w.forced);
  w.fn = fn, w.arg = arg;
  parse_args(&w, compile_args);
  /* The main file is the caller's to judge: only its includes are walked
   * (and it is not walked again if a header includes it). */
  struct stat st;
  if (stat(path, &st) == 0) {
    w.dev = hcc_xrealloc(NULL, sizeof(*w.dev));
    w.ino = hcc_xrealloc(NULL, sizeof(*w.ino));
    w.dev[0] = st.st_dev, w.ino[0] = st.st_ino, w.nseen = 1;
  }
  /* -include files: clang looks in the working directory first. */
  for (size_t i = 0; i < w.forced.n && !w.found && !w.unsure; i++) {
    const char *f = w.forced.v[i];
    try_file(&w, ".", f, (int)strlen(f));
    resolve(&w, path, f, (int)strlen(f), 1);
  }
  if (!w.found && !w.unsure)
    follow(&w, path, text, len);
  int need = w.found || w.unsure;
  strvec_free(&w.quote);
  strvec_free(&w.angled);
  strvec_free(&w.forced);
  free(w.dev);
  free(w.ino);
  return need;
}
