/* The network probes of the distributed tests: a port nobody listens on,
 * for a test's own rendezvous (src/dist/listen.h's probe: free where the
 * store binds it, on [::] for IPv6 and IPv4, or on 0.0.0.0 without IPv6),
 * and whether the machine has the IPv6 loopback to test on. */
#ifndef CT_TEST_FREE_PORT_H
#define CT_TEST_FREE_PORT_H
#include "../../src/dist/listen.h"
#include <stdbool.h>

static inline int free_port(void) { return ct__sock_free_port(); }

/* Whether this machine has the IPv6 loopback (::1) to test on. */
static inline bool has_ipv6_loopback(void)
{
    struct sockaddr_in6 a;
    memset(&a, 0, sizeof a);
    a.sin6_family = AF_INET6;
    a.sin6_addr = in6addr_loopback;
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0) close(fd);
    return ok;
}
#endif
