/*
 * fd_inject.c - failure injection for tests and benchmarks
 * (HCRT_FAULT_INJECT, hcrun --inject-failure; docs/faults.md).
 *
 * "RANK@WHEN[:KIND][,...]": rank RANK fails WHEN seconds after its
 * detector started, or at the named phase (startup: right after the
 * detector is up, while the rest of start-up runs; shutdown: when the
 * runtime's exit begins). KIND:
 *   kill      SIGKILL to itself (the default)
 *   stop      SIGSTOP to itself; stop=S: a helper process sends SIGCONT
 *             S seconds later (a rank descheduled or frozen for S s)
 *   exit      _exit(0): the process ends without the exit protocol
 *   segv      a segmentation fault inside the DSM's fault handler
 *   cut       its network interfaces go down (only in a network
 *             namespace of its own, e.g. scripts/netns.sh)
 *   starve=S  its detector thread spins S seconds without serving its
 *             sockets (runnable, as a detector thread waiting for a CPU
 *             on an overloaded host) while the rest of the process goes
 *             on: not a failure
 */
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "dsm/dsm.h"
#include "libhcrt/fault/fd_int.h"

#define MAX_INJECT 4

static struct {
    double at; /* seconds, or -1 for a phase */
    char phase[16];
    char kind[8];
    double stop_s;
    int done;
} inj[MAX_INJECT];
static int ninj;

static int parse_one(const char *s, size_t len, int me)
{
    char buf[96], when[32] = "", kind[32] = "kill";
    int rank;
    snprintf(buf, sizeof buf, "%.*s", (int)len, s);
    if (sscanf(buf, "%d@%31[^:]:%31s", &rank, when, kind) < 2 || rank < 0)
        return -1;
    double stop = 0;
    char *eq = strchr(kind, '=');
    if (eq) {
        stop = atof(eq + 1);
        *eq = 0;
    }
    static const char *const kinds[] = {"kill", "stop", "exit",
                                        "segv", "cut",  "starve"};
    int ok = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        ok |= !strcmp(kind, kinds[i]);
    char *end;
    double at = strtod(when, &end);
    int phase = *end != 0;
    if (!ok || (phase && strcmp(when, "startup") && strcmp(when, "shutdown")) ||
        (!phase && at < 0) ||
        (eq && (strcmp(kind, "stop") || stop <= 0) &&
         (strcmp(kind, "starve") || stop <= 0)) ||
        (!strcmp(kind, "starve") && !eq))
        return -1;
    if (rank != me || ninj == MAX_INJECT)
        return 0;
    inj[ninj].at = phase ? -1 : at;
    snprintf(inj[ninj].phase, sizeof inj[ninj].phase, "%s", phase ? when : "");
    snprintf(inj[ninj].kind, sizeof inj[ninj].kind, "%s", kind);
    inj[ninj].stop_s = stop;
    ninj++;
    return 0;
}

void hcrt__fd_inject_init(void)
{
    const char *spec = hcrt__config_string("HCRT_FAULT_INJECT");
    for (const char *s = spec; s && *s;) {
        size_t len = strcspn(s, ",");
        if (parse_one(s, len, hcrt__fd.rank) < 0)
            hcrt_fatal(HCRT_MOD_FAULT,
                       "HCRT_FAULT_INJECT='%s' is not valid: write "
                       "RANK@SECONDS[:KIND] or RANK@startup|shutdown[:KIND], "
                       "KIND kill, stop, stop=SECONDS, exit, segv, cut or "
                       "starve=SECONDS, "
                       "several separated by commas",
                       spec);
        s += len + (s[len] == ',');
    }
}

/* Whether this rank's network has a default route (/proc/net/route):
 * then it is likely the machine's own network, shared with everything
 * else, and not a namespace made to be cut. */
static int has_default_route(void)
{
    char line[256];
    int found = 0;
    FILE *fp = fopen("/proc/net/route", "re");
    if (!fp)
        return 1;
    while (!found && fgets(line, sizeof line, fp)) {
        char ifn[64];
        unsigned long dest;
        found = sscanf(line, "%63s %lx", ifn, &dest) == 2 && dest == 0;
    }
    fclose(fp);
    return found;
}

/* cut: every interface this rank publishes goes down. Refused where the
 * rank's network has a default route: that is no test network. */
