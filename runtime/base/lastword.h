/*
 * lastword.h - a rank's last words to the fault detector (internal).
 *
 * A rank that crashes (a segfault the DSM's handler reports, a fatal
 * runtime error) tells the detector's root why, in one UDP datagram,
 * before it dies: the root then names the cause in its report instead of
 * only "the process is gone" (MPFL's log probe). Async-signal-safe; does
 * nothing until the detector set the destinations (libhcrt/fault).
 */
#ifndef HCRT_LASTWORD_H
#define HCRT_LASTWORD_H

#include <netinet/in.h>
#include <stddef.h>

typedef enum hcrt_lastword_kind {
    HCRT_LASTWORD_CRASH = 1, /* the rank dies of this (a signal, ...) */
    HCRT_LASTWORD_END = 2    /* the rank ends the job itself, with a message */
} hcrt_lastword_kind_t;

/* Where last words go: socket fd, up to 4 destinations, and the header
 * bytes (at most 64) every datagram starts with. */
void hcrt__lastword_setup(int fd, const struct sockaddr_in *to, int nto,
                          const void *hdr, size_t hdr_len);
void hcrt__lastword_off(void);
/* Sends [header][kind byte][text, NUL-terminated] to every destination. */
void hcrt__lastword(hcrt_lastword_kind_t kind, const char *text);

#endif /* HCRT_LASTWORD_H */
