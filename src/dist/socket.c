/* POSIX sockets for the TCP store and the gloo backend: addresses,
 * listening, connecting with retries until a deadline, and whole-buffer
 * reads and writes bounded by a deadline. IPv4 only. Errors are worded as
 * c10d's socket layer words them. Deadlines are ct__dist_seconds() values. */
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

/* host (a name or a dotted address) and port as an IPv4 address. */
static ct_result ct__sock_resolve(const char *host, int port, struct sockaddr_in *out)
{
    struct addrinfo hints, *found = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, NULL, &hints, &found);
    if (rc != 0 || !found)
        return ct__dist_fail(CT_ERR_RUNTIME, "The IPv4 network addresses of (%s, %d) cannot be retrieved (gai error: %d - %s).",
                             host, port, rc, gai_strerror(rc));
    memcpy(out, found->ai_addr, sizeof *out);
    out->sin_port = htons((uint16_t)port);
    freeaddrinfo(found);
    return CT_OK;
}

static void ct__sock_no_delay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* A socket listening on every interface at *port (0: a free port, written
 * back), or -1 with an error. */
static int ct__sock_listen(int *port, int backlog)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    a.sin_port = htons((uint16_t)*port);
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, backlog) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        int err = errno;
        if (fd >= 0) close(fd);
        ct__dist_fail(CT_ERR_RUNTIME,
                      "The server socket has failed to listen on any local network address. The server socket has "
                      "failed to bind to 0.0.0.0:%d (errno: %d - %s).",
                      *port, err, strerror(err));
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* Connects to a, retrying while nobody listens there yet, until `timeout`
 * seconds passed: the fd, or -1 with c10d's client timeout message. */
static int ct__sock_connect(const struct sockaddr_in *a, const char *host, int port, double timeout)
{
    double deadline = ct__dist_seconds() + timeout;
    for (;;) {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (const struct sockaddr *)a, sizeof *a) == 0) {
            ct__sock_no_delay(fd);
            return fd;
        }
        if (fd >= 0) close(fd);
        if (ct__dist_seconds() >= deadline) break;
        ct__sock_sleep_ms(ct__sock_ms_left(deadline) < 100 ? ct__sock_ms_left(deadline) : 100);
    }
    ct__dist_fail(CT_ERR_RUNTIME, "The client socket has timed out after %gs while trying to connect to (%s, %d).",
                  timeout, host, port);
    return -1;
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
