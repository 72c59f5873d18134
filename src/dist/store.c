/* The TCP store (torch.distributed.TCPStore): a key-value store that the
 * master process serves, one thread per client connection, and that every
 * process (the master too) reaches through a client connection. It carries
 * the gloo backend's rendezvous. The wire format is PyTorch 1.13's
 * TCPStore's, so that ctorch's clients work with the store torchrun's agent
 * serves and Python's clients with ctorch's: a query type byte, then
 * strings and byte vectors as a 64-bit length and the bytes, integers as
 * 64 bits. SET has no answer; WAIT and GET are answered once their keys
 * exist, so a client's wait is bounded by its own socket deadline. The
 * server's threads never set ctorch's error: a client that goes away, or
 * sends a query it does not know (WATCH_KEY), just ends its thread. */

/* c10d's QueryType, in its order. */
enum { CT__STORE_SET, CT__STORE_COMPARE_SET, CT__STORE_GET, CT__STORE_ADD, CT__STORE_CHECK, CT__STORE_WAIT,
       CT__STORE_GETNUMKEYS, CT__STORE_WATCH_KEY, CT__STORE_DELETE_KEY };

/* TCPStore's key prefixes: the one its API puts before every key, and the
 * key through which clients count themselves in (waitForWorkers). */
#define CT__STORE_PREFIX "/"
#define CT__STORE_INIT_KEY "init/"

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
    pthread_cond_t changed; /* a key was set, or the server stops */
    ct__store_entry *entries;
    ct__store_conn *conns;
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

/* Sets key to value (taken over) and wakes the waiters; the entry, or
 * NULL when out of memory. */
static ct__store_entry *ct__store_put(ct__store_server *s, const char *key, char *value, size_t len)
{
    ct__store_entry *e = ct__store_find(s, key);
    if (!e) {
        e = (ct__store_entry *)CT_MALLOC(sizeof *e);
        char *k = ct__dist_strdup(key);
        if (!e || !k) {
            CT_FREE(e), CT_FREE(k), CT_FREE(value);
            return NULL;
        }
        e->key = k, e->value = NULL, e->next = s->entries, s->entries = e;
    }
    CT_FREE(e->value);
    e->value = value, e->len = len;
    pthread_cond_broadcast(&s->changed);
    return e;
}

/* ADD: the value, a decimal number as PyTorch keeps it, grows by amount. */
static bool ct__store_add(ct__store_server *s, const char *key, int64_t amount, int64_t *sum)
{
    ct__store_entry *e = ct__store_find(s, key);
    char text[32], *copy;
    *sum = amount + (e ? strtoll(e->value, NULL, 10) : 0);
    snprintf(text, sizeof text, "%lld", (long long)*sum);
    return (copy = ct__dist_strdup(text)) && ct__store_put(s, key, copy, strlen(text)) != NULL;
}

/* Waits (lock held) until key exists; NULL when the server stops first. */
static ct__store_entry *ct__store_await(ct__store_server *s, const char *key)
{
    ct__store_entry *e;
    while (!(e = ct__store_find(s, key)) && !s->stopping) pthread_cond_wait(&s->changed, &s->lock);
    return e;
}

/* A string or byte vector of the wire: its length, then its bytes, read
 * into a NUL-terminated buffer; NULL when the client went away. */
static char *ct__store_read_bytes(int fd, uint64_t *len)
{
    char *p = NULL;
    if (!ct__store_read(fd, len, sizeof *len) || *len >= ((uint64_t)1 << 40) || !(p = (char *)CT_MALLOC(*len + 1)) ||
        !ct__store_read(fd, p, *len)) {
        CT_FREE(p);
        return NULL;
    }
    p[*len] = 0;
    return p;
}

/* CHECK's and WAIT's keys: whether all exist (lock held), after waiting
 * for them when `wait`; false when the server stops first. */
static bool ct__store_keys_ready(ct__store_server *s, char **keys, uint64_t n, bool wait)
{
    for (uint64_t i = 0; i < n; i++)
        if (!(wait ? ct__store_await(s, keys[i]) : ct__store_find(s, keys[i]))) return false;
    return true;
}

