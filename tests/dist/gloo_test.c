/* The gloo backend's rendezvous and its failures, and the TCP store
 * (torch.distributed.TCPStore), with PyTorch 1.13's messages: a rank
 * alone, a missing variable, a peer that exits mid-collective. One
 * process, which forks the ranks it needs (ct_dist_spawn); no MPI, no
 * launcher. Runs once (tests/dist/run.sh). */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#define CTORCH_DIST_IMPLEMENTATION
#include "ctorch_dist.h"
#include "free_port.h"
#include <pthread.h>
#include <signal.h>

static double now(void)
{
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* torchrun's variables for one rank. */
static void set_env(int rank, int world_size, int port)
{
    char v[32];
    snprintf(v, sizeof v, "%d", rank), setenv("RANK", v, 1);
    snprintf(v, sizeof v, "%d", world_size), setenv("WORLD_SIZE", v, 1);
    snprintf(v, sizeof v, "%d", port), setenv("MASTER_PORT", v, 1);
    setenv("MASTER_ADDR", "127.0.0.1", 1);
}

static void test_store_set_get_add_wait(void)
{
    ct_tcp_store *master = ct_tcp_store_new("127.0.0.1", 0, (ct_tcp_store_opts){.is_master = true, .timeout = 5});
    CHECK(master != NULL);
    if (!master) return;
    int port = ct_tcp_store_port(master);
    CHECK(port > 0);
    ct_tcp_store *client = ct_tcp_store_new("localhost", port, (ct_tcp_store_opts){.timeout = 5});
    CHECK(client != NULL);
    char buf[16] = "";
    size_t len = 0;
    CHECK_OK(ct_tcp_store_set(client, "key", "hello", 5));
    CHECK_OK(ct_tcp_store_get(master, "key", buf, sizeof buf, &len));
    CHECK_INT(len, 5);
    CHECK(memcmp(buf, "hello", 5) == 0);
    CHECK_OK(ct_tcp_store_get(client, "key", buf, 2, &len)); /* a short buffer: the length still tells */
    CHECK_INT(len, 5);
    CHECK_OK(ct_tcp_store_set(client, "key", "", 0)); /* overwritten, empty (SET has no answer: same connection) */
    CHECK_OK(ct_tcp_store_get(client, "key", buf, sizeof buf, &len));
    CHECK_INT(len, 0);
    int64_t v = 0;
    CHECK_OK(ct_tcp_store_add(client, "count", 5, &v));
    CHECK_INT(v, 5);
    CHECK_OK(ct_tcp_store_add(master, "count", 2, &v));
    CHECK_INT(v, 7);
    CHECK_OK(ct_tcp_store_get(client, "count", buf, sizeof buf, &len)); /* kept as text, as PyTorch's b'7' */
    CHECK(len == 1 && buf[0] == '7');
    const char *keys[] = {"key", "count"};
    CHECK_OK(ct_tcp_store_wait(client, keys, 2, 0));
    /* a wait for a key nobody sets ends with PyTorch's message, on time */
    double t0 = now();
    const char *missing[] = {"missing"};
    CHECK_FAILS(ct_tcp_store_wait(master, missing, 1, 0.3), CT_ERR_RUNTIME, "Socket Timeout");
    CHECK(now() - t0 < 2);
    ct_tcp_store_free(client);
    ct_tcp_store_free(master);
    ct_tcp_store_free(NULL);
}

/* A value as a C string, for comparing answers (len bytes of buf). */
static const char *text(char *buf, size_t cap, size_t len)
{
    buf[len < cap ? len : cap - 1] = 0;
    return buf;
}

/* A client of the store at port that sets key "late" (made by compare_set)
 * a little after the main thread started waiting for it. */
static void *compare_set_later(void *arg)
{
    ct_tcp_store *c = ct_tcp_store_new("127.0.0.1", *(int *)arg, (ct_tcp_store_opts){.timeout = 5});
    char buf[8];
    struct timespec pause = {0, 200 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if (c) ct_tcp_store_compare_set(c, "late", "", 0, "made", 4, buf, sizeof buf, NULL);
    ct_tcp_store_free(c);
    return NULL;
}

/* compare_set, delete_key, num_keys and check, with the answers PyTorch
 * 1.13's TCPStore gives (python3: TCPStore("127.0.0.1", 0, 1, True)). */
static void test_store_compare_set_delete_num_keys(void)
{
    ct_tcp_store *master = ct_tcp_store_new("127.0.0.1", 0,
                                            (ct_tcp_store_opts){.world_size = 1, .is_master = true, .timeout = 5});
    CHECK(master != NULL);
    if (!master) return;
    int port = ct_tcp_store_port(master);
    ct_tcp_store *client = ct_tcp_store_new("127.0.0.1", port, (ct_tcp_store_opts){.timeout = 5});
    CHECK(client != NULL);
    char buf[16];
    size_t len = 99;
    int64_t n = -1;
    bool yes = false;
    CHECK_OK(ct_tcp_store_num_keys(client, &n));
    CHECK_INT(n, 1); /* "init/", where the master counted itself in */
    /* a missing key with nothing expected is made; with something expected,
     * not made, and the expected value answers */
    CHECK_OK(ct_tcp_store_compare_set(client, "k", "", 0, "new", 3, buf, sizeof buf, &len));
    CHECK_STR(text(buf, sizeof buf, len), "new");
    CHECK_OK(ct_tcp_store_compare_set(client, "m", "x", 1, "new", 3, buf, sizeof buf, &len));
    CHECK_STR(text(buf, sizeof buf, len), "x");
    const char *m[] = {"m"}, *k_and_m[] = {"k", "m"}, *k[] = {"k"};
    CHECK_OK(ct_tcp_store_check(master, m, 1, &yes));
    CHECK(!yes);
    CHECK_OK(ct_tcp_store_check(master, k, 1, &yes));
    CHECK(yes);
    CHECK_OK(ct_tcp_store_check(master, k_and_m, 2, &yes));
    CHECK(!yes);
    CHECK_OK(ct_tcp_store_check(master, NULL, 0, &yes)); /* no keys: all of them are there */
    CHECK(yes);
    /* the expected value swaps; another one leaves the value, which answers */
    CHECK_OK(ct_tcp_store_compare_set(master, "k", "new", 3, "v2", 2, buf, sizeof buf, &len));
    CHECK_STR(text(buf, sizeof buf, len), "v2");
    CHECK_OK(ct_tcp_store_compare_set(client, "k", "zzz", 3, "v3", 2, buf, sizeof buf, &len));
    CHECK_STR(text(buf, sizeof buf, len), "v2");
    CHECK_OK(ct_tcp_store_compare_set(client, "k", "", 0, "v4", 2, buf, sizeof buf, &len)); /* set: "" is not its value */
    CHECK_STR(text(buf, sizeof buf, len), "v2");
    CHECK_OK(ct_tcp_store_set(client, "e", "", 0));
    CHECK_OK(ct_tcp_store_compare_set(client, "e", "", 0, "filled", 6, buf, sizeof buf, &len)); /* set to "": swaps */
    CHECK_STR(text(buf, sizeof buf, len), "filled");
    CHECK_OK(ct_tcp_store_compare_set(client, "e", "filled", 6, "0123456789abcdefXYZ", 19, buf, 4, &len));
    CHECK_INT(len, 19); /* a short buffer: the length still tells */
    CHECK(memcmp(buf, "0123", 4) == 0);
    CHECK_OK(ct_tcp_store_num_keys(master, &n));
    CHECK_INT(n, 3); /* init/, /k, /e */
    CHECK_OK(ct_tcp_store_delete_key(client, "k", &yes));
    CHECK(yes);
    CHECK_OK(ct_tcp_store_delete_key(master, "k", &yes));
    CHECK(!yes);
    CHECK_OK(ct_tcp_store_delete_key(master, "init/", &yes)); /* the API's keys have a prefix: not that one */
    CHECK(!yes);
    CHECK_OK(ct_tcp_store_num_keys(client, &n));
    CHECK_INT(n, 2);
    CHECK_FAILS(ct_tcp_store_wait(client, k, 1, 0.2), CT_ERR_RUNTIME, "Socket Timeout"); /* deleted: not there */
    ct_tcp_store_free(client);
    /* a key that compare_set makes wakes a client waiting for it */
    pthread_t later;
    CHECK(pthread_create(&later, NULL, compare_set_later, &port) == 0);
    double t0 = now();
    CHECK_OK(ct_tcp_store_get(master, "late", buf, sizeof buf, &len));
    CHECK_STR(text(buf, sizeof buf, len), "made");
    CHECK(now() - t0 < 3);
    pthread_join(later, NULL);
    /* bad arguments: an error in PyTorch's spirit, the store still usable */
    CHECK_FAILS(ct_tcp_store_num_keys(NULL, &n), CT_ERR_TYPE, "TCPStore: argument 'self' must be TCPStore, not NULL");
    CHECK_FAILS(ct_tcp_store_delete_key(master, NULL, &yes), CT_ERR_TYPE, "TCPStore: key must be a string, not NULL");
    CHECK_FAILS(ct_tcp_store_compare_set(master, "k", NULL, 2, "v", 1, buf, sizeof buf, &len), CT_ERR_TYPE,
                "TCPStore: expected_value must be bytes, not NULL");
    CHECK_FAILS(ct_tcp_store_check(master, NULL, 1, &yes), CT_ERR_TYPE, "TCPStore: keys must be a list of strings, not NULL");
    CHECK_FAILS(ct_tcp_store_check(master, k, -1, &yes), CT_ERR_VALUE, "TCPStore: the number of keys must not be negative, not -1");
    CHECK_OK(ct_tcp_store_num_keys(master, &n));
    CHECK_INT(n, 3); /* init/, /e, /late */
    ct_tcp_store_free(master);
}

static void test_store_timeouts(void)
{
    int port = free_port();
    char want[160];
    double t0 = now();
    CHECK(ct_tcp_store_new("127.0.0.1", port, (ct_tcp_store_opts){.timeout = 0.5}) == NULL);
    snprintf(want, sizeof want, "The client socket has timed out after 0.5s while trying to connect to (127.0.0.1, %d).", port);
    CHECK_ERR(0, CT_ERR_RUNTIME, want);
    CHECK(now() - t0 >= 0.4 && now() - t0 < 3);
    t0 = now();
    CHECK(ct_tcp_store_new("127.0.0.1", 0, (ct_tcp_store_opts){.world_size = 2, .is_master = true, .timeout = 0.5}) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, "Timed out after 0.5 seconds waiting for clients. 1/2 clients joined.");
    CHECK(now() - t0 < 3);
}

static int rendezvous_port;

/* A server's port taken: PyTorch's words for both of its tries, [::]
 * then 0.0.0.0 (python3: two TCPStore("127.0.0.1", 12355, 1, True)). */
static void test_store_port_in_use(void)
{
    ct_tcp_store *first = ct_tcp_store_new("127.0.0.1", 0, (ct_tcp_store_opts){.is_master = true, .timeout = 5});
    CHECK(first != NULL);
    if (!first) return;
    int port = ct_tcp_store_port(first);
    char want[320];
    snprintf(want, sizeof want,
             "The server socket has failed to listen on any local network address. The server socket has failed to "
             "bind to [::]:%d (errno: 98 - Address already in use). The server socket has failed to bind to "
             "0.0.0.0:%d (errno: 98 - Address already in use).", port, port);
    CHECK(ct_tcp_store_new("127.0.0.1", port, (ct_tcp_store_opts){.is_master = true, .timeout = 5}) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, want);
    ct_tcp_store_free(first);
}

/* A name that does not resolve (yet) is tried again until the timeout, as
 * PyTorch's client does: its timeout message, not a resolver error. */
static void test_store_unresolvable_host(void)
{
    double t0 = now();
    CHECK(ct_tcp_store_new("nonexistent.invalid", 29517, (ct_tcp_store_opts){.timeout = 0.5}) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME,
              "The client socket has timed out after 0.5s while trying to connect to (nonexistent.invalid, 29517).");
    CHECK(now() - t0 >= 0.4 && now() - t0 < 5);
}

/* A socket bound to family's wildcard address at port (0: the kernel's
 * pick), IPv6 only on [::]; its port in *bound; -1 when the bind fails. */
static int bind_alone(int family, int port, int *bound)
{
    struct sockaddr_storage a;
    socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    memset(&a, 0, sizeof a);
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a;
    struct sockaddr_in *a4 = (struct sockaddr_in *)&a;
    if (family == AF_INET6) a6->sin6_family = AF_INET6, a6->sin6_addr = in6addr_any, a6->sin6_port = htons((uint16_t)port);
    else a4->sin_family = AF_INET, a4->sin_addr.s_addr = htonl(INADDR_ANY), a4->sin_port = htons((uint16_t)port);
    int fd = socket(family, SOCK_STREAM, 0), one = 1;
    if (fd >= 0 && family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) != 0 || getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    *bound = ntohs(family == AF_INET6 ? a6->sin6_port : a4->sin_port);
    return fd;
}

/* A port that a listener holds on IPv6 alone ([::] with IPV6_V6ONLY) is
 * not free: the store, on [::] for IPv6 and IPv4, could not bind it. With
 * 4000 of the kernel's ephemeral ports so held, a probe on IPv4 alone gave
 * one of them in about a third of its tries; free_port never does in 50,
 * and each port it gives binds on [::] (IPv6 only) and on 0.0.0.0 alike. */
static void test_free_port_free_on_ipv6_and_ipv4(void)
{
    enum { HELD = 4000, TRIES = 50 };
    static bool held[65536];
    int *fds = (int *)malloc(HELD * sizeof *fds), n = 0, port = 0;
    CHECK(fds != NULL);
    while (fds && n < HELD && (fds[n] = bind_alone(AF_INET6, 0, &port)) >= 0)
        listen(fds[n++], 1), held[port] = true;
    CHECK_INT(n, HELD);
    for (int i = 0; i < TRIES; i++) {
        int p = free_port(), v6 = -1, v4 = -1, got;
        CHECK(p > 0 && !held[p]);
        CHECK((v6 = bind_alone(AF_INET6, p, &got)) >= 0 && (v4 = bind_alone(AF_INET, p, &got)) >= 0);
        if (v6 >= 0) close(v6);
        if (v4 >= 0) close(v4);
    }
    while (n > 0) close(fds[--n]);
    free(fds);
}

/* A store served to ::1 (PyTorch's TCPStore("::1", 0, 1, True)): its IPv6
 * clients and, the server listening on [::], its IPv4 ones too. */
static void test_store_over_ipv6(void)
{
    ct_tcp_store *master = ct_tcp_store_new("::1", 0, (ct_tcp_store_opts){.world_size = 1, .is_master = true, .timeout = 5});
    CHECK(master != NULL);
    if (!master) return;
    int port = ct_tcp_store_port(master);
    ct_tcp_store *v6 = ct_tcp_store_new("::1", port, (ct_tcp_store_opts){.timeout = 5});
    ct_tcp_store *v4 = ct_tcp_store_new("127.0.0.1", port, (ct_tcp_store_opts){.timeout = 5});
    CHECK(v6 != NULL && v4 != NULL);
    char buf[8] = "";
    size_t len = 0;
    CHECK_OK(ct_tcp_store_set(v6, "a", "b", 1));
    CHECK_OK(ct_tcp_store_get(v4, "a", buf, sizeof buf, &len));
    CHECK(len == 1 && buf[0] == 'b');
    ct_tcp_store_free(v4);
    ct_tcp_store_free(v6);
    ct_tcp_store_free(master);
    char want[160];
    snprintf(want, sizeof want, "The client socket has timed out after 0.5s while trying to connect to (::1, %d).", port);
    CHECK(ct_tcp_store_new("::1", port, (ct_tcp_store_opts){.timeout = 0.5}) == NULL);
    CHECK_ERR(0, CT_ERR_RUNTIME, want);
}

/* The rendezvous on ::1, through env:// (MASTER_ADDR=::1) and
 * tcp://[::1]:port: the ranks then reach each other over IPv6 too. */
static ct_result ipv6_rendezvous(int rank, void *arg)
{
    const int *ports = (const int *)arg;
    char method[64];
    set_env(rank, 2, ports[0]);
    setenv("MASTER_ADDR", "::1", 1);
    snprintf(method, sizeof method, "tcp://[::1]:%d", ports[1]);
    ct_dist_init_opts by_env = {.timeout = 20};
    ct_dist_init_opts by_tcp = {.init_method = method, .world_size = 2, .rank = rank, .timeout = 20};
    ct_dist_init_opts *ways[2] = {&by_env, &by_tcp};
    ct_result res = CT_OK;
    for (int i = 0; res == CT_OK && i < 2; i++) {
        if ((res = ct_dist_init_process_group("gloo", *ways[i])) != CT_OK) return res;
        ct_tensor *t = ct_full(CT_SHAPE(4), ct_int(rank + 1), CT_I64);
        res = ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){0});
        if (res == CT_OK && ct_item_int(ct_sum(t)) != 12) res = ct_set_error(CT_ERR_RUNTIME, "wrong sum");
        ct_dist_destroy_process_group(NULL);
    }
    return res;
}

