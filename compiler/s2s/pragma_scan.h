/*
 * pragma_scan.h - the textual pass over OpenMP pragmas, shared by hcc-s2s
 * and the hcc driver (plain C, no LLVM: the driver runs it in-process on
 * every OpenMP source, where starting hcc-s2s would cost more than the
 * compile).
 *
 * It finds `#pragma omp` lines (with backslash continuations) and
 * `_Pragma("omp ...")` operators outside comments and literals, and:
 *  - rewrites the hcc clause extensions `schedule(hetprobe[_i][, pct])`,
 *    which clang rejects, to `schedule(runtime)`, recording a hint for the
 *    AST pass of hcc-s2s to place;
 *  - optionally gives worksharing loops without a schedule clause the
 *    implementation's schedule: `schedule(dynamic, HCC_DEFAULT_SCHED_CHUNK)`,
 *    a marker libhcrt recognises (static on one node, HCRT_SCHED_DEFAULT
 *    across nodes). clang lowers a loop without a clause exactly like
 *    schedule(static), so this is the only place the difference is known.
 * No rewrite adds or removes a line.
 */
#ifndef HCC_PRAGMA_SCAN_H
#define HCC_PRAGMA_SCAN_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Must equal HCRT_SCHED_DEFAULT_CHUNK of include/hcrt/abi.h. */
#define HCC_DEFAULT_SCHED_CHUNK 2147483629

/* Values of hcrt_sched_hint_kind_t in include/hcrt/abi.h. */
enum { HCC_HINT_HETPROBE = 1, HCC_HINT_HETPROBE_I = 2 };

typedef struct hcc_sched_hint {
  unsigned line; /* line of the `#` or `_Pragma` starting the directive */
  int kind;      /* HCC_HINT_* */
  int percent;   /* 1..100, or 0 for the runtime's default */
} hcc_sched_hint_t;

typedef struct hcc_scan {
  char *out; /* the rewritten text, NUL-terminated (malloc) */
  size_t out_len;
  hcc_sched_hint_t *hints; /* malloc */
  size_t nhints;
  unsigned default_loops; /* loops given the implementation's schedule */
  unsigned directives;    /* `omp` directives seen, changed or not */
  char *errors;           /* clang-style messages naming the file, or NULL */
} hcc_scan_t;

/* Values of `default_loops` below. A translation unit is several files
 * (the main file and the user's headers): an orphaned loop in one may be
 * chained by a `nowait` in another, so the caller that sees them all says
 * whether any of them mentions nowait. */
enum {
  HCC_SCAN_NO_DEFAULTS = 0,    /* leave clause-less loops alone */
  HCC_SCAN_DEFAULTS = 1,       /* mark them; orphans kept if this file says
                                  nowait */
  HCC_SCAN_DEFAULTS_NOWAIT = 2 /* mark them; the unit says nowait somewhere:
                                  orphans kept */
};

/* Scans `src` (`len` bytes) of the file `file` (the name used in
 * messages). `default_loops` (HCC_SCAN_*) enables the second rewrite.
 * Returns 0, or -1 when the text has malformed hcc clauses (then `errors`
 * says where); the result is filled in either case and freed by
 * hcc_scan_free. */
int hcc_scan_pragmas(const char *src, size_t len, const char *file,
                     int default_loops, hcc_scan_t *res);
void hcc_scan_free(hcc_scan_t *res);

/* Whether `w` occurs in src[0, len) as a whole identifier. */
int hcc_mentions_word(const char *src, size_t len, const char *w);

#ifdef __cplusplus
}
#endif

#endif
