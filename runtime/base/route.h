/*
 * route.h - how one rank reaches another over UDP or TCP outside MPI (the
 * bells, the fault detector): each rank publishes a record of its host
 * and IPv4 interfaces, and a peer picks the address to use from it.
 *
 * A peer in the same network namespace of the same boot is reached on
 * 127.0.0.1; another on its address in a subnet of one of this rank's
 * interfaces (the cluster's network, as Open MPI's TCP path also needs).
 */
#ifndef HCRT_ROUTE_H
#define HCRT_ROUTE_H

#include <stdint.h>

#define HCRT_ROUTE_ADDRS 8

typedef struct hcrt_route_rec {
    uint64_t host; /* boot id and network namespace, hashed */
    uint32_t addr[HCRT_ROUTE_ADDRS], mask[HCRT_ROUTE_ADDRS]; /* network order */
    uint16_t port; /* network order; 0: nothing to reach */
    uint8_t naddr, pad[5];
} hcrt_route_rec_t;

/* This rank's record: host key and the addresses of its interfaces that
 * are up (not loopback), with `port` (network order). */
void hcrt__route_self(hcrt_route_rec_t *r, uint16_t port);
/* The address (network order) of `peer` that `me` can reach, or 0. */
uint32_t hcrt__route_to(const hcrt_route_rec_t *me,
                        const hcrt_route_rec_t *peer);
/* Same boot and network namespace (127.0.0.1 reaches the peer). */
int hcrt__route_same_host(const hcrt_route_rec_t *a, const hcrt_route_rec_t *b);

#endif /* HCRT_ROUTE_H */