static void test_rendezvous_over_ipv6(void)
{
    int ports[2] = {free_port(), free_port()};
    CHECK_OK(ct_dist_spawn(2, ipv6_rendezvous, ports));
}

/* env:// without torchrun's variables: PyTorch's ValueError, in its order. */
static void test_env_variables_missing(void)
{
    const char *names[] = {"RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"};
    for (int i = 0; i < 4; i++) {
        char want[160];
        set_env(0, 1, free_port());
        unsetenv(names[i]);
        snprintf(want, sizeof want,
                 "Error initializing torch.distributed using env:// rendezvous: environment variable %s expected, but not set",
                 names[i]);
        CHECK_FAILS(ct_dist_init_process_group("gloo", (ct_dist_init_opts){0}), CT_ERR_VALUE, want);
        CHECK(!ct_dist_is_initialized());
    }
}

/* WORLD_SIZE=2 with one process: rank 0 waits for the other's client, rank
 * 1 for the store; each fails after the timeout, and can try again. */
static void test_rendezvous_timeout(void)
{
    int port = free_port();
    char want[160];
    set_env(0, 2, port);
    double t0 = now();
    CHECK_FAILS(ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 1}), CT_ERR_RUNTIME,
                "Timed out after 1 seconds waiting for clients. 1/2 clients joined.");
    CHECK(now() - t0 >= 0.9 && now() - t0 < 4);
    set_env(1, 2, port);
    t0 = now();
    snprintf(want, sizeof want, "The client socket has timed out after 1s while trying to connect to (127.0.0.1, %d).", port);
    CHECK_FAILS(ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 1}), CT_ERR_RUNTIME, want);
    CHECK(now() - t0 >= 0.9 && now() - t0 < 4);
    CHECK(!ct_dist_is_initialized());
    set_env(0, 1, free_port()); /* a world of one needs nobody */
    CHECK_OK(ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 5}));
    ct_tensor *t = ct_full(CT_SHAPE(3), ct_int(2), CT_F32);
    CHECK_OK(ct_dist_all_reduce(t, CT_REDUCE_PRODUCT, (ct_dist_opts){0}));
    CHECK_NEAR(ct_item(ct_sum(t)), 6, 0);
    CHECK_OK(ct_dist_destroy_process_group(NULL));
}

