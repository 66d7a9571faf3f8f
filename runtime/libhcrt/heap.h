/*
 * heap.h - where the program's heap memory comes from (internal).
 *
 * One node (and HCRT_CLUSTER=0): the C library. In a cluster job: before
 * main, the arena (arena.c), shared at start-up; from start-up on, the DSM
 * heap. heap.c serves the calls the pass renames (__hcrt_malloc & co.);
 * interpose.c (libhcrt.so only) serves the program's other allocations:
 * the C++ library's, the Fortran runtime's, the C library's on the
 * program's behalf (strdup, getline, ...), code not built by hcc.
 */
#ifndef HCRT_HEAP_H
#define HCRT_HEAP_H

#include <mpi.h>
#include <stddef.h>

enum { HCRT_HEAP_LIBC = 0, HCRT_HEAP_ARENA = 1, HCRT_HEAP_DSM = 2 };
/* The heap of the program's memory now (HCRT_HEAP_*). */
extern int hcrt__heap_mode;
/* Non-zero once a pointer may be the arena's or the DSM's (free checks). */
extern int hcrt__heap_any;

/* The program's memory of the moment; align 0: malloc's. */
void *hcrt__heap_alloc(size_t size, size_t align, int zero);
/* Any pointer: the DSM's, the arena's (kept) or the C library's. */
void hcrt__heap_free(void *p);
/* realloc of any pointer; a block of another heap moves to the heap of
 * the moment. */
void *hcrt__heap_realloc(void *p, size_t size);
/* Usable size of a block of the DSM or the arena; 0 for others. */
size_t hcrt__heap_usable(void *p);
/* Whether p is a block of the DSM heap or the arena. */
int hcrt__heap_owned(const void *p);
/* The file of the object (the executable, a preloaded library) that
 * defines the process's malloc family instead of libhcrt or the C library,
 * and in *name the function; NULL when the allocator is ours. Such a
 * process cannot run in cluster mode (heap.c says why). */
const char *hcrt__heap_foreign_allocator(const char **name);
/* Start-up, every rank: the DSM heap from now on (cluster), else libc. */
void hcrt__heap_started(int cluster);
/* In a child forked in cluster mode (threads.c): the C library's heap;
 * the DSM's blocks stay the parent's. */
void hcrt__heap_fork_child(void);
/* The DSM shuts down (cluster.c): later allocations (destructors of
 * globals, exit handlers) come from the C library; DSM blocks are then
 * never freed, and realloc copies them (the range stays mapped). */
void hcrt__heap_shutdown(void);

/* arena.c */
int hcrt__arena_open(void);
int hcrt__arena_contains(const void *p);
void *hcrt__arena_alloc(size_t size, size_t align);
size_t hcrt__arena_usable(const void *p);
void hcrt__arena_share(MPI_Comm comm);

#endif /* HCRT_HEAP_H */
