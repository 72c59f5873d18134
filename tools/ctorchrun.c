/* ctorchrun: PyTorch 1.13's torchrun (python -m torch.distributed.run) for
 * programs, with its static rendezvous: starts --nproc_per_node copies of a
 * program on this node with torchrun's environment (RANK, LOCAL_RANK,
 * WORLD_SIZE, LOCAL_WORLD_SIZE, GROUP_RANK, MASTER_ADDR, MASTER_PORT, ...),
 * watches them, stops the others when one fails (SIGTERM, then SIGKILL after
 * a grace period) and reports the failure as torchrun's ChildFailedError
 * does; restarts the whole group up to --max_restarts times.
 *
 *   ctorchrun [--nnodes N] [--nproc_per_node N] [--node_rank R]
 *             [--master_addr A] [--master_port P] [--max_restarts N]
 *             [--standalone] [--role NAME] [--monitor_interval S]
 *             [--rdzv_id ID] [--no_python] program [args...]
 *
 * Each flag also takes --flag=value, and its default from the environment
 * variable PET_<FLAG> (PET_NPROC_PER_NODE), as torchrun's do. The program is
 * run as it is (torchrun's --no_python): `ctorchrun --nproc_per_node 2 ./train`.
 * Exit status: 0 when every worker exited 0, 1 when the group failed for
 * the last time, 2 for a bad command line.
 *
 * Builds as C11 or C++17 on POSIX (make builds build/ctorchrun). */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The store's listener code, for the port probe of --standalone: a port
 * it finds is free where the workers' store binds it, IPv6 and IPv4. */
#include "../src/dist/listen.h"

typedef struct options {
    const char *nnodes, *nproc_per_node, *node_rank, *master_addr, *master_port;
    const char *max_restarts, *monitor_interval, *role, *rdzv_id;
    int standalone;
    char **program; /* the program and its arguments, NULL-terminated */
} options;

typedef struct worker {
    pid_t pid;
    int status;   /* waitpid's, once it exited */
    int exited;   /* 1 once reaped */
    time_t ended; /* when it was reaped */
} worker;

typedef struct failure {
    int local_rank, exitcode; /* exitcode: -signal for a signal, as Python's */
    pid_t pid;
    time_t when;
} failure;

static volatile sig_atomic_t death_signal; /* SIGINT/SIGTERM/SIGHUP sent to the launcher */

static void on_death_signal(int sig) { death_signal = sig; }

static void usage(FILE *f)
{
    fprintf(f, "usage: ctorchrun [-h] [--nnodes NNODES] [--nproc_per_node NPROC_PER_NODE]\n"
               "                 [--node_rank NODE_RANK] [--master_addr MASTER_ADDR]\n"
               "                 [--master_port MASTER_PORT] [--max_restarts MAX_RESTARTS]\n"
               "                 [--standalone] [--role ROLE] [--monitor_interval MONITOR_INTERVAL]\n"
               "                 [--rdzv_id RDZV_ID] [--no_python]\n"
               "                 training_script ...\n");
}

static void usage_error(const char *fmt, const char *arg)
{
    usage(stderr);
    fprintf(stderr, "ctorchrun: error: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(2);
}

/* A whole non-negative number or -1 (the caller reports). */
static long parse_count(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0) return -1;
    return v;
}

/* The flags with a value, their fields, and their PET_ variables. */
typedef struct flag {
    const char *name, *env;
    size_t offset;
    const char *def;
} flag;

static const flag flags[] = {
    {"--nnodes", "PET_NNODES", offsetof(options, nnodes), "1"},
    {"--nproc_per_node", "PET_NPROC_PER_NODE", offsetof(options, nproc_per_node), "1"},
    {"--node_rank", "PET_NODE_RANK", offsetof(options, node_rank), "0"},
    {"--master_addr", "PET_MASTER_ADDR", offsetof(options, master_addr), "127.0.0.1"},
    {"--master_port", "PET_MASTER_PORT", offsetof(options, master_port), "29500"},
    {"--max_restarts", "PET_MAX_RESTARTS", offsetof(options, max_restarts), "0"},
    {"--monitor_interval", "PET_MONITOR_INTERVAL", offsetof(options, monitor_interval), "5"},
    {"--role", "PET_ROLE", offsetof(options, role), "default"},
    {"--rdzv_id", "PET_RDZV_ID", offsetof(options, rdzv_id), "none"},
};
#define NFLAGS (sizeof flags / sizeof flags[0])

static const char **field(options *o, const flag *f) { return (const char **)(void *)((char *)o + f->offset); }