/* tcp://host:port with the rank and world size given. */
static ct_result tcp_init_method(int rank, void *arg)
{
    char method[64];
    snprintf(method, sizeof method, "tcp://127.0.0.1:%d", *(int *)arg);
    ct_result res = ct_dist_init_process_group("gloo", (ct_dist_init_opts){.init_method = method, .world_size = 2, .rank = rank, .timeout = 20});
    if (res != CT_OK) return res;
    ct_tensor *t = ct_full(CT_SHAPE(4), ct_int(rank + 1), CT_I64);
    res = ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){0});
    if (res == CT_OK && ct_item_int(ct_sum(t)) != 12) res = ct_set_error(CT_ERR_RUNTIME, "wrong sum");
    ct_dist_destroy_process_group(NULL);
    return res;
}

static void test_tcp_init_method(void)
{
    rendezvous_port = free_port();
    CHECK_OK(ct_dist_spawn(2, tcp_init_method, &rendezvous_port));
}

/* Whether the error names the lost rank as the gloo backend does. */
static bool names_lost_rank(int rank)
{
    char who[32];
    snprintf(who, sizeof who, "(rank %d)", rank);
    return strstr(ct_last_error(), "Connection closed by peer [127.0.0.1]:") && strstr(ct_last_error(), who);
}

