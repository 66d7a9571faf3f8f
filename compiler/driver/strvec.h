/* strvec: a growable NULL-terminated argv, the driver's one data structure.
 * Allocation failure is fatal (a compiler driver cannot do anything useful
 * without memory), so callers never check. */
#ifndef HCC_STRVEC_H
#define HCC_STRVEC_H

#include <stddef.h>

typedef struct strvec {
  char **v; /* always NULL-terminated */
  size_t n;
  size_t cap;
} strvec_t;

void strvec_init(strvec_t *sv);
void strvec_free(strvec_t *sv);
void strvec_push(strvec_t *sv, const char *s);
void strvec_pushf(strvec_t *sv, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void strvec_append(strvec_t *sv, const strvec_t *other);
/* Pushes each whitespace-separated word of `words` (configure-time flag
 * lists such as the MPI link flags). */
void strvec_push_words(strvec_t *sv, const char *words);

char *hcc_strdup(const char *s);
char *hcc_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void *hcc_xrealloc(void *p, size_t size);

#endif
