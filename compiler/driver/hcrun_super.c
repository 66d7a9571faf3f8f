/* hcrun_super.c: hcrun runs mpirun as a child and watches it.
 *
 * The runtime's fault detector ends a job after a failure by making every
 * surviving rank exit (docs/faults.md). mpirun usually ends at once; but
 * when a node was cut off, mpirun waits for that node's daemon, which it
 * can no longer reach, and it would hang. So hcrun opens a UDP socket,
 * tells the ranks where it is (HCRT_FAULT_LAUNCHER), and when the
 * detector's root says "the job ends" it gives mpirun a grace period,
 * then stops it (SIGTERM, again, then SIGKILL). */
#include "hcrun.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t child = -1;

static void forward(int sig) {
  if (child > 0)
    kill(child, sig);
}

/* Every IPv4 address of this machine (the ranks pick one they reach),
 * then the port: "a,b,c:port". */
static char *launcher_spec(unsigned short port) {
  struct ifaddrs *ifa = NULL;
  char *s = hcc_strdup("");
  if (getifaddrs(&ifa) == 0) {
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
          !(i->ifa_flags & IFF_UP))
        continue;
      char a[INET_ADDRSTRLEN];
      inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a,
                sizeof a);
      char *t = hcc_asprintf("%s%s%s", s, *s ? "," : "", a);
      free(s);
      s = t;
    }
    freeifaddrs(ifa);
  }
  char *t = hcc_asprintf("%s:%u", *s ? s : "127.0.0.1", port);
  free(s);
  return t;
}

int hcrun_launcher_socket(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET};
  socklen_t al = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
      getsockname(fd, (struct sockaddr *)&a, &al) != 0) {
    if (fd >= 0)
      close(fd);
    return -1; /* the ranks still end; only a hung mpirun is not stopped */
  }
  char *spec = launcher_spec(ntohs(a.sin_port));
  setenv("HCRT_FAULT_LAUNCHER", spec, 1);
  free(spec);
  return fd;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* FT mode: when the head last said it is alive after a loss (0: no loss). */
static double head_alive;
#define HEAD_SILENT_S 10.0

/* "HCRT-FAULT-END <status> <rank>": the status, or -1. "HCRT-FT-DONE
 * <status> <rank>" (FT mode: the head finished after losing a rank, and
 * mpirun may wait for a lost node's daemon): *done gets the status. */
static int read_end(int fd, int *done) {
  char buf[128];
  int status = -1;
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf - 1, MSG_DONTWAIT)) > 0) {
    buf[n] = 0;
    int st, rank;
    if (sscanf(buf, "HCRT-FAULT-END %d %d", &st, &rank) == 2 && st > 0 &&
        st < 256)
      status = st;
    else if (sscanf(buf, "HCRT-FT-DONE %d %d", &st, &rank) == 2 && st >= 0 &&
             st < 256 && *done < 0)
      *done = st;
    else if (!strncmp(buf, "HCRT-FT-ALIVE", 13) ||
             !strncmp(buf, "HCRT-FT-LOST", 12))
      head_alive = now_s();
  }
  return status;
}

static int exit_status(int wstatus) {
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return WEXITSTATUS(wstatus);
}

/* After the fault report: SIGTERM at the grace's end, SIGTERM again 1 s
 * later (Open MPI's "forcibly terminate"), SIGKILL 1 s after that. */
static int fault_seen;
static void stop_step(double since, double grace, int *step) {
  static const int sigs[] = {SIGTERM, SIGTERM, SIGKILL};
  double at = grace + 1.0 * *step;
  if (*step >= 3 || now_s() - since < at)
    return;
  if (*step == 0)
    fprintf(stderr,
            "hcrun: the runtime %s, but mpirun did not exit within %.0f s (it "
            "waits for a node it cannot reach); stopping it\n",
            fault_seen ? "reported a fault and ended the job"
                       : "finished without a lost rank (FT mode)",
            grace);
  kill(child, sigs[*step]);
  (*step)++;
}

int hcrun_supervise(char *const argv[], int sock, double grace, int need_done) {
  fflush(NULL);
  child = fork();
  if (child < 0) {
    fprintf(stderr, "hcrun: error: cannot fork: %s\n", strerror(errno));
    return 127;
  }
  if (child == 0) {
    execv(argv[0], argv);
    fprintf(stderr, "hcrun: error: cannot run '%s': %s\n", argv[0],
            strerror(errno));
    _exit(127);
  }
  /* The terminal's ^C reaches mpirun itself; signals sent to hcrun alone
   * (a batch system's SIGTERM) are passed on. */
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  signal(SIGTERM, forward);
  signal(SIGHUP, forward);
  int fault = -1, done = -1, step = 0, wstatus = 0;
  double since = 0;
  /* A pidfd wakes the poll when mpirun ends (Linux 5.3+); without one,
   * polls every 20 ms. */
  int pidfd = -1;
#ifdef SYS_pidfd_open
  pidfd = (int)syscall(SYS_pidfd_open, child, 0);
#endif
  for (;;) {
    pid_t w = waitpid(child, &wstatus, WNOHANG);
    if (w == child)
      break;
    if (w < 0 && errno != EINTR)
      return 127;
    struct pollfd p[2] = {{sock, POLLIN, 0}, {pidfd, POLLIN, 0}};
    int was_done = done;
    if (poll(p, 2, pidfd >= 0 && fault < 0 && done < 0 ? 1000 : 20) > 0 &&
        p[0].revents && fault < 0 && (fault = read_end(sock, &done)) > 0)
      since = now_s();
    if (done >= 0 && was_done < 0 && fault < 0)
      since = now_s();
    /* FT mode after a loss: the head fell silent without finishing (mpirun
     * killed it for a cut node's daemon and waits for that daemon) */
    if (fault < 0 && done < 0 && head_alive > 0 &&
        now_s() - head_alive > HEAD_SILENT_S) {
      fprintf(stderr,
              "hcrun: the head (rank 0) went silent %.0f s after a "
              "rank was lost (FT mode) without finishing; stopping "
              "mpirun\n",
              HEAD_SILENT_S);
      fault = 70, since = now_s() - grace;
    }
    fault_seen = fault > 0;
    if (fault > 0 || done >= 0)
      stop_step(since, grace, &step);
  }
  if (pidfd >= 0)
    close(pidfd);
  int st = exit_status(wstatus);
  if (fault > 0)
    return fault; /* the runtime ended the job */
  if (need_done && done < 0 && st == 0) {
    fprintf(stderr, "hcrun: error: mpirun exited 0, but the head (rank 0) "
                    "did not finish the program: it was killed or ended "
                    "without the runtime's exit (FT mode); failing the run\n");
    return 1;
  }
  /* FT: once the head finished the program, its exit status is the job's
   * (mpirun --enable-recovery exits 0 after a lost rank, whatever the
   * program returned; and 1 when a worker was lost in the shutdown, after
   * the program's end) */
  return done >= 0 ? done : st;
}