/* Rank 1 exits after the barrier, never joining the large all_reduce rank 0
 * then runs (had it posted its part before exiting, its threads could finish
 * the whole ring first on a slow machine, and nothing would fail); rank 0's
 * all_reduce fails soon, naming rank 1, well within its timeout. */
static ct_result peer_exits(int rank, void *arg)
{
    set_env(rank, 2, *(int *)arg);
    ct_result res = ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 60});
    ct_tensor *big = ct_ones(CT_SHAPE(1 << 22), CT_F32);
    if (res == CT_OK) res = ct_dist_barrier((ct_dist_opts){0});
    if (res != CT_OK) return res;
    if (rank == 1) _exit(0);
    double t0 = now();
    res = ct_dist_all_reduce(big, CT_REDUCE_SUM, (ct_dist_opts){0});
    if (res == CT_OK) return ct_set_error(CT_ERR_RUNTIME, "all_reduce succeeded without rank 1");
    if (!names_lost_rank(1)) return CT_ERR_RUNTIME; /* spawn reports the message */
    if (now() - t0 > 20) return ct_set_error(CT_ERR_RUNTIME, "the failure took more than 20 s");
    ct_clear_error();
    return ct_dist_destroy_process_group(NULL);
}

static void test_peer_exit_mid_collective(void)
{
    rendezvous_port = free_port();
    CHECK_OK(ct_dist_spawn(2, peer_exits, &rendezvous_port));
}