static options parse_args(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    for (size_t i = 0; i < NFLAGS; i++) {
        const char *env = getenv(flags[i].env);
        *field(&o, &flags[i]) = env && *env ? env : flags[i].def;
    }
    const char *standalone = getenv("PET_STANDALONE");
    o.standalone = standalone && *standalone;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) { i++; break; }
        if (!strcmp(a, "--help")) { usage(stdout); exit(0); }
        if (!strcmp(a, "--standalone")) { o.standalone = 1; continue; }
        if (!strcmp(a, "--no_python")) continue; /* programs always run as they are */
        size_t k = 0, len = strcspn(a, "=");
        while (k < NFLAGS && (strlen(flags[k].name) != len || strncmp(flags[k].name, a, len))) k++;
        if (k == NFLAGS) usage_error("unrecognized arguments: %s", a);
        if (a[len] == '=') *field(&o, &flags[k]) = a + len + 1;
        else if (i + 1 < argc) *field(&o, &flags[k]) = argv[++i];
        else usage_error("argument %s: expected one argument", flags[k].name);
    }
    if (i < argc && !strcmp(argv[i], "-h")) { usage(stdout); exit(0); }
    if (i >= argc) usage_error("the following arguments are required: %s", "training_script, training_script_args");
    o.program = argv + i;
    return o;
}

/* torchrun's --nnodes is MIN[:MAX]; a static rendezvous needs MIN == MAX. */
static long parse_nnodes(const char *s)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", s);
    char *colon = strchr(buf, ':');
    if (colon) *colon = 0;
    long lo = parse_count(buf), hi = colon ? parse_count(colon + 1) : lo;
    if (lo < 1 || hi < 1) usage_error("argument --nnodes: invalid value: '%s'", s);
    if (lo != hi) usage_error("--nnodes %s: elastic ranges need a rendezvous backend; ctorchrun's rendezvous is static", s);
    return lo;
}

/* torchrun's determine_local_world_size: a number, or "cpu"/"auto" (the CPU count here). */
static long parse_nproc(const char *s)
{
    if (!strcmp(s, "cpu") || !strcmp(s, "auto")) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        return n > 0 ? n : 1;
    }
    if (!strcmp(s, "gpu")) {
        fprintf(stderr, "ctorchrun: ValueError: Cuda is not available.\n");
        exit(2);
    }
    long n = parse_count(s);
    if (n < 1) {
        fprintf(stderr, "ctorchrun: ValueError: Unsupported nproc_per_node value: %s\n", s);
        exit(2);
    }
    return n;
}

/* The master address as torchrun's workers get it: its static rendezvous
 * reads the endpoint "MASTER_ADDR:MASTER_PORT" with
 * parse_rendezvous_endpoint, which takes an IPv6 address bare (::1) or in
 * brackets ([::1]), gives it bare, and wants a host of letters, digits,
 * '_', '.', ':' and '-' (its ValueError otherwise). */
static const char *master_host(const char *addr, const char *port, char *buf, size_t n)
{
    size_t len = strlen(addr);
    int bracketed = len > 1 && addr[0] == '[' && addr[len - 1] == ']';
    snprintf(buf, n, "%.*s", (int)(bracketed ? len - 2 : len), addr + bracketed);
    if (!*buf || buf[strspn(buf, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:-")]) {
        fprintf(stderr, "ctorchrun: ValueError: The hostname of the rendezvous endpoint '%s:%s' must be a "
                        "dot-separated list of labels, an IPv4 address, or an IPv6 address.\n", addr, port);
        exit(2);
    }
    return buf;
}

static void setenv_long(const char *name, long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%ld", v);
    setenv(name, buf, 1);
}

typedef struct group {
    long nnodes, nproc, node_rank, max_restarts, restart_count;
    const char *master_addr, *master_port, *role, *run_id;
    char **program;
    worker *w;
} group;

/* torchrun's worker environment (LocalElasticAgent._start_workers). */
static void start_worker(group *g, int local_rank)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("ctorchrun: fork");
        g->w[local_rank].exited = 1, g->w[local_rank].status = 127 << 8;
        g->w[local_rank].ended = time(NULL);
        return;
    }
    if (pid > 0) {
        g->w[local_rank].pid = pid, g->w[local_rank].exited = 0, g->w[local_rank].status = 0;
        return;
    }
    signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL);
    long rank = g->node_rank * g->nproc + local_rank, world = g->nnodes * g->nproc;
    setenv_long("LOCAL_RANK", local_rank);
    setenv_long("RANK", rank);
    setenv_long("GROUP_RANK", g->node_rank);
    setenv_long("ROLE_RANK", rank);
    setenv("ROLE_NAME", g->role, 1);
    setenv_long("LOCAL_WORLD_SIZE", g->nproc);
    setenv_long("WORLD_SIZE", world);
    setenv_long("GROUP_WORLD_SIZE", g->nnodes);
    setenv_long("ROLE_WORLD_SIZE", world);
    setenv("MASTER_ADDR", g->master_addr, 1);
    setenv("MASTER_PORT", g->master_port, 1);
    setenv_long("TORCHELASTIC_RESTART_COUNT", g->restart_count);
    setenv_long("TORCHELASTIC_MAX_RESTARTS", g->max_restarts);
    setenv("TORCHELASTIC_RUN_ID", g->run_id, 1);
    /* torchrun's agent serves a TCPStore on the master port and says so;
     * ctorchrun serves none, so rank 0's init_process_group serves it */
    unsetenv("TORCHELASTIC_USE_AGENT_STORE");
    setenv("NCCL_ASYNC_ERROR_HANDLING", "1", 0);
    execvp(g->program[0], g->program);
    fprintf(stderr, "ctorchrun: cannot run %s: %s\n", g->program[0], strerror(errno));
    _exit(127);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reaps whatever has exited; returns how many workers still run. */
