/* A worker for ctorchrun's tests (tests/dist/launcher.sh), driven by its arguments:
 *   env                 print the launcher's variables, one NAME=value line each
 *   exit RANK CODE      RANK exits with CODE after 1 s; the others wait to be stopped
 *   signal RANK SIG     RANK kills itself with SIG; the others wait
 *   stubborn RANK CODE  as exit, but the others ignore SIGTERM (SIGKILL must come)
 *   restart N           rank 0 exits 1 while TORCHELASTIC_RESTART_COUNT < N
 * The waiting ranks print "rank R got SIGTERM" when stopped. And, for
 * launcher.sh itself (tests/dist/free_port.h's probes):
 *   free_port           print a port free for a store (0: none)
 *   has_ipv6            exit 0 when the machine has the IPv6 loopback, else 1 */
#if !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "free_port.h"

static int rank;

static void on_term(int sig)
{
    (void)sig;
    char msg[64];
    int n = snprintf(msg, sizeof msg, "rank %d got SIGTERM\n", rank);
    if (write(1, msg, (size_t)n) < 0) _exit(2);
    _exit(143);
}

static void pause_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : -1;
}

int main(int argc, char **argv)
{
    static const char *vars[] = {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK",
                                 "GROUP_WORLD_SIZE", "ROLE_RANK", "ROLE_NAME", "ROLE_WORLD_SIZE", "MASTER_ADDR",
                                 "MASTER_PORT", "OMP_NUM_THREADS", "TORCHELASTIC_RESTART_COUNT",
                                 "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID"};
    rank = env_int("RANK");
    const char *mode = argc > 1 ? argv[1] : "env";
    if (!strcmp(mode, "env")) {
        for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
            const char *v = getenv(vars[i]);
            printf("%d %s=%s\n", rank, vars[i], v ? v : "(unset)");
        }
        return 0;
    }
    if (!strcmp(mode, "free_port")) return printf("%d\n", free_port()) < 0;
    if (!strcmp(mode, "has_ipv6")) return !has_ipv6_loopback();
    if (!strcmp(mode, "restart") && argc > 2) {
        int attempt = env_int("TORCHELASTIC_RESTART_COUNT");
        printf("rank %d attempt %d\n", rank, attempt);
        fflush(stdout);
        return rank == 0 && attempt < atoi(argv[2]) ? 1 : 0;
    }
    if (argc < 4) return 2;
    int who = atoi(argv[2]), code = atoi(argv[3]);
    if (rank == who) {
        pause_ms(1000); /* the others have set their SIGTERM handler by then */
        if (!strcmp(mode, "signal")) raise(code);
        return code;
    }
    signal(SIGTERM, !strcmp(mode, "stubborn") ? SIG_IGN : on_term);
    pause_ms(30000);
    return 0;
}