typedef struct three_ranks {
    int port;
    int failed[2]; /* a pipe: rank 1 writes once it has failed */
} three_ranks;

/* Rank 2 exits after the barrier. Rank 0 waits on it (a broadcast from it
 * in the group {0, 2}) and fails at once; rank 1 waits only on rank 0 (a
 * broadcast from it in {0, 1}, which rank 0 never starts), so it fails,
 * promptly and naming rank 2, only when rank 0's failure spreads to it.
 * Rank 0 keeps its connections until rank 1 has failed, so that rank 1
 * cannot learn of the failure from rank 0 exiting. */
static ct_result survivor_waits_on_survivor(int rank, void *arg)
{
    three_ranks *t = (three_ranks *)arg;
    set_env(rank, 3, t->port);
    const int zero_two[] = {0, 2}, zero_one[] = {0, 1};
    ct_result res = ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 60});
    ct_process_group *g02 = res == CT_OK ? ct_dist_new_group(zero_two, 2, 0) : NULL;
    ct_process_group *g01 = res == CT_OK ? ct_dist_new_group(zero_one, 2, 0) : NULL;
    ct_tensor *x = ct_zeros(CT_SHAPE(4), CT_F32);
    if (res == CT_OK) res = ct_dist_barrier((ct_dist_opts){0});
    if (res != CT_OK) return res;
    if (rank == 2) _exit(0);
    double t0 = now();
    char byte = 1;
    res = rank == 0 ? ct_dist_broadcast(x, 2, (ct_dist_opts){.group = g02}) : ct_dist_broadcast(x, 0, (ct_dist_opts){.group = g01});
    if (res == CT_OK) return ct_set_error(CT_ERR_RUNTIME, "the broadcast succeeded without rank 2");
    if (!names_lost_rank(2)) return CT_ERR_RUNTIME; /* spawn reports the message */
    if (now() - t0 > 10) return ct_set_error(CT_ERR_RUNTIME, "the failure took more than 10 s");
    if (rank == 1) { /* the groups are aborted: a later collective fails at once, with the same error */
        if (ct_dist_all_reduce(x, CT_REDUCE_SUM, (ct_dist_opts){0}) == CT_OK)
            return ct_set_error(CT_ERR_RUNTIME, "all_reduce succeeded after the abort");
        if (!names_lost_rank(2)) return CT_ERR_RUNTIME;
        if (write(t->failed[1], &byte, 1) != 1) return ct_set_error(CT_ERR_RUNTIME, "rank 1 could not tell rank 0");
    } else if (read(t->failed[0], &byte, 1) != 1)
        return ct_set_error(CT_ERR_RUNTIME, "rank 0 did not hear from rank 1");
    ct_clear_error();
    ct_release(x);
    return ct_dist_destroy_process_group(NULL);
}