/* CHECK and WAIT: the number of keys, the keys; one byte answers (0:
 * ready, 1: not ready). */
static bool ct__store_serve_keys(ct__store_server *s, int fd, bool wait)
{
    uint64_t n = 0, len;
    char **keys = NULL;
    bool ok = ct__store_read(fd, &n, sizeof n) && n < (1u << 20) && (keys = (char **)CT_MALLOC(n * sizeof *keys + 1));
    uint64_t got = 0;
    while (ok && got < n && (keys[got] = ct__store_read_bytes(fd, &len)) != NULL) got++;
    ok = ok && got == n;
    if (ok) {
        pthread_mutex_lock(&s->lock);
        unsigned char ready = ct__store_keys_ready(s, keys, n, wait) ? 0 : 1;
        ok = !(wait && ready) && !s->stopping;
        pthread_mutex_unlock(&s->lock);
        ok = ok && ct__store_write(fd, &ready, 1);
    }
    while (got > 0) CT_FREE(keys[--got]);
    CT_FREE(keys);
    return ok;
}

/* A byte vector answer: its length, then its bytes, copied (lock held)
 * so that it is written after the lock is released; NULL when out of
 * memory. *size is the answer's whole length. */
static char *ct__store_vector_answer(const char *bytes, uint64_t n, size_t *size)
{
    char *answer = (char *)CT_MALLOC(sizeof n + n + 1);
    if (!answer) return NULL;
    memcpy(answer, &n, sizeof n), memcpy(answer + sizeof n, bytes, n);
    *size = sizeof n + n;
    return answer;
}

static bool ct__store_write_answer(int fd, char *answer, size_t size)
{
    bool ok = answer && ct__store_write(fd, answer, size);
    CT_FREE(answer);
    return ok;
}

/* GET: the key; the value answers, once it exists. */
static bool ct__store_serve_get(ct__store_server *s, int fd, const char *key)
{
    char *answer = NULL;
    size_t size = 0;
    pthread_mutex_lock(&s->lock);
    ct__store_entry *e = ct__store_await(s, key);
    if (e) answer = ct__store_vector_answer(e->value, e->len, &size);
    pthread_mutex_unlock(&s->lock);
    return ct__store_write_answer(fd, answer, size);
}

/* SET: the key, the value; no answer. */
static bool ct__store_serve_set(ct__store_server *s, int fd, const char *key)
{
    uint64_t len;
    char *value = ct__store_read_bytes(fd, &len);
    if (!value) return false;
    pthread_mutex_lock(&s->lock);
    bool ok = ct__store_put(s, key, value, len) != NULL; /* takes value */
    pthread_mutex_unlock(&s->lock);
    return ok;
}

/* ADD: the key, the amount; the sum answers. */
static bool ct__store_serve_add(ct__store_server *s, int fd, const char *key)
{
    int64_t amount = 0, sum = 0;
    if (!ct__store_read(fd, &amount, sizeof amount)) return false;
    pthread_mutex_lock(&s->lock);
    bool ok = ct__store_add(s, key, amount, &sum);
    pthread_mutex_unlock(&s->lock);
    return ok && ct__store_write(fd, &sum, sizeof sum);
}

/* COMPARE_SET: the key, the expected value, the desired one. The key
 * takes the desired value when it holds the expected one, or when it is
 * missing and the expected value is empty; the key's value then answers,
 * or, for a missing key, the expected value (as PyTorch's server). Unlike
 * PyTorch's, which only wakes them on SET and ADD, a key made here wakes
 * the clients waiting for it. */
