// Regions that read or write a stream only the head has (a FILE or a file
// descriptor the program opened) run on the head alone with the whole
// logical team (region kind LOCAL_IO, docs/compiler.md): on a worker the
// stream does not exist, and a worker thread's fprintf died with SIGSEGV.
// Each region's file is read back after it and summarised (a loop's
// helper, a plain parallel with a descriptor, tasks); the regions that only
// compute stay on every node, and so do regions that open their own stream
// (comm_name.c, helper_slice.c). run.sh checks that regions ran on every
// node, and --stats that three calls kept to the head for their streams.
// RUN: env HCC=%hcc CLANG=%clang MPIRUN='%mpirun' bash %S/Inputs/run.sh --stats "[3-9][0-9]* for streams only the head has" %s %t
#include <fcntl.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 240 };
static long a[N];

/* The number of lines of a file of numbers, and their sum. */
static int read_back(const char *path, long *sum)
{
    FILE *f = fopen(path, "r");
    long x;
    int n = 0;
    *sum = 0;
    while (f && fscanf(f, "%ld", &x) == 1)
        *sum += x, n++;
    if (f)
        fclose(f);
    return n;
}

static void summarise(const char *path, const char *what)
{
    long sum;
    int n = read_back(path, &sum);
    printf("%s: %d lines, sum %ld\n", what, n, sum);
}

/* A helper the region calls: the stream is its parameter. */
static void log_value(FILE *f, long v)
{
#pragma omp critical
    fprintf(f, "%ld\n", v);
}

int main(int argc, char **argv)
{
    char path[4096], path2[4096];
    const char *dir = argc > 1 ? argv[1] : ".";
    snprintf(path, sizeof path, "%s/local_io.%d.txt", dir, (int)getpid());
    snprintf(path2, sizeof path2, "%s/local_io.%d.fd", dir, (int)getpid());

    long s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int i = 0; i < N; i++) {
        a[i] = (long)i * 3;
        s += a[i];
    }
    printf("compute: %ld\n", s);

    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        log_value(f, a[i]);
    fclose(f);
    summarise(path, "FILE stream");

    int fd = open(path2, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
#pragma omp parallel
    {
        char line[32];
        int len = snprintf(line, sizeof line, "%d\n", omp_get_thread_num());
#pragma omp critical
        if (write(fd, line, (size_t)len) != len)
            abort();
    }
    close(fd);
    int nt = omp_get_max_threads();
    long sum;
    int n = read_back(path2, &sum);
    printf("descriptor: %s\n",
           n == nt && sum == (long)nt * (nt - 1) / 2 ? "every thread wrote"
                                                    : "lines missing");

    /* Tasks write it (their region creates them in a single). */
    FILE *t = fopen(path, "w");
    if (!t)
        return 1;
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < 40; i++) {
#pragma omp task firstprivate(i)
        {
#pragma omp critical
            fprintf(t, "%d\n", i * i);
        }
    }
    fclose(t);
    summarise(path, "tasks");

#pragma omp parallel for reduction(+ : s) schedule(static)
    for (int i = 0; i < N; i++)
        s += a[i] / 3;
    printf("after: %ld\n", s);
    remove(path);
    remove(path2);
    return 0;
}