static void test_peer_exit_spreads_to_every_rank(void)
{
    three_ranks t = {free_port(), {-1, -1}};
    CHECK(pipe(t.failed) == 0);
    CHECK_OK(ct_dist_spawn(3, survivor_waits_on_survivor, &t));
    close(t.failed[0]), close(t.failed[1]);
}

typedef struct stalled_reader {
    int port;
    int pid[2]; /* a pipe: rank 1 writes its pid, then stops */
} stalled_reader;

/* Whether process pid is stopped (its state in /proc/PID/stat is T). */
static bool is_stopped(pid_t pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    bool got = f && fgets(line, sizeof line, f);
    if (f) fclose(f);
    const char *state = got ? strrchr(line, ')') : NULL;
    return state && state[1] == ' ' && state[2] == 'T';
}

/* Resumes rank 1 half a second later, while rank 0 destroys its group. */
static void *resume_later(void *arg)
{
    struct timespec pause = {0, 500 * 1000 * 1000};
    nanosleep(&pause, NULL);
    kill(*(pid_t *)arg, SIGCONT);
    return NULL;
}

/* Rank 0's part while rank 1 is stopped: a 64 MB isend to it (more than
 * the connection holds: it stays partly written), then a receive from rank
 * 2, which has exited. The receive fails naming rank 2, and so does the
 * send, at once rather than at the timeout. */