static bool ct__store_serve_compare_set(ct__store_server *s, int fd, const char *key)
{
    uint64_t expected_len = 0, desired_len = 0;
    char *expected = ct__store_read_bytes(fd, &expected_len);
    char *desired = expected ? ct__store_read_bytes(fd, &desired_len) : NULL, *answer = NULL;
    size_t size = 0;
    if (desired) {
        pthread_mutex_lock(&s->lock);
        ct__store_entry *e = ct__store_find(s, key);
        bool swap = e ? e->len == expected_len && memcmp(e->value, expected, expected_len) == 0 : expected_len == 0;
        if (swap) e = ct__store_put(s, key, desired, desired_len), desired = NULL; /* takes desired */
        if (e) answer = ct__store_vector_answer(e->value, e->len, &size);
        else if (!swap) answer = ct__store_vector_answer(expected, expected_len, &size); /* missing: PyTorch answers this */
        pthread_mutex_unlock(&s->lock);
    }
    CT_FREE(expected), CT_FREE(desired);
    return ct__store_write_answer(fd, answer, size);
}

/* DELETE_KEY: the key; the number of keys deleted (0 or 1) answers. */
static bool ct__store_serve_delete_key(ct__store_server *s, int fd, const char *key)
{
    int64_t deleted = 0;
    pthread_mutex_lock(&s->lock);
    for (ct__store_entry **link = &s->entries, *e; (e = *link) != NULL; link = &e->next)
        if (strcmp(e->key, key) == 0) {
            *link = e->next, deleted = 1;
            CT_FREE(e->key), CT_FREE(e->value), CT_FREE(e);
            break;
        }
    pthread_mutex_unlock(&s->lock);
    return ct__store_write(fd, &deleted, sizeof deleted);
}

/* GETNUMKEYS: the number of keys answers, the ones the API's users do not
 * see included ("init/", where clients count themselves in). */
static bool ct__store_serve_num_keys(ct__store_server *s, int fd)
{
    int64_t n = 0;
    pthread_mutex_lock(&s->lock);
    for (ct__store_entry *e = s->entries; e; e = e->next) n++;
    pthread_mutex_unlock(&s->lock);
    return ct__store_write(fd, &n, sizeof n);
}

typedef bool (*ct__store_keyed_query)(ct__store_server *s, int fd, const char *key);

/* The handler of a query that starts with a key; NULL for the others. */
static ct__store_keyed_query ct__store_keyed_handler(int cmd)
{
    switch (cmd) {
    case CT__STORE_SET: return ct__store_serve_set;
    case CT__STORE_COMPARE_SET: return ct__store_serve_compare_set;
    case CT__STORE_GET: return ct__store_serve_get;
    case CT__STORE_ADD: return ct__store_serve_add;
    case CT__STORE_DELETE_KEY: return ct__store_serve_delete_key;
    default: return NULL;
    }
}

/* One query; false ends the connection. */
static bool ct__store_serve(ct__store_server *s, int fd, int cmd)
{
    if (cmd == CT__STORE_CHECK || cmd == CT__STORE_WAIT) return ct__store_serve_keys(s, fd, cmd == CT__STORE_WAIT);
    if (cmd == CT__STORE_GETNUMKEYS) return ct__store_serve_num_keys(s, fd);
    ct__store_keyed_query handler = ct__store_keyed_handler(cmd);
    uint64_t len;
    char *key = handler ? ct__store_read_bytes(fd, &len) : NULL; /* WATCH_KEY, or garbage: the connection ends */
    bool ok = key && handler(s, fd, key);
    CT_FREE(key);
    return ok;
}

