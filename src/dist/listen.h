/* Listening sockets as the TCP store and the gloo transport open them
 * (c10d's server socket: [::] for IPv6 and IPv4 clients alike, or 0.0.0.0
 * where there is no IPv6), and the free-port probe built on the same code,
 * so that a port it finds is one the store can bind. POSIX sockets only:
 * tools/ctorchrun.c (no ctorch inside) and tests/dist/free_port.h include
 * this file too, hence its guard. */
#ifndef CT__DIST_LISTEN_H
#define CT__DIST_LISTEN_H
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A socket listening on `family`'s wildcard address ([::] takes IPv4 too)
 * at *port (0: a free port, written back), or -1 with errno set. */
static int ct__sock_listen_on(int family, int *port, int backlog)
{
    struct sockaddr_storage a;
    socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memset(&a, 0, sizeof a);
    if (family == AF_INET6) {
        struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a;
        a6->sin6_family = AF_INET6, a6->sin6_addr = in6addr_any, a6->sin6_port = htons((uint16_t)*port);
    } else {
        struct sockaddr_in *a4 = (struct sockaddr_in *)&a;
        a4->sin_family = AF_INET, a4->sin_addr.s_addr = htonl(INADDR_ANY), a4->sin_port = htons((uint16_t)*port);
    }
    int fd = socket(family, SOCK_STREAM, 0), one = 1, zero = 0;
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    if (bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    *port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&a)->sin6_port : ((struct sockaddr_in *)&a)->sin_port);
    return fd;
}

/* A socket listening on every interface at *port (0: a free port, written
 * back): on [::], or, where that fails (no IPv6), on 0.0.0.0, as c10d's
 * server socket. -1 when both failed, their errnos in err6 and err4. */
static int ct__sock_listen_any(int *port, int backlog, int *err6, int *err4)
{
    int fd = ct__sock_listen_on(AF_INET6, port, backlog);
    *err6 = errno;
    if (fd < 0) fd = ct__sock_listen_on(AF_INET, port, backlog);
    *err4 = errno;
    return fd;
}

/* A port nobody listens on, where a store would listen (torchrun's
 * _get_socket_with_port; for ctorchrun's --standalone, and the tests): the
 * kernel's pick for a listener opened as the store's is, closed at once.
 * On [::] the pick is free for IPv6 and IPv4 alike, so the store's bind
 * cannot fail for an IPv4-only or IPv6-only listener holding it. 0 when
 * none. */
static inline int ct__sock_free_port(void)
{
    int port = 0, err6, err4, fd = ct__sock_listen_any(&port, 1, &err6, &err4);
    if (fd < 0) return 0;
    close(fd);
    return port;
}
#endif