static ct_result send_to_stopped_reader(void)
{
    ct_tensor *big = ct_ones(CT_SHAPE(1 << 24), CT_F32), *x = ct_zeros(CT_SHAPE(4), CT_F32);
    ct_work *send = NULL;
    ct_result res = ct_dist_send(big, 1, 0, (ct_dist_opts){.async_op = &send});
    if (res != CT_OK) return res;
    double t0 = now();
    if (ct_dist_recv(x, 2, 0, (ct_dist_opts){0}) >= 0) return ct_set_error(CT_ERR_RUNTIME, "recv succeeded without rank 2");
    if (!names_lost_rank(2)) return CT_ERR_RUNTIME;
    if (ct_work_wait(send) == CT_OK) return ct_set_error(CT_ERR_RUNTIME, "the send to the stopped rank 1 completed");
    if (!names_lost_rank(2)) return CT_ERR_RUNTIME;
    if (now() - t0 > 5) return ct_set_error(CT_ERR_RUNTIME, "the send took more than 5 s to fail");
    ct_work_free(send);
    ct_clear_error();
    return CT_OK;
}

/* Rank 1 stops (SIGSTOP) after the barrier, reading nothing more, and rank
 * 0 fills its connection to it; rank 2 exits, and rank 0, which fails for
 * it, destroys its group while rank 1 is still stopped: its abort message
 * waits behind the rest of the 64 MB. Rank 1, resumed then, waits only on
 * rank 0 (a broadcast from it in {0, 1}, which rank 0 never starts); it
 * must fail naming rank 2, the first failure, promptly, not rank 0's
 * closed connection nor its timeout. */
static ct_result reader_stops(int rank, void *arg)
{
    stalled_reader *t = (stalled_reader *)arg;
    set_env(rank, 3, t->port);
    const int zero_one[] = {0, 1};
    ct_result res = ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 10});
    ct_process_group *g01 = res == CT_OK ? ct_dist_new_group(zero_one, 2, 0) : NULL;
    ct_tensor *x = ct_zeros(CT_SHAPE(4), CT_F32);
    if (res == CT_OK) res = ct_dist_barrier((ct_dist_opts){0});
    if (res != CT_OK) return res;
    pid_t pid = getpid();
    if (rank == 2) _exit(0);
    if (rank == 1) {
        if (write(t->pid[1], &pid, sizeof pid) != (ssize_t)sizeof pid) return ct_set_error(CT_ERR_RUNTIME, "rank 1 could not tell rank 0");
        raise(SIGSTOP);
        double t0 = now();
        if (ct_dist_broadcast(x, 0, (ct_dist_opts){.group = g01}) == CT_OK)
            return ct_set_error(CT_ERR_RUNTIME, "the broadcast succeeded without rank 0");
        if (!names_lost_rank(2)) return CT_ERR_RUNTIME; /* spawn reports the message */
        if (now() - t0 > 5) return ct_set_error(CT_ERR_RUNTIME, "the failure took more than 5 s");
    } else {
        if (read(t->pid[0], &pid, sizeof pid) != (ssize_t)sizeof pid) return ct_set_error(CT_ERR_RUNTIME, "rank 0 did not hear from rank 1");
        for (double t0 = now(); !is_stopped(pid) && now() - t0 < 5;) nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
        pthread_t resumer;
        if ((res = send_to_stopped_reader()) != CT_OK || pthread_create(&resumer, NULL, resume_later, &pid) != 0) {
            kill(pid, SIGCONT);
            return res != CT_OK ? res : ct_set_error(CT_ERR_RUNTIME, "no thread to resume rank 1");
        }
        res = ct_dist_destroy_process_group(NULL);
        pthread_join(resumer, NULL);
        return res;
    }
    ct_clear_error();
    return ct_dist_destroy_process_group(NULL);
}

static void test_abort_reaches_a_rank_that_stopped_reading(void)
{
    stalled_reader t = {free_port(), {-1, -1}};
    CHECK(pipe(t.pid) == 0);
    CHECK_OK(ct_dist_spawn(3, reader_stops, &t));
    close(t.pid[0]), close(t.pid[1]);
}

/* `gloo_test server|client PORT`: one side of tests/dist/store_interop.py,
 * PyTorch's TCPStore being the other: each sets a key the other gets, and
 * they add to one counter (the C side first); then this side
 * compares-and-sets, checks, deletes and counts keys, and keeps the store
 * until the other side did the same. */
