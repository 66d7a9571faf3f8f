/*
 * route.c - addressing of peers outside MPI (route.h).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/route.h"

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ULL;
    return h;
}

/* Same boot id and network namespace: 127.0.0.1 reaches the peer. */
static uint64_t host_key(void)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    char id[64] = {0};
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = read(fd, id, sizeof id - 1);
        close(fd);
        if (n > 0)
            h = fnv(id, (size_t)n, h);
    }
    struct stat st;
    if (stat("/proc/self/ns/net", &st) == 0) {
        h = fnv(&st.st_dev, sizeof st.st_dev, h);
        h = fnv(&st.st_ino, sizeof st.st_ino, h);
    }
    return h;
}

static void local_addrs(hcrt_route_rec_t *r)
{
    struct ifaddrs *ifa = NULL;
    r->naddr = 0;
    if (getifaddrs(&ifa) != 0)
        return;
    for (struct ifaddrs *i = ifa; i && r->naddr < HCRT_ROUTE_ADDRS;
         i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            !i->ifa_netmask || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        r->addr[r->naddr] =
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        r->mask[r->naddr] =
            ((struct sockaddr_in *)i->ifa_netmask)->sin_addr.s_addr;
        r->naddr++;
    }
    freeifaddrs(ifa);
}

void hcrt__route_self(hcrt_route_rec_t *r, uint16_t port)
{
    memset(r, 0, sizeof *r);
    r->port = port;
    r->host = host_key();
    local_addrs(r);
}

int hcrt__route_same_host(const hcrt_route_rec_t *a, const hcrt_route_rec_t *b)
{
    return a->host == b->host;
}

uint32_t hcrt__route_to(const hcrt_route_rec_t *me,
                        const hcrt_route_rec_t *peer)
{
    if (me->host == peer->host)
        return htonl(INADDR_LOOPBACK);
    for (int j = 0; j < peer->naddr; j++)
        for (int i = 0; i < me->naddr; i++)
            if ((peer->addr[j] & me->mask[i]) == (me->addr[i] & me->mask[i]))
                return peer->addr[j];
    return 0;
}
