#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void hcc_print_command(FILE *out, char *const argv[]) {
  for (size_t i = 0; argv[i]; i++) {
    fputs(" \"", out);
    for (const char *p = argv[i]; *p; p++) {
      if (*p == '"' || *p == '\\' || *p == '$')
        fputc('\\', out);
      fputc(*p, out);
    }
    fputc('"', out);
  }
  fputc('\n', out);
  fflush(out);
}

static int is_executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *hcc_find_program(const char *name) {
  if (!name || !*name)
    return NULL;
  if (strchr(name, '/'))
    return is_executable(name) ? hcc_strdup(name) : NULL;
  const char *path = getenv("PATH");
  if (!path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *end = strchr(path, ':');
    size_t len = end ? (size_t)(end - path) : strlen(path);
    /* An empty PATH element means the current directory. */
    char *cand = len ? hcc_asprintf("%.*s/%s", (int)len, path, name)
                     : hcc_asprintf("./%s", name);
    if (is_executable(cand))
      return cand;
    free(cand);
    path += len + (end ? 1 : 0);
  }
  return NULL;
}

char *hcc_self_dir(void) {
  char buf[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (len <= 0)
    return hcc_strdup(".");
  buf[len] = '\0';
  char *slash = strrchr(buf, '/');
  if (slash)
    *slash = '\0';
  return hcc_strdup(buf);
}

static int redirect(const char *path, int fd, int flags) {
  int f = open(path, flags, 0666);
  if (f < 0) {
    fprintf(stderr, "hcc: error: cannot open '%s': %s\n", path,
            strerror(errno));
    return -1;
  }
  dup2(f, fd);
  close(f);
  return 0;
}

int hcc_run(char *const argv[], const char *stdin_path,
            const char *stdout_path) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "hcc: error: cannot fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) {
    if (stdin_path && redirect(stdin_path, 0, O_RDONLY) < 0)
      _exit(127);
    if (stdout_path &&
        redirect(stdout_path, 1, O_WRONLY | O_CREAT | O_TRUNC) < 0)
      _exit(127);
    execvp(argv[0], argv);
    fprintf(stderr, "hcc: error: cannot run '%s': %s\n", argv[0],
            strerror(errno));
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFSIGNALED(status))
    return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}
