/* POSIX sockets for the TCP store and the gloo backend: addresses,
 * listening, connecting with retries until a deadline, and whole-buffer
 * reads and writes bounded by a deadline; IPv4 and IPv6, as c10d's. Errors
 * are worded as c10d's socket layer words them. Deadlines are ct__dist_seconds() values. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include "listen.h"

/* getaddrinfo is POSIX.1-2001: strict C11 (-std=c11), or the older
 * _POSIX_C_SOURCE that -pthread and -fopenmp set, leave it undeclared. */
#if !defined(__cplusplus) && (!defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200112L)
struct addrinfo {
    int ai_flags, ai_family, ai_socktype, ai_protocol;
    socklen_t ai_addrlen;
    struct sockaddr *ai_addr;
    char *ai_canonname;
    struct addrinfo *ai_next;
};
extern int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints, struct addrinfo **res);
extern void freeaddrinfo(struct addrinfo *res);
extern const char *gai_strerror(int code);
#endif

/* poll's timeout for a deadline: the milliseconds left, at least 0. */
static int ct__sock_ms_left(double deadline)
{
    double left = deadline - ct__dist_seconds();
    return left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1e3) + 1;
}

static void ct__sock_sleep_ms(int ms) { poll(NULL, 0, ms); }

static void ct__sock_no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* A socket listening on every interface at *port (0: a free port, written
 * back), or -1 with c10d's error for its two tries ([::], then 0.0.0.0):
 * listen.h's ct__sock_listen_any. */
static int ct__sock_listen(int *port, int backlog)
{
    int err6, err4, fd = ct__sock_listen_any(port, backlog, &err6, &err4);
    if (fd >= 0) return fd;
    ct__dist_fail(CT_ERR_RUNTIME,
                  "The server socket has failed to listen on any local network address. The server socket has failed "
                  "to bind to [::]:%d (errno: %d - %s). The server socket has failed to bind to 0.0.0.0:%d (errno: %d - %s).",
                  *port, err6, strerror(err6), *port, err4, strerror(err4));
    return -1;
}

/* A connection to one of the addresses host (a name, an IPv4 or an IPv6
 * address) resolves to now, tried in getaddrinfo's order; -1 when there is
 * none (not yet resolvable, or nobody listening). */
static int ct__sock_try_connect(const char *host, int port)
{
    struct addrinfo hints, *found = NULL;
    char service[16];
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &found) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) close(fd), fd = -1;
    }
    freeaddrinfo(found);
    return fd;
}

/* Connects to host:port, retrying while the name does not resolve or nobody
 * listens there yet, until `timeout` seconds passed: the fd, or -1 with
 * c10d's client timeout message. */
static int ct__sock_connect(const char *host, int port, double timeout)
{
    double deadline = ct__dist_seconds() + timeout;
    for (;;) {
        int fd = ct__sock_try_connect(host, port);
        if (fd >= 0) {
            ct__sock_no_delay(fd);
            return fd;
        }
        if (ct__dist_seconds() >= deadline) break;
        ct__sock_sleep_ms(ct__sock_ms_left(deadline) < 100 ? ct__sock_ms_left(deadline) : 100);
    }
    ct__dist_fail(CT_ERR_RUNTIME, "The client socket has timed out after %gs while trying to connect to (%s, %d).",
                  timeout, host, port);
    return -1;
}

/* a's IP address as text ("127.0.0.1", "::1"); an IPv4 client of an IPv6
 * socket (::ffff:127.0.0.1) as the IPv4 address it is. Its port, when
 * port is given. */
static void ct__sock_ip(const struct sockaddr *a, char *ip, size_t cap, int *port)
{
    snprintf(ip, cap, "?");
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *a4 = (const struct sockaddr_in *)a;
        inet_ntop(AF_INET, &a4->sin_addr, ip, (socklen_t)cap);
        if (port) *port = ntohs(a4->sin_port);
    } else if (a->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)a;
        if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
            inet_ntop(AF_INET, a6->sin6_addr.s6_addr + 12, ip, (socklen_t)cap);
        else
            inet_ntop(AF_INET6, &a6->sin6_addr, ip, (socklen_t)cap);
        if (port) *port = ntohs(a6->sin6_port);
    }
}

/* The IP address of fd's own end: "?" when the socket cannot tell. */
static void ct__sock_local_ip(int fd, char *ip, size_t cap)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    ct__sock_ip((const struct sockaddr *)&a, ip, cap, NULL);
}

/* fd's peer as gloo names it in its errors: "[127.0.0.1]:41234", "[::1]:41234". */
static void ct__sock_peer_name(int fd, char *out, size_t cap)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof a;
    char ip[INET6_ADDRSTRLEN];
    int port = 0;
    memset(&a, 0, sizeof a);
    getpeername(fd, (struct sockaddr *)&a, &len);
    ct__sock_ip((const struct sockaddr *)&a, ip, sizeof ip, &port);
    snprintf(out, cap, "[%s]:%d", ip, port);
}

/* Waits until fd is ready for `events` or the deadline passed. */
static ct_result ct__sock_ready(int fd, short events, double deadline)
{
    struct pollfd p;
    p.fd = fd, p.events = events, p.revents = 0;
    int rc;
    while ((rc = poll(&p, 1, ct__sock_ms_left(deadline))) < 0 && errno == EINTR) {}
    if (rc == 0) return ct__dist_fail(CT_ERR_RUNTIME, "Socket Timeout");
    return CT_OK;
}

static ct_result ct__sock_io_error(int err)
{
    if (err == 0) return ct__dist_fail(CT_ERR_RUNTIME, "Connection closed by peer");
    return ct__dist_fail(CT_ERR_RUNTIME, "Socket error %d: %s", err, strerror(err));
}

static ct_result ct__sock_send_all(int fd, const void *buf, size_t n, double deadline)
{
    const char *p = (const char *)buf;
    while (n > 0) {
        if (ct__sock_ready(fd, POLLOUT, deadline) != CT_OK) return CT_ERR_RUNTIME;
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return ct__sock_io_error(errno);
        p += k, n -= (size_t)k;
    }
    return CT_OK;
}

static ct_result ct__sock_recv_all(int fd, void *buf, size_t n, double deadline)
{
    char *p = (char *)buf;
    while (n > 0) {
        if (ct__sock_ready(fd, POLLIN, deadline) != CT_OK) return CT_ERR_RUNTIME;
        ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (k <= 0) return ct__sock_io_error(k == 0 ? 0 : errno);
        p += k, n -= (size_t)k;
    }
    return CT_OK;
}