static void *ct__store_conn_main(void *arg)
{
    ct__store_conn *c = (ct__store_conn *)arg;
    unsigned char cmd;
    while (ct__store_read(c->fd, &cmd, 1) && ct__store_serve(c->server, c->fd, cmd)) {}
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
        if (started) c->next = s->conns, s->conns = c;
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

/* The master waits for world_size clients (itself included) to count
 * themselves in, as TCPStore's waitForWorkers. */
static ct_result ct__store_wait_for_workers(ct__store_server *s, int world_size, double timeout)
{
    struct timespec until;
    timespec_get(&until, TIME_UTC);
    double end = (double)until.tv_sec + 1e-9 * (double)until.tv_nsec + timeout;
    until.tv_sec = (time_t)end, until.tv_nsec = (long)((end - (double)(time_t)end) * 1e9);
    pthread_mutex_lock(&s->lock);
    int rc = 0, joined;
    ct__store_entry *e;
    while ((joined = (e = ct__store_find(s, CT__STORE_INIT_KEY)) ? atoi(e->value) : 0) < world_size && rc == 0)
        rc = pthread_cond_timedwait(&s->changed, &s->lock, &until);
    pthread_mutex_unlock(&s->lock);
    if (joined >= world_size) return CT_OK;
    return ct__dist_fail(CT_ERR_RUNTIME, "Timed out after %g seconds waiting for clients. %d/%d clients joined.", timeout,
                         joined, world_size);
}

/* ---------------------------------------------------------------- client */

/* A failed request leaves the connection out of step with the server, so
 * it is closed: later requests fail at once. */
static ct_result ct__store_broken(ct_tcp_store *s, ct_result res)
{
    if (res != CT_OK && s->fd >= 0) close(s->fd), s->fd = -1;
    return res;
}

static ct_result ct__store_send_cmd(ct_tcp_store *s, int cmd, double deadline)
{
    unsigned char c = (unsigned char)cmd;
    if (s->fd < 0) return ct__dist_fail(CT_ERR_RUNTIME, "Connection closed by peer");
    return ct__store_broken(s, ct__sock_send_all(s->fd, &c, 1, deadline));
}

/* A string or byte vector: its length, then its bytes. */
static ct_result ct__store_send_bytes(ct_tcp_store *s, const void *p, uint64_t n, double deadline)
{
    ct_result res = ct__sock_send_all(s->fd, &n, sizeof n, deadline);
    if (res == CT_OK) res = ct__sock_send_all(s->fd, p, (size_t)n, deadline);
    return ct__store_broken(s, res);
}

static ct_result ct__store_recv(ct_tcp_store *s, void *p, size_t n, double deadline)
{
    return ct__store_broken(s, ct__sock_recv_all(s->fd, p, n, deadline));
}

/* A key as TCPStore's API sends it, after its prefix (NULL: out of memory). */
static char *ct__store_full_key(const char *key)
{
    size_t n = strlen(CT__STORE_PREFIX) + strlen(key) + 1;
    char *full = (char *)ct__dist_alloc(n);
    if (full) snprintf(full, n, "%s%s", CT__STORE_PREFIX, key);
    return full;
}

static ct_result ct__store_send_key(ct_tcp_store *s, const char *key, double deadline)
{
    char *full = ct__store_full_key(key);
    ct_result res = full ? ct__store_send_bytes(s, full, strlen(full), deadline) : CT_ERR_MEMORY;
    CT_FREE(full);
    return res;
}

/* The start of a query about one key: its type, then the key. */
static ct_result ct__store_send_keyed(ct_tcp_store *s, int cmd, const char *key, double deadline)
{
    ct_result res = ct__store_send_cmd(s, cmd, deadline);
    return res == CT_OK ? ct__store_send_key(s, key, deadline) : res;
}

static ct_result ct__store_add_raw(ct_tcp_store *s, const char *full_key, int64_t amount, int64_t *sum, double deadline)
{
    ct_result res = ct__store_send_cmd(s, CT__STORE_ADD, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(s, full_key, strlen(full_key), deadline);
    if (res == CT_OK) res = ct__store_broken(s, ct__sock_send_all(s->fd, &amount, sizeof amount, deadline));
    return res == CT_OK ? ct__store_recv(s, sum, sizeof *sum, deadline) : res;
}

ct_tcp_store *ct_tcp_store_new(const char *host_name, int port, ct_tcp_store_opts opts)
{
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
    int64_t joined = 0;
    bool ok = !opts.is_master || (s->server = ct__store_server_start(&s->port)) != NULL;
    ok = ok && (s->fd = ct__sock_connect(host_name, s->port, s->timeout)) >= 0;
    if (ok && opts.world_size > 0) /* every client counts itself in, as TCPStore's */
        ok = ct__store_add_raw(s, CT__STORE_INIT_KEY, 1, &joined, ct__dist_seconds() + s->timeout) == CT_OK;
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

static ct_result ct__store_check_self(const ct_tcp_store *s)
{
    if (!s) return ct__dist_fail(CT_ERR_TYPE, "TCPStore: argument 'self' must be TCPStore, not NULL");
    return CT_OK;
}

static ct_result ct__store_check(const ct_tcp_store *s, const char *key)
{
    ct_result res = ct__store_check_self(s);
    if (res == CT_OK && !key) res = ct__dist_fail(CT_ERR_TYPE, "TCPStore: key must be a string, not NULL");
    return res;
}

/* n keys, every one a string (none is fine). */
static ct_result ct__store_check_keys(const ct_tcp_store *s, const char *const *keys, int n)
{
    ct_result res = ct__store_check_self(s);
    if (res == CT_OK && n < 0) res = ct__dist_fail(CT_ERR_VALUE, "TCPStore: the number of keys must not be negative, not %d", n);
    if (res == CT_OK && n > 0 && !keys) res = ct__dist_fail(CT_ERR_TYPE, "TCPStore: keys must be a list of strings, not NULL");
    for (int i = 0; i < n && res == CT_OK; i++) res = ct__store_check(s, keys[i]);
    return res;
}

/* A buffer of len bytes: NULL only when empty. */
static ct_result ct__store_check_bytes(const char *name, const void *p, size_t len)
{
    if (!p && len > 0) return ct__dist_fail(CT_ERR_TYPE, "TCPStore: %s must be bytes, not NULL", name);
    return CT_OK;
}

ct_result ct_tcp_store_set(ct_tcp_store *store, const char *key, const void *value, size_t len)
{
    ct_result res = ct__store_check(store, key);
    if (res == CT_OK) res = ct__store_check_bytes("value", value, len);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_keyed(store, CT__STORE_SET, key, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(store, value, len, deadline);
    pthread_mutex_unlock(&store->lock);
    return res;
}

/* CHECK or WAIT for n keys (lock held): the number of keys, the keys;
 * one byte answers (0: all exist; WAIT answers once they do). */
static ct_result ct__store_keys_query(ct_tcp_store *s, int cmd, const char *const *keys, int n, double deadline,
                                      unsigned char *answer)
{
    uint64_t count = (uint64_t)n;
    ct_result res = ct__store_send_cmd(s, cmd, deadline);
    if (res == CT_OK) res = ct__store_broken(s, ct__sock_send_all(s->fd, &count, sizeof count, deadline));
    for (int i = 0; i < n && res == CT_OK; i++) res = ct__store_send_key(s, keys[i], deadline);
    if (res == CT_OK) res = ct__store_recv(s, answer, 1, deadline);
    return res;
}

static ct_result ct__store_wait_locked(ct_tcp_store *s, const char *const *keys, int n, double deadline)
{
    unsigned char answer = 1;
    return ct__store_keys_query(s, CT__STORE_WAIT, keys, n, deadline, &answer);
}

/* The rest of an answer that did not fit the caller's buffer. */
static ct_result ct__store_skip(ct_tcp_store *s, uint64_t n, double deadline)
{
    char sink[4096];
    ct_result res = CT_OK;
    for (; n > 0 && res == CT_OK; n -= n < sizeof sink ? n : sizeof sink)
        res = ct__store_recv(s, sink, n < sizeof sink ? (size_t)n : sizeof sink, deadline);
    return res;
}

/* A byte vector answer (lock held): at most cap bytes into value, and
 * the whole length into *len. */
static ct_result ct__store_recv_vector(ct_tcp_store *s, void *value, size_t cap, uint64_t *len, double deadline)
{
    ct_result res = ct__store_recv(s, len, sizeof *len, deadline);
    size_t kept = *len < cap ? (size_t)*len : cap;
    if (res == CT_OK) res = ct__store_recv(s, value, kept, deadline);
    if (res == CT_OK) res = ct__store_skip(s, *len - kept, deadline);
    return res;
}

ct_result ct_tcp_store_get(ct_tcp_store *store, const char *key, void *value, size_t cap, size_t *len)
{
    uint64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res == CT_OK) res = ct__store_check_bytes("value", value, cap);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_wait_locked(store, &key, 1, deadline); /* as TCPStore::get: PyTorch's server fails a GET of a missing key */
    if (res == CT_OK) res = ct__store_send_keyed(store, CT__STORE_GET, key, deadline);
    if (res == CT_OK) res = ct__store_recv_vector(store, value, cap, &n, deadline);
    pthread_mutex_unlock(&store->lock);
    if (len) *len = res == CT_OK ? (size_t)n : 0;
    return res;
}

ct_result ct_tcp_store_compare_set(ct_tcp_store *store, const char *key, const void *expected, size_t expected_len,
                                   const void *desired, size_t desired_len, void *value, size_t cap, size_t *len)
{
    uint64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res == CT_OK) res = ct__store_check_bytes("expected_value", expected, expected_len);
    if (res == CT_OK) res = ct__store_check_bytes("desired_value", desired, desired_len);
    if (res == CT_OK) res = ct__store_check_bytes("value", value, cap);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_keyed(store, CT__STORE_COMPARE_SET, key, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(store, expected, expected_len, deadline);
    if (res == CT_OK) res = ct__store_send_bytes(store, desired, desired_len, deadline);
    if (res == CT_OK) res = ct__store_recv_vector(store, value, cap, &n, deadline);
    pthread_mutex_unlock(&store->lock);
    if (len) *len = res == CT_OK ? (size_t)n : 0;
    return res;
}

ct_result ct_tcp_store_delete_key(ct_tcp_store *store, const char *key, bool *deleted)
{
    int64_t n = 0;
    ct_result res = ct__store_check(store, key);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_keyed(store, CT__STORE_DELETE_KEY, key, deadline);
    if (res == CT_OK) res = ct__store_recv(store, &n, sizeof n, deadline);
    pthread_mutex_unlock(&store->lock);
    if (deleted) *deleted = res == CT_OK && n == 1;
    return res;
}

ct_result ct_tcp_store_num_keys(ct_tcp_store *store, int64_t *n)
{
    int64_t count = 0;
    ct_result res = ct__store_check_self(store);
    if (res != CT_OK) return res;
    double deadline = ct__dist_seconds() + store->timeout;
    pthread_mutex_lock(&store->lock);
    res = ct__store_send_cmd(store, CT__STORE_GETNUMKEYS, deadline);
    if (res == CT_OK) res = ct__store_recv(store, &count, sizeof count, deadline);
    pthread_mutex_unlock(&store->lock);
    if (n) *n = res == CT_OK ? count : 0;
    return res;
}

ct_result ct_tcp_store_add(ct_tcp_store *store, const char *key, int64_t amount, int64_t *value)
{
    int64_t sum = 0;
    ct_result res = ct__store_check(store, key);
    char *full = res == CT_OK ? ct__store_full_key(key) : NULL;
    if (!full) return ct_last_error_code();
    pthread_mutex_lock(&store->lock);
    res = ct__store_add_raw(store, full, amount, &sum, ct__dist_seconds() + store->timeout);
    pthread_mutex_unlock(&store->lock);
    CT_FREE(full);
    if (value) *value = sum;
    return res;
}

ct_result ct_tcp_store_wait(ct_tcp_store *store, const char *const *keys, int n, double timeout)
{
    ct_result res = ct__store_check_keys(store, keys, n);
    if (res != CT_OK) return res;
    pthread_mutex_lock(&store->lock);
    res = ct__store_wait_locked(store, keys, n, ct__dist_seconds() + (timeout > 0 ? timeout : store->timeout));
    pthread_mutex_unlock(&store->lock);
    return res;
}

ct_result ct_tcp_store_check(ct_tcp_store *store, const char *const *keys, int n, bool *ready)
{
    unsigned char answer = 1;
    ct_result res = ct__store_check_keys(store, keys, n);
    if (res != CT_OK) return res;
    pthread_mutex_lock(&store->lock);
    res = ct__store_keys_query(store, CT__STORE_CHECK, keys, n, ct__dist_seconds() + store->timeout, &answer);
    pthread_mutex_unlock(&store->lock);
    if (ready) *ready = res == CT_OK && answer == 0;
    return res;
}
