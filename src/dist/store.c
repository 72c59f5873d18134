/* The TCP store (torch.distributed.TCPStore): a key-value store that the
 * master process serves, one thread per client connection, and that every
 * process (the master too) reaches through a client connection. It carries
 * the gloo backend's rendezvous. A request is a command byte, the key
 * (32-bit length, bytes) and a value (64-bit length, bytes); GET and WAIT
 * are answered once the key exists, so a client's wait is bounded by its
 * own socket deadline. The server's threads never set ctorch's error: a
 * client that goes away just ends its thread. */

enum { CT__STORE_SET = 1, CT__STORE_GET, CT__STORE_ADD, CT__STORE_WAIT };

typedef struct ct__store_entry {
    struct ct__store_entry *next;
    char *key, *value;
    size_t len;
} ct__store_entry;

typedef struct ct__store_server ct__store_server;

typedef struct ct__store_conn {
    struct ct__store_conn *next;
    int fd;
    pthread_t thread;
    ct__store_server *server;
} ct__store_conn;

struct ct__store_server {
    int listen_fd;
    pthread_t acceptor;
    pthread_mutex_t lock;
    pthread_cond_t changed; /* a key was set, a client joined, or the server stops */
    ct__store_entry *entries;
    ct__store_conn *conns;
    int joined;
    bool stopping;
};

struct ct_tcp_store {
    ct__store_server *server; /* the master's; NULL elsewhere */
    int fd;                   /* this process's client connection; -1 once broken */
    int port;
    double timeout;
    pthread_mutex_t lock; /* one request at a time on the connection */
};

/* ---------------------------------------------------------------- server */

