/* Process groups: the default group that init_process_group makes, the
 * groups new_group makes from it, and the questions about them. */

/* The default group (GroupMember.WORLD) and, after it, every group made by
 * new_group, which it owns. */
static ct_process_group *ct__dist_world;

/* The backends this build has, by name (the table of c10d's Backend). */
static const ct__dist_backend *ct__dist_backend_named(const char *name);

static ct_result ct__dist_fail(ct_result code, const char *fmt, ...) CT__DIST_PRINTF(2, 3);
static ct_result ct__dist_fail(ct_result code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ct_set_error(code, msg);
}

static ct_result ct__dist_oom(void) { return ct__dist_fail(CT_ERR_MEMORY, "DefaultCPUAllocator: not enough memory"); }

/* CT_MALLOC that fails with PyTorch's out-of-memory error (0 bytes ask for 1). */
static void *ct__dist_alloc(size_t bytes)
{
    void *p = CT_MALLOC(bytes ? bytes : 1);
    if (!p) ct__dist_oom();
    return p;
}

/* A copy of a message, or NULL when there is no memory for it. */
static char *ct__dist_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = (char *)CT_MALLOC(n);
    if (copy) memcpy(copy, s, n);
    return copy;
}

static const char ct__dist_not_initialized[] =
    "Default process group has not been initialized, please make sure to call init_process_group.";

/* The group a function was given: the default one for NULL. */
static ct_process_group *ct__dist_group(const ct_process_group *group)
{
    if (!ct__dist_world) {
        ct__dist_fail(CT_ERR_RUNTIME, "%s", ct__dist_not_initialized);
        return NULL;
    }
    return group ? (ct_process_group *)group : ct__dist_world;
}


static ct_process_group *ct__dist_group_new(const ct__dist_backend *backend, void *comm, int rank, int size,
                                            double timeout)
{
    ct_process_group *g = (ct_process_group *)ct__dist_alloc(sizeof *g);
    int *global = g ? (int *)ct__dist_alloc((size_t)size * sizeof *global) : NULL;
    if (!global) {
        CT_FREE(g);
        return NULL;
    }
    memset(g, 0, sizeof *g);
    if (comm && backend->split(comm, true, rank, &g->control) != CT_OK) {
        CT_FREE(g);
        CT_FREE(global);
        return NULL;
    }
    g->backend = backend;
    g->comm = comm;
    g->rank = rank;
    g->size = size;
    g->global = global;
    g->timeout = timeout;
    for (int i = 0; i < size; i++) global[i] = i;
    return g;
}

static void ct__dist_group_free(ct_process_group *g)
{
    while (g->pending) ct_work_free(g->pending); /* unlinks itself */
    if (g->comm) g->backend->free_comm(g->comm);
    if (g->control) g->backend->free_comm(g->control);
    CT_FREE(g->spare);
    CT_FREE(g->global);
    CT_FREE(g);
}

/* init_process_group's rendezvous arguments, checked as PyTorch checks them:
 * an env:// rendezvous needs RANK and WORLD_SIZE unless they were given. */
static ct_result ct__dist_check_init_opts(const ct_dist_init_opts *opts)
{
    const char *method = opts->init_method ? opts->init_method : "env://";
    if (strncmp(method, "env://", 6) != 0 && strncmp(method, "tcp://", 6) != 0 && strncmp(method, "file://", 7) != 0)
        return ct__dist_fail(CT_ERR_RUNTIME, "No rendezvous handler for %.*s://", (int)strcspn(method, ":"), method);
    if (opts->world_size < 0) return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: world_size must be positive");
    if (opts->world_size > 0 && (opts->rank < 0 || opts->rank >= opts->world_size))
        return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: rank must be "
                                           "in the range [0, world_size)");
    if (opts->timeout < 0) return ct__dist_fail(CT_ERR_VALUE, "timeout must be a positive number of seconds");
    return CT_OK;
}

ct_result ct_dist_init_process_group(const char *backend, ct_dist_init_opts opts)
{
    if (ct__dist_world)
        return ct__dist_fail(CT_ERR_RUNTIME, "trying to initialize the default process group twice!");
    if (!backend) return ct__dist_fail(CT_ERR_VALUE, "Backend name must be a string, but got: NULL");
    const ct__dist_backend *b = ct__dist_backend_named(backend);
    if (!b) return ct_last_error_code();
    ct_result res = ct__dist_check_init_opts(&opts);
    int rank = -1, size = -1;
    void *world = NULL;
    if (res == CT_OK) res = b->init(&opts, &rank, &size, &world);
    if (res == CT_OK) {
        ct__dist_world = ct__dist_group_new(b, world, rank, size, opts.timeout > 0 ? opts.timeout : 1800.0);
        if (!ct__dist_world) res = ct_last_error_code();
    }
    if (res != CT_OK && world) b->free_comm(world);
    return res;
}