static int reap(group *g)
{
    int running = 0;
    for (long i = 0; i < g->nproc; i++) {
        worker *w = &g->w[i];
        if (w->exited) continue;
        pid_t r = waitpid(w->pid, &w->status, WNOHANG);
        if (r == w->pid) w->exited = 1, w->ended = time(NULL);
        else running++;
    }
    return running;
}

static int exitcode(int status) { return WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status); }

/* torchrun's PContext.close: SIGTERM to the workers still running, SIGKILL
 * to those left after the grace period (CTORCHRUN_TERM_TIMEOUT seconds, 30
 * by default as torchrun's), then every one reaped. */
static void stop_workers(group *g)
{
    const char *env = getenv("CTORCHRUN_TERM_TIMEOUT");
    double grace = env && *env ? atof(env) : 30.0;
    for (long i = 0; i < g->nproc; i++)
        if (!g->w[i].exited) kill(g->w[i].pid, SIGTERM);
    double deadline = now() + grace;
    while (reap(g) && now() < deadline) sleep_ms(10);
    for (long i = 0; i < g->nproc; i++)
        if (!g->w[i].exited) kill(g->w[i].pid, SIGKILL);
    while (reap(g)) sleep_ms(10);
}

static const char *signal_name(int sig)
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGHUP, "SIGHUP"}, {SIGINT, "SIGINT"}, {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"}, {SIGTRAP, "SIGTRAP"},
        {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},
        {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"}, {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
        {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"}, {SIGTSTP, "SIGTSTP"}, {SIGXCPU, "SIGXCPU"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    return "UNKNOWN";
}

/* One failure as torchrun's _FAILURE_FORMAT_TEMPLATE; returns its widest line. */
static int format_failure(char *buf, size_t n, int idx, const group *g, const failure *f)
{
    char when[32], host[256], trace[128];
    struct tm tm;
    localtime_r(&f->when, &tm);
    strftime(when, sizeof when, "%Y-%m-%d_%H:%M:%S", &tm);
    if (gethostname(host, sizeof host)) snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    if (f->exitcode < 0)
        snprintf(trace, sizeof trace, "Signal %d (%s) received by PID %ld", -f->exitcode, signal_name(-f->exitcode),
                 (long)f->pid);
    else
        snprintf(trace, sizeof trace, "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html");
    snprintf(buf, n,
             "[%d]:\n  time      : %s\n  host      : %s\n  rank      : %ld (local_rank: %d)\n"
             "  exitcode  : %d (pid: %ld)\n  error_file: <N/A>\n  traceback : %s",
             idx, when, host, g->node_rank * g->nproc + f->local_rank, f->local_rank, f->exitcode, (long)f->pid, trace);
    int width = 0, cur = 0;
    for (const char *c = buf; *c; c++) {
        if (*c == '\n') cur = 0;
        else if (++cur > width) width = cur;
    }
    return width;
}

/* torchrun's ChildFailedError message: the failures observed when the group
 * failed, in rank order, the first observed one as the root cause. */
static void report_failures(const group *g, const failure *fs, int nf, int root)
{
    char title[512], line[61];
    snprintf(title, sizeof title, "%s FAILED", g->program[0]);
    int width = (int)strlen(title);
    char(*text)[1024] = (char(*)[1024])malloc((size_t)nf * sizeof *text);
    if (!text) return;
    for (int i = 0; i < nf; i++) {
        int w = format_failure(text[i], sizeof text[i], i, g, &fs[i]);
        if (w > width) width = w;
    }
    if (width > 60) width = 60;
    fprintf(stderr, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n");
    memset(line, '=', (size_t)width), line[width] = 0;
    fprintf(stderr, "%s\n%s\n", line, title);
    memset(line, '-', (size_t)width);
    fprintf(stderr, "%s\nFailures:\n", line);
    int others = 0;
    for (int i = 0; i < nf; i++)
        if (i != root) fprintf(stderr, "%s%s", others++ ? "\n" : "", text[i]);
    fprintf(stderr, "%s\n%s\nRoot Cause (first observed failure):\n%s\n", others ? "" : "  <NO_OTHER_FAILURES>", line,
            text[root]);
    memset(line, '=', (size_t)width);
    fprintf(stderr, "%s\n", line);
    free(text);
}

/* Runs the group once: 0 when every worker exited 0, 1 when one failed (the
 * failures then in fs, *root the first), -1 when the launcher was signalled. */
static int run_group(group *g, failure *fs, int *nf, int *root)
{
    for (long i = 0; i < g->nproc; i++) start_worker(g, (int)i);
    *nf = 0;
    for (;;) {
        int running = reap(g);
        int first = -1;
        time_t first_when = 0;
        for (long i = 0; i < g->nproc; i++)
            if (g->w[i].exited && g->w[i].status != 0 && (first < 0 || g->w[i].ended < first_when))
                first = (int)i, first_when = g->w[i].ended;
        if (first >= 0) {
            for (long i = 0; i < g->nproc; i++) {
                const worker *w = &g->w[i];
                if (!w->exited || w->status == 0) continue;
                if ((int)i == first) *root = *nf;
                failure f = {(int)i, exitcode(w->status), w->pid, w->ended};
                fs[(*nf)++] = f;
            }
            stop_workers(g);
            return 1;
        }
        if (!running) return 0;
        if (death_signal) {
            fprintf(stderr, "WARNING:ctorchrun:Received %d death signal, shutting down workers\n", (int)death_signal);
            stop_workers(g);
            return -1;
        }
        sleep_ms(10);
    }
}

int main(int argc, char **argv)
{
    options o = parse_args(argc, argv);
    group g;
    memset(&g, 0, sizeof g);
    g.nnodes = parse_nnodes(o.nnodes);
    g.nproc = parse_nproc(o.nproc_per_node);
    g.node_rank = parse_count(o.node_rank);
    g.max_restarts = parse_count(o.max_restarts);
    long port = parse_count(o.master_port);
    if (g.node_rank < 0) usage_error("argument --node_rank: invalid int value: '%s'", o.node_rank);
    if (g.max_restarts < 0) usage_error("argument --max_restarts: invalid int value: '%s'", o.max_restarts);
    if (port < 0 || port > 65535) usage_error("argument --master_port: invalid int value: '%s'", o.master_port);
    if (g.node_rank >= g.nnodes)
        usage_error("--node_rank %s: must be in [0, nnodes)", o.node_rank);
    char port_buf[16], addr_buf[256];
    g.master_port = o.master_port;
    if (!o.standalone) g.master_addr = master_host(o.master_addr, o.master_port, addr_buf, sizeof addr_buf);
    else { /* one node, a fresh endpoint on this host */
        g.nnodes = 1, g.node_rank = 0, g.master_addr = "127.0.0.1";
        int picked = ct__sock_free_port(); /* torchrun's c10d rendezvous picks one too */
        snprintf(port_buf, sizeof port_buf, "%d", picked ? picked : 29500);
        g.master_port = port_buf;
    }
    g.role = o.role, g.run_id = o.rdzv_id, g.program = o.program;

    if (!getenv("OMP_NUM_THREADS") && g.nproc > 1) {
        fprintf(stderr, "WARNING:ctorchrun:\n*****************************************\n"
                        "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid "
                        "your system being overloaded, please further tune the variable for optimal performance in "
                        "your application as needed. \n*****************************************\n");
        setenv("OMP_NUM_THREADS", "1", 1);
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_death_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL), sigaction(SIGTERM, &sa, NULL), sigaction(SIGHUP, &sa, NULL);

    g.w = (worker *)calloc((size_t)g.nproc, sizeof *g.w);
    failure *fs = (failure *)calloc((size_t)g.nproc, sizeof *fs);
    if (!g.w || !fs) {
        fprintf(stderr, "ctorchrun: out of memory\n");
        return 1;
    }
    int status = 0;
    for (long remaining = g.max_restarts;; remaining--) {
        g.restart_count = g.max_restarts - remaining;
        int nf = 0, root = 0, r = run_group(&g, fs, &nf, &root);
        if (r == 0) break;
        if (r < 0) { /* torchrun dies of the signal it was sent, after stopping its workers */
            int sig = death_signal;
            free(g.w), free(fs);
            signal(sig, SIG_DFL);
            raise(sig);
            return 128 + sig;
        }
        if (remaining > 0) {
            fprintf(stderr, "WARNING:ctorchrun:[%s] Worker group FAILED. %ld/%ld attempts left; will restart worker group\n",
                    g.role, remaining, g.max_restarts);
            continue;
        }
        report_failures(&g, fs, nf, root);
        status = 1;
        break;
    }
    free(g.w), free(fs);
    return status;
}