static int store_interop(bool master, int port)
{
    ct_tcp_store *s = ct_tcp_store_new("127.0.0.1", port, (ct_tcp_store_opts){.world_size = 2, .is_master = master, .timeout = 20});
    char buf[16] = "", cas[3][16] = {"", "", ""};
    size_t len = 0, cas_len[3] = {0, 0, 0};
    int64_t v = 0, keys = 0;
    bool ready[2] = {false, false}, deleted[2] = {false, false};
    const char *done[] = {"done_py"}, *bye[] = {"bye_py"}, *set[] = {"from_py", "n"}, *unset[] = {"from_py", "absent"};
    bool ok = s && ct_tcp_store_set(s, "from_c", "hello", 5) == CT_OK &&
              ct_tcp_store_get(s, "from_py", buf, sizeof buf, &len) == CT_OK && ct_tcp_store_add(s, "n", 5, &v) == CT_OK &&
              ct_tcp_store_wait(s, done, 1, 0) == CT_OK &&
              ct_tcp_store_compare_set(s, "from_py", "no", 2, "x", 1, cas[0], sizeof cas[0], &cas_len[0]) == CT_OK &&
              ct_tcp_store_compare_set(s, "from_py", "world", 5, "c_was_here", 10, cas[1], sizeof cas[1], &cas_len[1]) == CT_OK &&
              ct_tcp_store_compare_set(s, "absent", "e", 1, "x", 1, cas[2], sizeof cas[2], &cas_len[2]) == CT_OK &&
              ct_tcp_store_check(s, set, 2, &ready[0]) == CT_OK && ct_tcp_store_check(s, unset, 2, &ready[1]) == CT_OK &&
              ct_tcp_store_delete_key(s, "from_c", &deleted[0]) == CT_OK &&
              ct_tcp_store_delete_key(s, "from_c", &deleted[1]) == CT_OK && ct_tcp_store_num_keys(s, &keys) == CT_OK &&
              ct_tcp_store_set(s, "done_c", "1", 1) == CT_OK && ct_tcp_store_wait(s, bye, 1, 0) == CT_OK;
    if (ok)
        printf("from_py=%.*s n=%lld cas=%.*s,%.*s,%.*s check=%d,%d deleted=%d,%d keys=%lld\n", (int)len, buf, (long long)v,
               (int)cas_len[0], cas[0], (int)cas_len[1], cas[1], (int)cas_len[2], cas[2], ready[0], ready[1], deleted[0],
               deleted[1], (long long)keys);
    else printf("TCPStore interop failed: %s\n", ct_last_error());
    ct_tcp_store_free(s);
    return ok ? 0 : 1;
}

/* `gloo_test agent`: a rank of a gloo group that prints the sum of the
 * ranks, its environment from store_interop.py, whose store someone else
 * serves (TORCHELASTIC_USE_AGENT_STORE=True, as torchrun's agent does), or
 * from ctorchrun (tests/dist/launcher.sh: rank 0 serves the store). */
static int agent_store_rank(void)
{
    if (ct_dist_init_process_group("gloo", (ct_dist_init_opts){.timeout = 20}) != CT_OK) {
        printf("init_process_group failed: %s\n", ct_last_error());
        return 1;
    }
    ct_tensor *t = ct_full(CT_SHAPE(1), ct_int(ct_dist_get_rank(NULL)), CT_I64);
    bool ok = ct_dist_all_reduce(t, CT_REDUCE_SUM, (ct_dist_opts){0}) == CT_OK;
    if (ok) printf("sum=%lld\n", (long long)ct_item_int(t));
    ct_release(t);
    return ct_dist_destroy_process_group(NULL) == CT_OK && ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "agent") == 0) return agent_store_rank();
    if (argc == 3) return store_interop(strcmp(argv[1], "server") == 0, atoi(argv[2]));
    RUN(test_store_set_get_add_wait);
    RUN(test_store_compare_set_delete_num_keys);
    RUN(test_store_timeouts);
    RUN(test_store_port_in_use);
    RUN(test_store_unresolvable_host);
    if (has_ipv6_loopback()) {
        RUN(test_free_port_free_on_ipv6_and_ipv4);
        RUN(test_store_over_ipv6);
        RUN(test_rendezvous_over_ipv6);
    } else {
        SKIP(test_free_port_free_on_ipv6_and_ipv4, "no IPv6 loopback (::1) on this machine");
        SKIP(test_store_over_ipv6, "no IPv6 loopback (::1) on this machine");
        SKIP(test_rendezvous_over_ipv6, "no IPv6 loopback (::1) on this machine");
    }
    RUN(test_env_variables_missing);
    RUN(test_rendezvous_timeout);
    RUN(test_tcp_init_method);
    RUN(test_peer_exit_mid_collective);
    RUN(test_peer_exit_spreads_to_every_rank);
    RUN(test_abort_reaches_a_rank_that_stopped_reading);
    return ct_test_report();
}