static bool ct__store_read(int fd, void *buf, size_t n)
{
    for (char *p = (char *)buf; n > 0;) {
        ssize_t k = recv(fd, p, n, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

static bool ct__store_write(int fd, const void *buf, size_t n)
{
    for (const char *p = (const char *)buf; n > 0;) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        p += k, n -= (size_t)k;
    }
    return true;
}

static ct__store_entry *ct__store_find(ct__store_server *s, const char *key)
{
    for (ct__store_entry *e = s->entries; e; e = e->next)
        if (strcmp(e->key, key) == 0) return e;
    return NULL;
}

/* Sets key to value (taken over); false when out of memory. */
static bool ct__store_put(ct__store_server *s, const char *key, char *value, size_t len)
{
    ct__store_entry *e = ct__store_find(s, key);
    if (!e) {
        e = (ct__store_entry *)CT_MALLOC(sizeof *e);
        char *k = ct__dist_strdup(key);
        if (!e || !k) {
            CT_FREE(e), CT_FREE(k), CT_FREE(value);
            return false;
        }
        e->key = k, e->value = NULL, e->next = s->entries, s->entries = e;
    }
    CT_FREE(e->value);
    e->value = value, e->len = len;
    pthread_cond_broadcast(&s->changed);
    return true;
}

/* ADD: the value, a decimal number as PyTorch keeps it, grows by amount. */
static bool ct__store_add(ct__store_server *s, const char *key, int64_t amount, int64_t *sum)
{
    ct__store_entry *e = ct__store_find(s, key);
    char text[32], *copy;
    *sum = amount + (e ? strtoll(e->value, NULL, 10) : 0);
    snprintf(text, sizeof text, "%lld", (long long)*sum);
    return (copy = ct__dist_strdup(text)) && ct__store_put(s, key, copy, strlen(text));
}

/* Waits (lock held) until key exists; NULL when the server stops first. */
static ct__store_entry *ct__store_await(ct__store_server *s, const char *key)
{
    ct__store_entry *e;
    while (!(e = ct__store_find(s, key)) && !s->stopping) pthread_cond_wait(&s->changed, &s->lock);
    return e;
}

/* One request: its answer, built under the lock, sent after it. */
static bool ct__store_serve(ct__store_server *s, int fd, int cmd, const char *key, char *value, uint64_t len)
{
    char small[16], *reply = small;
    size_t n = 0;
    bool ok = true;
    pthread_mutex_lock(&s->lock);
    if (cmd == CT__STORE_SET) {
        ok = ct__store_put(s, key, value, len), value = NULL;
        small[0] = 1, n = 1;
    } else if (cmd == CT__STORE_ADD && len == sizeof(int64_t)) {
        int64_t amount, sum = 0;
        memcpy(&amount, value, sizeof amount);
        ok = ct__store_add(s, key, amount, &sum);
        memcpy(small, &sum, sizeof sum), n = sizeof sum;
    } else if (cmd == CT__STORE_GET || cmd == CT__STORE_WAIT) {
        ct__store_entry *e = ct__store_await(s, key);
        uint64_t elen = e ? e->len : 0;
        if (cmd == CT__STORE_WAIT) small[0] = 1, n = 1;
        else if (e && (reply = (char *)CT_MALLOC(sizeof elen + elen)) != NULL) {
            memcpy(reply, &elen, sizeof elen), memcpy(reply + sizeof elen, e->value, elen);
            n = sizeof elen + elen;
        }
        ok = e && reply;
    } else
        ok = false;
    pthread_mutex_unlock(&s->lock);
    CT_FREE(value);
    ok = ok && ct__store_write(fd, reply, n);
    if (reply != small) CT_FREE(reply);
    return ok;
}

static void *ct__store_conn_main(void *arg)
{
    ct__store_conn *c = (ct__store_conn *)arg;
    for (;;) {
        unsigned char cmd;
        uint32_t klen;
        uint64_t vlen;
        char *key = NULL, *value = NULL;
        bool got = ct__store_read(c->fd, &cmd, 1) && ct__store_read(c->fd, &klen, sizeof klen) && klen < (1u << 20) &&
                   (key = (char *)CT_MALLOC(klen + 1)) && ct__store_read(c->fd, key, klen) &&
                   ct__store_read(c->fd, &vlen, sizeof vlen) && vlen < ((uint64_t)1 << 40) &&
                   (value = (char *)CT_MALLOC(vlen + 1)) && ct__store_read(c->fd, value, vlen);
        if (got) key[klen] = 0, value[vlen] = 0;
        else CT_FREE(value);
        bool ok = got && ct__store_serve(c->server, c->fd, cmd, key, value, vlen); /* takes value */
        CT_FREE(key);
        if (!ok) break;
    }
    shutdown(c->fd, SHUT_RDWR);
    return NULL;
}

static void *ct__store_accept_main(void *arg)
{
    ct__store_server *s = (ct__store_server *)arg;
    for (;;) {
        int fd = accept(s->listen_fd, NULL, NULL);
        if (fd < 0 && errno == EINTR) continue;
        if (fd < 0) break; /* the listening socket was shut down */
        ct__store_conn *c = (ct__store_conn *)CT_MALLOC(sizeof *c);
        pthread_mutex_lock(&s->lock);
        bool started = c && !s->stopping;
        if (started) {
            c->fd = fd, c->server = s;
            started = pthread_create(&c->thread, NULL, ct__store_conn_main, c) == 0;
        }
        if (started) c->next = s->conns, s->conns = c, s->joined++;
        pthread_cond_broadcast(&s->changed);
        pthread_mutex_unlock(&s->lock);
        if (!started) close(fd), CT_FREE(c);
    }
    return NULL;
}

static void ct__store_server_stop(ct__store_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = true;
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
    shutdown(s->listen_fd, SHUT_RDWR); /* wakes accept */
    pthread_join(s->acceptor, NULL);
    close(s->listen_fd);
    for (ct__store_conn *c = s->conns; c; c = s->conns) {
        shutdown(c->fd, SHUT_RDWR); /* wakes its read */
        pthread_join(c->thread, NULL);
        close(c->fd);
        s->conns = c->next;
        CT_FREE(c);
    }
    for (ct__store_entry *e = s->entries; e; e = s->entries) {
        s->entries = e->next;
        CT_FREE(e->key), CT_FREE(e->value), CT_FREE(e);
    }
    pthread_cond_destroy(&s->changed);
    pthread_mutex_destroy(&s->lock);
    CT_FREE(s);
}

static ct__store_server *ct__store_server_start(int *port)
{
    ct__store_server *s = (ct__store_server *)ct__dist_alloc(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    if ((s->listen_fd = ct__sock_listen(port, 128)) < 0) {
        CT_FREE(s);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->changed, NULL);
    if (pthread_create(&s->acceptor, NULL, ct__store_accept_main, s) != 0) {
        close(s->listen_fd);
        CT_FREE(s);
        ct__dist_fail(CT_ERR_RUNTIME, "The TCP store's server thread could not be started");
        return NULL;
    }
    return s;
}

/* The master waits for world_size clients (itself included), as
 * TCPStore's wait_for_workers. */
static ct_result ct__store_wait_for_workers(ct__store_server *s, int world_size, double timeout)
{
    struct timespec until;
    timespec_get(&until, TIME_UTC);
    double end = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + timeout;
    until.tv_sec = (time_t)end, until.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
    pthread_mutex_lock(&s->lock);
    int rc = 0;
    while (s->joined < world_size && rc == 0) rc = pthread_cond_timedwait(&s->changed, &s->lock, &until);
    int joined = s->joined;
    pthread_mutex_unlock(&s->lock);
    if (joined >= world_size) return CT_OK;
    return ct__dist_fail(CT_ERR_RUNTIME, "Timed out after %g seconds waiting for clients. %d/%d clients joined.", timeout,
                         joined, world_size);
}

/* ---------------------------------------------------------------- client */

ct_tcp_store *ct_tcp_store_new(const char *host_name, int port, ct_tcp_store_opts opts)
{
    struct sockaddr_in addr;
    if (!host_name) {
        ct__dist_fail(CT_ERR_VALUE, "TCPStore(): host_name must be a string, not NULL");
        return NULL;
    }
    if (port < 0 || port > 65535 || opts.world_size < 0 || opts.timeout < 0) {
        ct__dist_fail(CT_ERR_VALUE, "TCPStore(): port must be in [0, 65535], world_size and timeout not negative");
        return NULL;
    }
    ct_tcp_store *s = (ct_tcp_store *)ct__dist_alloc(sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->timeout = opts.timeout > 0 ? opts.timeout : 300.0;
    s->port = port;
    s->fd = -1;
    pthread_mutex_init(&s->lock, NULL);
    bool ok = !opts.is_master || (s->server = ct__store_server_start(&s->port)) != NULL;
    ok = ok && ct__sock_resolve(host_name, s->port, &addr) == CT_OK;
    ok = ok && (s->fd = ct__sock_connect(&addr, host_name, s->port, s->timeout)) >= 0;
    if (ok && s->server && opts.world_size > 0)
        ok = ct__store_wait_for_workers(s->server, opts.world_size, s->timeout) == CT_OK;
    if (!ok) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", ct_last_error());
        ct_tcp_store_free(s);
        ct_set_error(CT_ERR_RUNTIME, msg);
        return NULL;
    }
    return s;
}

int ct_tcp_store_port(const ct_tcp_store *store) { return store ? store->port : -1; }

void ct_tcp_store_free(ct_tcp_store *store)
{
    if (!store) return;
    if (store->fd >= 0) close(store->fd);
    if (store->server) ct__store_server_stop(store->server);
    pthread_mutex_destroy(&store->lock);
    CT_FREE(store);
}

/* Sends one request and reads its answer's first `n` bytes into reply; the
 * caller holds the lock. A failed request leaves the connection out of
 * step, so it is closed: later requests fail at once. */
static ct_result ct__store_request(ct_tcp_store *s, int cmd, const char *key, const void *value, uint64_t len,
                                   void *reply, size_t n, double deadline)
{
    if (s->fd < 0) return ct__dist_fail(CT_ERR_RUNTIME, "Connection closed by peer");
    unsigned char c = (unsigned char)cmd;
    uint32_t klen = (uint32_t)strlen(key);
    ct_result res = ct__sock_send_all(s->fd, &c, 1, deadline);
    if (res == CT_OK) res = ct__sock_send_all(s->fd, &klen, sizeof klen, deadline);
    if (res == CT_OK) res = ct__sock_send_all(s->fd, key, klen, deadline);
    if (res == CT_OK) res = ct__sock_send_all(s->fd, &len, sizeof len, deadline);
    if (res == CT_OK) res = ct__sock_send_all(s->fd, value, (size_t)len, deadline);
    if (res == CT_OK) res = ct__sock_recv_all(s->fd, reply, n, deadline);
    if (res != CT_OK) close(s->fd), s->fd = -1;
    return res;
}

static ct_result ct__store_check(const ct_tcp_store *s, const char *key)
{
    if (!s) return ct__dist_fail(CT_ERR_TYPE, "TCPStore: argument 'self' must be TCPStore, not NULL");
    if (!key) return ct__dist_fail(CT_ERR_TYPE, "TCPStore: key must be a string, not NULL");
    return CT_OK;
}

ct_result ct_tcp_store_set(ct_tcp_store *store, const char *key, const void *value, size_t len)
{
    unsigned char ack;
    ct_result res = ct__store_check(store, key);
    if (res != CT_OK) return res;
    pthread_mutex_lock(&store->lock);
    res = ct__store_request(store, CT__STORE_SET, key, value, len, &ack, 1, ct__dist_seconds() + store->timeout);
    pthread_mutex_unlock(&store->lock);
    return res;
}

/* The rest of an answer that did not fit the caller's buffer. */
static ct_result ct__store_skip(ct_tcp_store *s, uint64_t n, double deadline)
{
    char sink[4096];
    ct_result res = CT_OK;
    for (; n > 0 && res == CT_OK; n -= n < sizeof sink ? n : sizeof sink)
        res = ct__sock_recv_all(s->fd, sink, n < sizeof sink ? (size_t)n : sizeof sink, deadline);
    if (res != CT_OK) close(s->fd), s->fd = -1;
    return res;
}

ct_result ct_tcp_store_get(ct_tcp_store *store, const char *key, void *value, size_t cap, size_t *len)
{
    uint64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_request(store, CT__STORE_GET, key, "", 0, &n, sizeof n, deadline);
    size_t kept = n < cap ? (size_t)n : cap;
    if (res == CT_OK) res = ct__sock_recv_all(store->fd, value, kept, deadline);
    if (res == CT_OK) res = ct__store_skip(store, n - kept, deadline);
    pthread_mutex_unlock(&store->lock);
    if (len) *len = res == CT_OK ? (size_t)n : 0;
    return res;
}

ct_result ct_tcp_store_add(ct_tcp_store *store, const char *key, int64_t amount, int64_t *value)
{
    int64_t sum = 0;
    ct_result res = ct__store_check(store, key);
    if (res != CT_OK) return res;
    pthread_mutex_lock(&store->lock);
    res = ct__store_request(store, CT__STORE_ADD, key, &amount, sizeof amount, &sum, sizeof sum,
                            ct__dist_seconds() + store->timeout);
    pthread_mutex_unlock(&store->lock);
    if (value) *value = sum;
    return res;
}

ct_result ct_tcp_store_wait(ct_tcp_store *store, const char *const *keys, int n, double timeout)
{
    ct_result res = ct__store_check(store, n > 0 && keys ? keys[0] : NULL);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + (timeout > 0 ? timeout : store->timeout);
    unsigned char ack;
    pthread_mutex_lock(&store->lock);
    for (int i = 0; i < n && res == CT_OK; i++)
        res = keys[i] ? ct__store_request(store, CT__STORE_WAIT, keys[i], "", 0, &ack, 1, deadline)
                      : ct__store_check(store, NULL);
    pthread_mutex_unlock(&store->lock);
    return res;
}