bool ct_dist_is_initialized(void) { return ct__dist_world != NULL; }

ct_result ct_dist_destroy_process_group(ct_process_group *group)
{
    if (!ct__dist_world) return ct__dist_fail(CT_ERR_RUNTIME, "%s", ct__dist_not_initialized);
    if (group && group != ct__dist_world) {
        ct_process_group **link = &ct__dist_world->next_group;
        while (*link && *link != group) link = &(*link)->next_group;
        if (!*link) return ct__dist_fail(CT_ERR_RUNTIME, "Invalid process group specified");
        *link = group->next_group;
        ct__dist_group_free(group);
        return CT_OK;
    }
    while (ct__dist_world->next_group) ct_dist_destroy_process_group(ct__dist_world->next_group);
    ct__dist_group_free(ct__dist_world);
    ct__dist_world = NULL;
    return CT_OK;
}

int ct_dist_get_rank(const ct_process_group *group)
{
    const ct_process_group *g = ct__dist_group(group);
    return g ? g->rank : -1;
}

int ct_dist_get_world_size(const ct_process_group *group)
{
    const ct_process_group *g = ct__dist_group(group);
    return g ? (g->rank < 0 ? -1 : g->size) : -1;
}

const char *ct_dist_get_backend(const ct_process_group *group)
{
    const ct_process_group *g = ct__dist_group(group);
    if (g && g->rank < 0) {
        ct__dist_fail(CT_ERR_RUNTIME, "Invalid process group specified");
        return NULL;
    }
    return g ? g->backend->name : NULL;
}

ct_distributed_sampler_opts ct_dist_sampler_opts_init(void)
{
    ct_distributed_sampler_opts o = ct_distributed_sampler_opts_init();
    const ct_process_group *g = ct__dist_group(NULL);
    if (g) {
        o.num_replicas = g->size;
        o.rank = g->rank;
    }
    return o;
}

/* new_group's ranks, checked and sorted (PyTorch sorts them too). */
static int *ct__dist_sorted_ranks(const int *ranks, int n, int world_size)
{
    int *sorted = (int *)ct__dist_alloc((size_t)n * sizeof *sorted);
    if (!sorted) return NULL;
    for (int i = 0; i < n; i++) {
        int r = ranks ? ranks[i] : i, j = i;
        if (r < 0 || r >= world_size) {
            CT_FREE(sorted);
            ct__dist_fail(CT_ERR_RUNTIME, "The new group's rank should be within the the world_size set by "
                                          "init_process_group");
            return NULL;
        }
        for (; j > 0 && sorted[j - 1] > r; j--) sorted[j] = sorted[j - 1];
        if (j > 0 && sorted[j - 1] == r) {
            CT_FREE(sorted);
            ct__dist_fail(CT_ERR_VALUE, "ranks passed to new_group must be unique, but %d is given twice", r);
            return NULL;
        }
        sorted[j] = r;
    }
    return sorted;
}

ct_process_group *ct_dist_new_group(const int *ranks, int n_ranks, double timeout)
{
    ct_process_group *world = ct__dist_group(NULL);
    if (!world) return NULL;
    if (!ranks || n_ranks <= 0) n_ranks = world->size, ranks = NULL;
    int *sorted = ct__dist_sorted_ranks(ranks, n_ranks, world->size);
    if (!sorted) return NULL;
    int my_rank = -1;
    for (int i = 0; i < n_ranks; i++)
        if (sorted[i] == world->rank) my_rank = i;
    void *comm = NULL;
    if (world->backend->split(world->comm, my_rank >= 0, world->rank, &comm) != CT_OK) {
        CT_FREE(sorted);
        return NULL;
    }
    ct_process_group *g = ct__dist_group_new(world->backend, comm, my_rank, n_ranks, timeout > 0 ? timeout : world->timeout);
    if (!g) {
        if (comm) world->backend->free_comm(comm);
        CT_FREE(sorted);
        return NULL;
    }
    memcpy(g->global, sorted, (size_t)n_ranks * sizeof *sorted);
    CT_FREE(sorted);
    g->next_group = world->next_group;
    world->next_group = g;
    return g;
}

/* A global rank as a rank of group g (PyTorch's _get_group_rank). */
static int ct__dist_group_rank(const ct_process_group *g, int global_rank)
{
    for (int i = 0; i < g->size; i++)
        if (g->global[i] == global_rank) return i;
    return -1;
}