static void cut_links(void)
{
    if (has_default_route()) {
        hcrt_error(HCRT_MOD_FAULT,
                   "HCRT_FAULT_INJECT cut: this rank's network has a default "
                   "route, so it is likely this machine's own network; cut "
                   "only works in a network namespace of its own (hcrun "
                   "--netns, scripts/netns.sh); nothing was cut");
        return;
    }
    struct ifaddrs *ifa = NULL;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0 || getifaddrs(&ifa) != 0)
        return;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        struct ifreq r;
        memset(&r, 0, sizeof r);
        snprintf(r.ifr_name, sizeof r.ifr_name, "%s", i->ifa_name);
        if (ioctl(s, SIOCGIFFLAGS, &r) == 0) {
            r.ifr_flags &= ~IFF_UP;
            if (ioctl(s, SIOCSIFFLAGS, &r) != 0)
                hcrt_error(HCRT_MOD_FAULT, "cannot take %s down: %s",
                           r.ifr_name, strerror(errno));
        }
    }
    freeifaddrs(ifa);
    close(s);
}

static void stop_for(double secs)
{
    pid_t me = getpid();
    if (secs > 0 && fork() == 0) { /* only async-signal-safe calls here */
        struct timespec ts = {(time_t)secs,
                              (long)((secs - (double)(time_t)secs) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
        kill(me, SIGCONT);
        _exit(0);
    }
    kill(me, SIGSTOP);
}

static void fire(int i)
{
    inj[i].done = 1;
    hcrt_warn(HCRT_MOD_FAULT, "injecting '%s' at %.3f s (HCRT_FAULT_INJECT)",
              inj[i].kind, hcrt__fd_jobtime(hcrt__fd_now()));
    const char *k = inj[i].kind;
    if (!strcmp(k, "kill"))
        kill(getpid(), SIGKILL);
    else if (!strcmp(k, "stop"))
        stop_for(inj[i].stop_s);
    else if (!strcmp(k, "exit"))
        _exit(0);
    else if (!strcmp(k, "segv"))
        hcrt__dsm_crash_in_handler();
    else if (!strcmp(k, "cut"))
        cut_links();
    else if (!strcmp(k, "starve")) { /* fire() runs on the detector thread */
        uint64_t end = hcrt__fd_now() + (uint64_t)(inj[i].stop_s * 1e9);
        while (hcrt__fd_now() < end)
            ;
    }
}

void hcrt__fd_inject_timers(uint64_t now)
{
    double t = hcrt__fd_jobtime(now);
    for (int i = 0; i < ninj; i++)
        if (!inj[i].done && inj[i].at >= 0 && t >= inj[i].at)
            fire(i);
}

uint64_t hcrt__fd_inject_next(void)
{
    uint64_t t = UINT64_MAX;
    for (int i = 0; i < ninj; i++)
        if (!inj[i].done && inj[i].at >= 0) {
            uint64_t x = hcrt__fd_mono_at(inj[i].at);
            if (x < t)
                t = x;
        }
    return t;
}

void hcrt__fd_inject_phase(const char *phase)
{
    for (int i = 0; i < ninj; i++)
        if (!inj[i].done && inj[i].at < 0 && !strcmp(inj[i].phase, phase))
            fire(i);
}

static void *inject_alone_main(void *arg)
{
    (void)arg;
    for (uint64_t t; (t = hcrt__fd_inject_next()) != UINT64_MAX;) {
        uint64_t now = hcrt__fd_now();
        if (t > now) {
            struct timespec ts = {(time_t)((t - now) / 1000000000u),
                                  (long)((t - now) % 1000000000u)};
            nanosleep(&ts, NULL);
        }
        hcrt__fd_inject_timers(hcrt__fd_now());
    }
    return NULL;
}

void hcrt__fd_inject_alone(void)
{
    pthread_t t;
    hcrt__fd_inject_init();
    if (hcrt__fd_inject_next() != UINT64_MAX &&
        pthread_create(&t, NULL, inject_alone_main, NULL) == 0)
        pthread_detach(t);
    hcrt__fd_inject_phase("startup");
}

void hcrt__fault_started(void)
{
    atomic_store(&hcrt__fd.started, 1);
    hcrt__fd_heartbeat_now();
}

void hcrt__fault_exit_begins(void)
{
    atomic_store(&hcrt__fd.shutting, 1);
}

void hcrt__fault_program_done(int status)
{
    hcrt__fd.program_status = status & 0xff;
    atomic_store(&hcrt__fd.program_done, 1);
}

void hcrt__fault_shutdown_begins(void)
{
    atomic_store(&hcrt__fd.shutting, 1);
    if (!hcrt__fd.on) {
        hcrt__fd_inject_phase("shutdown");
        return;
    }
    hcrt__doing_set(HCRT_DOING_SHUTDOWN, NULL);
    hcrt__fd_heartbeat_now();
    hcrt__fd_inject_phase("shutdown");
}
