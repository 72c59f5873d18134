/* ct_dist_spawn: torch.multiprocessing.spawn with fork. Each worker tells
 * the parent its error through a pipe of its own (PyTorch's error queue);
 * the parent polls the workers, and when one fails stops the others and
 * raises ProcessRaisedException's or ProcessExitedException's message. */
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* kill and nanosleep are POSIX: strict C11 (-std=c11) leaves them undeclared. */
#if !defined(__cplusplus) && !defined(_POSIX_C_SOURCE)
extern int kill(pid_t pid, int sig);
extern int nanosleep(const struct timespec *req, struct timespec *rem);
#endif

/* The grace period between SIGTERM and SIGKILL for the workers still
 * running when one failed (torchrun's 30 seconds). */
#define CT__SPAWN_GRACE_MS 30000

static void ct__spawn_sleep_ms(long ms)
{
    struct timespec t;
    t.tv_sec = ms / 1000, t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* Reaps the workers that have exited; returns how many still run. */
static int ct__spawn_reap(int nprocs, const pid_t *pid, int *status, bool *done)
{
    int running = 0;
    for (int i = 0; i < nprocs; i++) {
        if (done[i]) continue;
        if (waitpid(pid[i], &status[i], WNOHANG) == pid[i]) done[i] = true;
        else running++;
    }
    return running;
}

/* A signal's name as Python's signal.Signals(n).name. */
static const char *ct__spawn_signal_name(int sig)
{
    switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGSEGV: return "SIGSEGV";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGBUS: return "SIGBUS";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: return "UNKNOWN";
    }
}

/* The worker: fn's error, as "TypeName: message", goes to the parent. */
static void ct__spawn_child(int rank, ct_dist_spawn_fn fn, void *arg, int fd)
{
    ct_clear_error();
    /* one thread, as torchrun's OMP_NUM_THREADS=1; and GNU OpenMP's pool is
     * not fork-safe: a team of more than one thread after the parent used
     * OpenMP would wait for threads the fork did not copy */
    ct_set_num_threads(1);
    ct_result r = fn(rank, arg);
    if (r != CT_OK) {
        char msg[4000]; /* one write below PIPE_BUF: the parent reads it whole */
        int n = snprintf(msg, sizeof msg, "%s: %s\n", ct_result_str(r),
                         ct_last_error_code() != CT_OK ? ct_last_error() : "(no message)");
        if (n < 0 || n >= (int)sizeof msg) n = (int)sizeof msg - 1;
        if (write(fd, msg, (size_t)n) < 0) { /* the parent learns the exit code alone */
        }
    }
    fflush(NULL);
    _exit(r == CT_OK ? 0 : 1);
}

/* The failed worker's message, as PyTorch's ProcessContext.join raises it. */
static ct_result ct__spawn_fail(int rank, int status, int fd)
{
    char buf[4001];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = 0;
        return ct__dist_fail(CT_ERR_RUNTIME, "\n\n-- Process %d terminated with the following error:\n%s", rank, buf);
    }
    if (WIFSIGNALED(status))
        return ct__dist_fail(CT_ERR_RUNTIME, "process %d terminated with signal %s", rank,
                             ct__spawn_signal_name(WTERMSIG(status)));
    return ct__dist_fail(CT_ERR_RUNTIME, "process %d terminated with exit code %d", rank, WEXITSTATUS(status));
}

ct_result ct_dist_spawn(int nprocs, ct_dist_spawn_fn fn, void *arg)
{
    if (!fn) return ct__dist_fail(CT_ERR_TYPE, "'NoneType' object is not callable");
    if (nprocs < 0) return ct__dist_fail(CT_ERR_VALUE, "nprocs must be non-negative, got %d", nprocs);
    if (nprocs == 0) return CT_OK;
    pid_t *pid = (pid_t *)CT_MALLOC((size_t)nprocs * sizeof *pid);
    int *status = (int *)CT_MALLOC((size_t)nprocs * sizeof *status);
    int *fd = (int *)CT_MALLOC((size_t)nprocs * sizeof *fd);
    bool *done = (bool *)CT_MALLOC((size_t)nprocs * sizeof *done);
    if (!pid || !status || !fd || !done) {
        CT_FREE(pid), CT_FREE(status), CT_FREE(fd), CT_FREE(done);
        return ct__dist_oom();
    }
    fflush(NULL); /* what the parent buffered is printed once, not once more by each worker */
    ct_result res = CT_OK;
    int started = 0;
    for (; started < nprocs; started++) {
        int p[2];
        if (pipe(p)) {
            res = ct__dist_fail(CT_ERR_RUNTIME, "could not start process %d: pipe failed", started);
            break;
        }
        pid_t c = fork();
        if (c == 0) {
            close(p[0]);
            for (int i = 0; i < started; i++) close(fd[i]);
            ct__spawn_child(started, fn, arg, p[1]);
        }
        close(p[1]);
        if (c < 0) {
            close(p[0]);
            res = ct__dist_fail(CT_ERR_RUNTIME, "could not start process %d: fork failed", started);
            break;
        }
        pid[started] = c, fd[started] = p[0], done[started] = false, status[started] = 0;
    }
    /* join: the first worker seen failing stops the others */
    int failed = -1;
    while (ct__spawn_reap(started, pid, status, done) && res == CT_OK) {
        for (int i = 0; i < started && failed < 0; i++)
            if (done[i] && status[i] != 0) failed = i;
        if (failed >= 0) break;
        ct__spawn_sleep_ms(5);
    }
    for (int i = 0; i < started && failed < 0; i++)
        if (done[i] && status[i] != 0) failed = i;
    if (failed >= 0 || res != CT_OK) {
        for (int i = 0; i < started; i++)
            if (!done[i]) kill(pid[i], SIGTERM);
        for (long waited = 0; ct__spawn_reap(started, pid, status, done) && waited < CT__SPAWN_GRACE_MS; waited += 5)
            ct__spawn_sleep_ms(5);
        for (int i = 0; i < started; i++)
            if (!done[i]) kill(pid[i], SIGKILL);
        while (ct__spawn_reap(started, pid, status, done)) ct__spawn_sleep_ms(5);
    }
    if (failed >= 0 && res == CT_OK) res = ct__spawn_fail(failed, status[failed], fd[failed]);
    for (int i = 0; i < started; i++) close(fd[i]);
    CT_FREE(pid), CT_FREE(status), CT_FREE(fd), CT_FREE(done);
    return res;
}
