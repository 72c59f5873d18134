/* The gloo backend: ctorch's own transport over TCP, named after PyTorch's
 * CPU backend (ProcessGroupGloo) so that programs written for torchrun
 * run as they are. Only POSIX sockets and threads.
 *
 * init makes the rendezvous through a TCP store (env:// or tcp://), which
 * rank 0 serves, or torchrun's agent when it says it does: each rank
 * publishes the address it listens on, connects to the lower ranks
 * and accepts the higher ones, so that every pair of ranks shares one
 * socket. One engine thread per process owns the sockets: it writes the
 * queued messages and reads every incoming one as it comes (into the
 * receive posted for it, or into a buffer kept until one is), so a send
 * never waits for its receiver and two ranks sending each other large
 * buffers cannot deadlock. A message carries its communicator's context
 * and a tag; receives match them in posting order, as MPI's do.
 *
 * Each communicator (a group's data, or its control messages) has a worker
 * thread that runs its collectives one after the other in posting order
 * (the front end has every rank post the same ones in the same order),
 * each as steps of sends and receives on the engine. The program's sends
 * and receives go to the engine directly.
 *
 * A lost connection fails the operations that need its peer. One that
 * failed so aborts the engine: all its operations fail with the same
 * message, and it tells every other rank, which aborts too, so that the
 * ranks waiting on a survivor (one that gave up) fail at once rather than
 * at their timeout. Its close waits, up to the timeout, until the others
 * have read that message, so that even a rank that had stopped reading
 * names the first failure. */

#define CT__TCP_COLLECTIVE_TAG (-1) /* a worker's collective messages */
#define CT__TCP_SETUP_TAG (-2)      /* init's and split's exchanges, made by the calling thread */
/* An aborted engine's close delivers its abort messages for at most this
 * many seconds (or the group's timeout, when shorter): a peer that has not
 * read them by then is hung, and destroy_process_group must not wait on it
 * for the default timeout's 30 minutes. */
#define CT__TCP_ABORT_LINGER 10.0
#define CT__TCP_ABORT_TAG (-3)      /* an aborting engine's message to the others: why */
#define CT__TCP_MAGIC 0x63744750u   /* a mesh connection's hello */
#define CT__TCP_ERROR_LEN 320

typedef struct ct__tcp_header {
    uint64_t ctx;
    int32_t tag;
    uint32_t unused;
    uint64_t len;
} ct__tcp_header;

/* A send or receive on the engine. */
typedef struct ct__tcp_req {
    struct ct__tcp_req *next;
    uint64_t ctx;
    int tag, peer; /* peer: a world rank; -1 for a receive from any */
    bool sending, complete, failed;
    bool orphan; /* the engine's own (an abort message, its text in error; the rest of an aborted send, after
                    it): freed once it went */
    char *buf;
    size_t len;   /* a send's bytes; a receive's capacity, then what arrived */
    size_t moved; /* a send's bytes of header and payload written */
    ct__tcp_header header;
    int source;
    char error[CT__TCP_ERROR_LEN];
} ct__tcp_req;

/* A message that arrived before its receive was posted. */
typedef struct ct__tcp_held {
    struct ct__tcp_held *next;
    uint64_t ctx;
    int tag, source;
    char *data;
    size_t len;
    bool arrived, dropped; /* dropped: its receive was cancelled while it arrived */
    ct__tcp_req *claimed;  /* the receive that took it while it was still arriving */
} ct__tcp_held;

typedef struct ct__tcp_peer {
    int fd; /* -1 for this rank, or once lost */
    bool lost;
    bool shut; /* shut for writing: the engine closes, waiting for the peer to read all */
    char addr[64]; /* [ip]:port, for messages */
    char why[CT__TCP_ERROR_LEN];
    ct__tcp_req *sends, *sends_tail; /* the first may be partly written */
    ct__tcp_header in;               /* the incoming message's header */
    size_t in_have;                  /* its bytes read so far */
    char *in_dst;                    /* where its payload goes; NULL: dropped */
    size_t in_left;                  /* payload bytes still to read */
    ct__tcp_req *in_req;             /* the receive it completes, or */
    ct__tcp_held *in_held;           /* the held message it fills */
    char abort_in[CT__TCP_ERROR_LEN]; /* an abort message's text, as it arrives */
} ct__tcp_peer;

typedef struct ct__tcp_engine {
    int rank, size, refs;
    ct__tcp_peer *peers;
    struct pollfd *polled;
    int *polled_peer;
    pthread_mutex_t lock;
    pthread_cond_t progress; /* a request completed, a job was queued, or a comm closes */
    uint64_t completions;    /* requests and jobs completed so far */
    uint64_t tested;         /* completions when the program's thread last found its work running */
    pthread_t thread;
    bool running, stop;
    int wake[2];
    ct__tcp_req *posted, *posted_tail; /* receives not matched yet */
    ct__tcp_held *held;                /* messages not received yet, oldest first */
    bool aborted;                      /* an operation failed for a lost peer: all do now */
    char abort_why[CT__TCP_ERROR_LEN];
    double linger, linger_deadline;    /* how long, and until when, an aborted engine's close delivers its abort
                                          messages (ct__tcp_lingers) */
} ct__tcp_engine;

/* An operation posted on a communicator: a collective for its worker, or a
 * send or receive that the engine moves (p2p). */
typedef struct ct__tcp_job {
    struct ct__tcp_job *next;
    struct ct__tcp_comm *comm;
    ct__dist_op op;
    ct__tcp_req *p2p;
    bool complete, failed;
    char error[CT__TCP_ERROR_LEN];
} ct__tcp_job;

typedef struct ct__tcp_comm {
    ct__tcp_engine *engine;
    uint64_t ctx, splits;
    int rank, size;
    int *world;                    /* comm rank -> world rank */
    ct__tcp_job *jobs, *jobs_tail; /* collectives waiting for the worker */
    bool closing;
    pthread_t worker;
} ct__tcp_comm;

/* One transfer of a collective's step, with a rank of the communicator. */
typedef struct ct__tcp_xfer {
    int peer;
    bool sending;
    char *buf;
    size_t len;
} ct__tcp_xfer;

/* ---------------------------------------------------------------- engine (lock held) */

static ct__tcp_req *ct__tcp_req_new(uint64_t ctx, int tag, int peer, bool sending, void *buf, size_t len)
{
    ct__tcp_req *q = (ct__tcp_req *)CT_MALLOC(sizeof *q);
    if (!q) return NULL;
    memset(q, 0, sizeof *q);
    q->ctx = ctx, q->tag = tag, q->peer = peer, q->sending = sending, q->buf = (char *)buf, q->len = len;
    q->source = -1;
    q->header.ctx = ctx, q->header.tag = tag, q->header.len = len;
    return q;
}

static void ct__tcp_finish(ct__tcp_engine *e, ct__tcp_req *q, const char *error)
{
    if (q->orphan) { /* nobody waits for it */
        CT_FREE(q);
        return;
    }
    q->complete = true;
    if (error) q->failed = true, snprintf(q->error, sizeof q->error, "%s", error);
    e->completions++;
    pthread_cond_broadcast(&e->progress);
}

static void ct__tcp_unlink_held(ct__tcp_engine *e, ct__tcp_held *h)
{
    ct__tcp_held **link = &e->held;
    while (*link && *link != h) link = &(*link)->next;
    if (*link) *link = h->next;
    CT_FREE(h->data);
    CT_FREE(h);
}

static void ct__tcp_unlink_posted(ct__tcp_engine *e, ct__tcp_req *q)
{
    ct__tcp_req **link = &e->posted, *prev = NULL;
    while (*link && *link != q) prev = *link, link = &(*link)->next;
    if (!*link) return;
    *link = q->next;
    if (e->posted_tail == q) e->posted_tail = prev;
}

/* The connection to p is gone: every operation that needs p fails; true
 * when one did. */
static bool ct__tcp_lose(ct__tcp_engine *e, int p, int err)
{
    ct__tcp_peer *peer = &e->peers[p];
    if (peer->lost) return false;
    bool failed = peer->sends || peer->in_req || (peer->in_held && peer->in_held->claimed);
    peer->lost = true;
    bool closed = err == 0 || err == ECONNRESET || err == EPIPE; /* it exited, or closed its end */
    if (!closed) snprintf(peer->why, sizeof peer->why, "Connection with peer %s (rank %d) failed: %s", peer->addr, p, strerror(err));
    else snprintf(peer->why, sizeof peer->why, "Connection closed by peer %s (rank %d)", peer->addr, p);
    close(peer->fd);
    peer->fd = -1;
    for (ct__tcp_req *q = peer->sends; q; q = peer->sends) peer->sends = q->next, ct__tcp_finish(e, q, peer->why);
    if (peer->in_req) ct__tcp_finish(e, peer->in_req, peer->why);
    if (peer->in_held) {
        if (peer->in_held->claimed) ct__tcp_finish(e, peer->in_held->claimed, peer->why);
        ct__tcp_unlink_held(e, peer->in_held);
    }
    peer->in_req = NULL, peer->in_held = NULL;
    for (ct__tcp_req *q = e->posted, *next; q; q = next) {
        next = q->next;
        if (q->peer == p) ct__tcp_unlink_posted(e, q), ct__tcp_finish(e, q, peer->why), failed = true;
    }
    return failed;
}

static void ct__tcp_write(ct__tcp_engine *e, int p);
static void ct__tcp_wake(ct__tcp_engine *e);

/* Queues a send to p, and writes as much as the socket takes now. */
static void ct__tcp_queue_send(ct__tcp_engine *e, int p, ct__tcp_req *q)
{
    ct__tcp_peer *to = &e->peers[p];
    if (to->sends_tail) to->sends_tail->next = q;
    else to->sends = q;
    to->sends_tail = q;
    ct__tcp_write(e, p);
    if (to->sends) ct__tcp_wake(e); /* the engine polls for room */
}

/* An orphan that sends what q has not written yet, the rest of its header
 * and its payload copied (q's caller may free its buffer once q failed);
 * NULL when out of memory. */
static ct__tcp_req *ct__tcp_rest_of(const ct__tcp_req *q)
{
    size_t sent = q->moved > sizeof q->header ? q->moved - sizeof q->header : 0, left = q->len - sent;
    ct__tcp_req *r = (ct__tcp_req *)CT_MALLOC(sizeof *r + left);
    if (!r) return NULL;
    *r = *q;
    r->next = NULL, r->orphan = true, r->buf = (char *)(r + 1), r->len = left, r->moved = q->moved - sent;
    if (left) memcpy(r->buf, q->buf + sent, left);
    return r;
}

/* On abort, p's queued sends fail with the abort's message, as their
 * operations do, rather than keep the abort message behind them: a rank
 * that reads slowly, or not at all for a while (stopped), would get it
 * only after all they hold. One already partly written must still end, or
 * the stream breaks: its rest goes on as an orphan, copied (or, without
 * the memory, the connection closes). */
static void ct__tcp_drop_sends(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    ct__tcp_req *rest = NULL;
    if (peer->sends && peer->sends->moved > 0 && !(rest = ct__tcp_rest_of(peer->sends))) {
        ct__tcp_lose(e, p, ENOMEM);
        return;
    }
    for (ct__tcp_req *q = peer->sends; q; q = peer->sends) peer->sends = q->next, ct__tcp_finish(e, q, e->abort_why);
    peer->sends = peer->sends_tail = rest;
}

/* An operation failed because a peer was lost, here or (the message of
 * another rank) there: the group cannot go on, as after NCCL's
 * communicator abort. Every operation in flight fails with why, and so does
 * every one posted later; every rank still connected is told why, right
 * after the message being written to it, so that a rank waiting on this
 * one fails at once, naming the lost peer, rather than at its timeout. */
static void ct__tcp_abort(ct__tcp_engine *e, const char *why)
{
    if (e->aborted) return;
    e->aborted = true;
    snprintf(e->abort_why, sizeof e->abort_why, "%s", why);
    for (ct__tcp_req *q = e->posted, *next; q; q = next) next = q->next, ct__tcp_finish(e, q, e->abort_why);
    e->posted = e->posted_tail = NULL;
    for (ct__tcp_held *h = e->held; h; h = h->next)
        if (h->claimed) ct__tcp_finish(e, h->claimed, e->abort_why), h->claimed = NULL, h->dropped = true;
    for (int p = 0; p < e->size; p++) {
        ct__tcp_peer *peer = &e->peers[p];
        if (peer->in_req) ct__tcp_finish(e, peer->in_req, e->abort_why), peer->in_req = NULL, peer->in_dst = NULL;
    }
    for (int p = 0; p < e->size; p++) {
        if (p == e->rank || e->peers[p].lost) continue;
        ct__tcp_drop_sends(e, p);
        if (e->peers[p].lost) continue; /* no memory to end the message being written */
        ct__tcp_req *q = ct__tcp_req_new(0, CT__TCP_ABORT_TAG, p, true, NULL, strlen(e->abort_why));
        if (!q) continue; /* that rank learns of the loss by itself, or at its timeout */
        q->orphan = true, q->buf = q->error;
        snprintf(q->error, sizeof q->error, "%s", e->abort_why);
        ct__tcp_queue_send(e, p, q);
    }
}

/* The connection to p ended (the peer closed it, or the network failed):
 * an operation that needed p aborts the engine. */
static void ct__tcp_lost(ct__tcp_engine *e, int p, int err)
{
    if (ct__tcp_lose(e, p, err)) ct__tcp_abort(e, e->peers[p].why);
}

/* A request for p, which is lost: it fails, and so does the engine. */
static void ct__tcp_fail_lost(ct__tcp_engine *e, ct__tcp_req *q, int p)
{
    ct__tcp_finish(e, q, e->peers[p].why);
    ct__tcp_abort(e, e->peers[p].why);
}

static bool ct__tcp_matches(const ct__tcp_req *q, uint64_t ctx, int tag, int source)
{
    return q->ctx == ctx && q->tag == tag && (q->peer < 0 || q->peer == source);
}

/* A header arrived from p: its payload goes to the first matching receive,
 * or into a held buffer. */
static void ct__tcp_route(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    ct__tcp_header h = peer->in;
    peer->in_left = (size_t)h.len;
    peer->in_dst = NULL;
    if (h.tag == CT__TCP_ABORT_TAG) {
        if (h.len < sizeof peer->abort_in) peer->in_dst = peer->abort_in;
        else ct__tcp_lost(e, p, EPROTO); /* no ctorch rank sends one so long */
        return;
    }
    if (e->aborted) return; /* nothing will receive it: dropped */
    for (ct__tcp_req *q = e->posted; q; q = q->next)
        if (ct__tcp_matches(q, h.ctx, h.tag, p)) {
            ct__tcp_unlink_posted(e, q);
            q->source = p;
            if (h.len > q->len) {
                char msg[128];
                snprintf(msg, sizeof msg, "Message of %llu bytes from rank %d for a receive of %llu bytes",
                         (unsigned long long)h.len, p, (unsigned long long)q->len);
                ct__tcp_finish(e, q, msg); /* the payload is dropped */
                return;
            }
            q->len = (size_t)h.len;
            peer->in_req = q, peer->in_dst = q->buf;
            return;
        }
    ct__tcp_held *held = (ct__tcp_held *)CT_MALLOC(sizeof *held);
    char *data = held ? (char *)CT_MALLOC(h.len ? (size_t)h.len : 1) : NULL;
    if (!data) { /* no memory to hold it: the connection cannot go on */
        CT_FREE(held);
        ct__tcp_lost(e, p, ENOMEM);
        return;
    }
    memset(held, 0, sizeof *held);
    held->ctx = h.ctx, held->tag = h.tag, held->source = p, held->data = data, held->len = (size_t)h.len;
    ct__tcp_held **link = &e->held;
    while (*link) link = &(*link)->next;
    *link = held;
    peer->in_held = held, peer->in_dst = data;
}

/* A held message's receive was posted, and the message is all there. */
static void ct__tcp_deliver_held(ct__tcp_engine *e, ct__tcp_held *h)
{
    memcpy(h->claimed->buf, h->data, h->len);
    ct__tcp_finish(e, h->claimed, NULL);
    ct__tcp_unlink_held(e, h);
}

/* The payload from p has all arrived. */
static void ct__tcp_arrived(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    bool aborts = peer->in.tag == CT__TCP_ABORT_TAG;
    if (peer->in_req) ct__tcp_finish(e, peer->in_req, NULL);
    if (peer->in_held) {
        peer->in_held->arrived = true;
        if (peer->in_held->claimed) ct__tcp_deliver_held(e, peer->in_held);
        else if (peer->in_held->dropped) ct__tcp_unlink_held(e, peer->in_held);
    }
    peer->in_req = NULL, peer->in_held = NULL, peer->in_have = 0;
    if (aborts) {
        peer->abort_in[peer->in.len] = 0;
        ct__tcp_abort(e, peer->abort_in);
    }
}

/* Reads what p has sent, without blocking. */
static void ct__tcp_read(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    char sink[65536];
    while (!peer->lost) {
        bool header = peer->in_have < sizeof peer->in;
        char *dst = header ? (char *)&peer->in + peer->in_have : peer->in_dst ? peer->in_dst : sink;
        size_t want = header ? sizeof peer->in - peer->in_have
                      : peer->in_dst || peer->in_left < sizeof sink ? peer->in_left : sizeof sink;
        ssize_t k = recv(peer->fd, dst, want, MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k <= 0) {
            ct__tcp_lost(e, p, k == 0 ? 0 : errno);
            return;
        }
        if (header) {
            peer->in_have += (size_t)k;
            if (peer->in_have < sizeof peer->in) continue;
            ct__tcp_route(e, p);
        } else {
            peer->in_left -= (size_t)k;
            if (peer->in_dst) peer->in_dst += k;
        }
        if (!peer->lost && peer->in_left == 0) ct__tcp_arrived(e, p);
    }
}

/* Writes p's queued sends, without blocking. */
static void ct__tcp_write(ct__tcp_engine *e, int p)
{
    ct__tcp_peer *peer = &e->peers[p];
    while (!peer->lost && peer->sends) {
        ct__tcp_req *q = peer->sends;
        if (q->moved == sizeof q->header + q->len) {
            peer->sends = q->next;
            if (!peer->sends) peer->sends_tail = NULL;
            ct__tcp_finish(e, q, NULL);
            continue;
        }
        bool header = q->moved < sizeof q->header;
        const char *src = header ? (const char *)&q->header + q->moved : q->buf + (q->moved - sizeof q->header);
        size_t want = header ? sizeof q->header - q->moved : q->len - (q->moved - sizeof q->header);
        ssize_t k = send(peer->fd, src, want, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (k < 0) {
            ct__tcp_lost(e, p, errno);
            return;
        }
        q->moved += (size_t)k;
    }
}

static void ct__tcp_wake(ct__tcp_engine *e)
{
    char one = 1;
    ssize_t k = write(e->wake[1], &one, 1);
    (void)k; /* a full pipe already wakes it */
}

/* Whether a stopped engine goes on, to deliver its abort messages: a
 * connection closed with unread data, or data still in the kernel's
 * buffer, would be reset and the message lost (a rank that stopped reading
 * for a while would then only see the connection closed). So each
 * connection, once its queue is written, is shut for writing, and the
 * engine reads (dropping the data) until the peer closes it, which it does
 * on reading to the end; until the deadline at most. */
static bool ct__tcp_lingers(ct__tcp_engine *e)
{
    if (!e->aborted || ct__dist_seconds() >= e->linger_deadline) return false;
    bool open = false;
    for (int p = 0; p < e->size; p++) {
        ct__tcp_peer *peer = &e->peers[p];
        if (peer->fd < 0) continue;
        if (!peer->sends && !peer->shut) shutdown(peer->fd, SHUT_WR), peer->shut = true;
        open = true;
    }
    return open;
}

static void *ct__tcp_engine_main(void *arg)
{
    ct__tcp_engine *e = (ct__tcp_engine *)arg;
    pthread_mutex_lock(&e->lock);
    while (!e->stop || ct__tcp_lingers(e)) {
        int n = 1;
        e->polled[0].fd = e->wake[0], e->polled[0].events = POLLIN;
        for (int p = 0; p < e->size; p++) {
            if (e->peers[p].fd < 0) continue;
            e->polled[n].fd = e->peers[p].fd;
            e->polled[n].events = (short)(POLLIN | (e->peers[p].sends ? POLLOUT : 0));
            e->polled_peer[n++] = p;
        }
        int wait_ms = e->stop ? ct__sock_ms_left(e->linger_deadline) : -1; /* (read under the lock) */
        pthread_mutex_unlock(&e->lock);
        int rc = poll(e->polled, (nfds_t)n, wait_ms);
        pthread_mutex_lock(&e->lock);
        if (rc <= 0) continue;
        if (e->polled[0].revents) {
            char drain[64];
            while (read(e->wake[0], drain, sizeof drain) == (ssize_t)sizeof drain) {}
        }
        for (int i = 1; i < n; i++) {
            int p = e->polled_peer[i];
            if (e->polled[i].revents & (POLLIN | POLLHUP | POLLERR)) ct__tcp_read(e, p);
            if (e->polled[i].revents & POLLOUT) ct__tcp_write(e, p);
        }
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

/* Posts a send (it goes out at once as far as the socket takes it) or a
 * receive (it takes the oldest matching held message, or waits); on an
 * aborted engine, or for a lost peer, it fails at once. NULL when out of
 * memory. */
static ct__tcp_req *ct__tcp_post_req(ct__tcp_engine *e, uint64_t ctx, int tag, int peer, bool sending, void *buf, size_t len)
{
    ct__tcp_req *q = ct__tcp_req_new(ctx, tag, peer, sending, buf, len);
    if (!q) return NULL;
    pthread_mutex_lock(&e->lock);
    ct__tcp_peer *to = peer >= 0 ? &e->peers[peer] : NULL;
    if (e->aborted) ct__tcp_finish(e, q, e->abort_why);
    else if (sending && to->lost) ct__tcp_fail_lost(e, q, peer);
    else if (sending) ct__tcp_queue_send(e, peer, q);
    else {
        ct__tcp_held *h = e->held;
        while (h && (h->claimed || h->dropped || !ct__tcp_matches(q, h->ctx, h->tag, h->source))) h = h->next;
        if (h && h->len > len) {
            q->source = h->source;
            ct__tcp_finish(e, q, "Message longer than its receive");
        } else if (h) {
            q->source = h->source, q->len = h->len;
            h->claimed = q;
            if (h->arrived) ct__tcp_deliver_held(e, h);
        } else if (to && to->lost) /* nothing more will come from it */
            ct__tcp_fail_lost(e, q, peer);
        else {
            if (e->posted_tail) e->posted_tail->next = q;
            else e->posted = q;
            e->posted_tail = q;
        }
    }
    pthread_mutex_unlock(&e->lock);
    return q;
}

/* Withdraws an unfinished request before its buffer goes away. A send
 * already partly written cannot be taken back without breaking the
 * stream, so that connection is closed. */
static void ct__tcp_cancel(ct__tcp_engine *e, ct__tcp_req *q)
{
    if (q->complete) return;
    ct__tcp_unlink_posted(e, q);
    for (ct__tcp_held *h = e->held; h; h = h->next)
        if (h->claimed == q) h->claimed = NULL, h->dropped = true; /* taken: no later receive matches it */
    for (int p = 0; p < e->size; p++) {
        ct__tcp_peer *peer = &e->peers[p];
        if (peer->in_req == q) peer->in_req = NULL, peer->in_dst = NULL; /* the rest is dropped */
        if (peer->sends == q && q->moved > 0) ct__tcp_lose(e, p, ECANCELED);
        for (ct__tcp_req **link = &peer->sends, *prev = NULL; *link; prev = *link, link = &(*link)->next)
            if (*link == q) {
                *link = q->next;
                if (peer->sends_tail == q) peer->sends_tail = prev;
                break;
            }
    }
    q->complete = true;
}

/* Waits for n requests, then frees them: true when all succeeded. A
 * failure (a request whose peer was lost fails), c closing, or the
 * deadline (0: none) ends the wait early, the others cancelled; err gets
 * the reason. A member lost after sending all it had to send is no
 * failure: it may have finished the last collective and exited. */
static bool ct__tcp_wait_all(ct__tcp_comm *c, ct__tcp_req **q, int n, double deadline, char *err)
{
    ct__tcp_engine *e = c->engine;
    const char *why = NULL;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++) {
            if (q[i]->failed && !why) why = q[i]->error;
            left += !q[i]->complete;
        }
        if (why || left == 0) break;
        if (c->closing) why = "The process group was destroyed while the operation ran";
        else if (deadline > 0 && ct__dist_seconds() > deadline) why = "Socket Timeout";
        if (why) break;
        if (deadline > 0) {
            struct timespec until;
            until.tv_sec = (time_t)deadline, until.tv_nsec = (long)((deadline - (double)(time_t)deadline) * 1e9);
            pthread_cond_timedwait(&e->progress, &e->lock, &until);
        } else
            pthread_cond_wait(&e->progress, &e->lock);
    }
    if (why) snprintf(err, CT__TCP_ERROR_LEN, "%s", why);
    for (int i = 0; i < n; i++) {
        ct__tcp_cancel(e, q[i]);
        CT_FREE(q[i]);
    }
    pthread_mutex_unlock(&e->lock);
    return why == NULL;
}

/* One step of a collective: its transfers all at once, the receives posted
 * first so that what arrives goes straight into place, not through a held
 * buffer. */
static bool ct__tcp_step(ct__tcp_comm *c, int tag, const ct__tcp_xfer *x, int n, double deadline, char *err)
{
    ct__tcp_req *small[8], **q = n <= 8 ? small : (ct__tcp_req **)CT_MALLOC((size_t)n * sizeof *q);
    int posted = 0;
    bool ok = q != NULL;
    for (int pass = 0; ok && pass < 2; pass++) /* receives, then sends */
        for (int i = 0; ok && i < n; i++) {
            if (x[i].sending != (pass == 1)) continue;
            q[posted] = ct__tcp_post_req(c->engine, c->ctx, tag, c->world[x[i].peer], x[i].sending, x[i].buf, x[i].len);
            if (q[posted]) posted++;
            else ok = false;
        }
    if (!ok) snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory");
    ok = (q ? ct__tcp_wait_all(c, q, posted, deadline, err) : false) && ok;
    if (q != small) CT_FREE(q);
    return ok;
}

/* ---------------------------------------------------------------- collectives */

/* dst = dst op src, n elements; booleans reduce logically. */
#define CT__TCP_LOOP(T, expr)                                             \
    do {                                                                  \
        T *d = (T *)dst;                                                  \
        const T *s = (const T *)src;                                      \
        for (int64_t i = 0; i < n; i++) d[i] = (T)(expr);                 \
    } while (0)
#define CT__TCP_FOLD(T)                                                                   \
    switch (op) {                                                                         \
    case CT_REDUCE_PRODUCT: CT__TCP_LOOP(T, d[i] * s[i]); break;                          \
    case CT_REDUCE_MIN: CT__TCP_LOOP(T, s[i] < d[i] ? s[i] : d[i]); break;                \
    case CT_REDUCE_MAX: CT__TCP_LOOP(T, s[i] > d[i] ? s[i] : d[i]); break;                \
    default: CT__TCP_LOOP(T, d[i] + s[i]); break;                                         \
    }
static void ct__tcp_reduce_into(void *dst, const void *src, int64_t n, ct_dtype dtype, ct_reduce_op op)
{
    bool all = op == CT_REDUCE_PRODUCT || op == CT_REDUCE_MIN;
    switch (dtype) {
    case CT_BOOL:
        if (all) CT__TCP_LOOP(unsigned char, d[i] && s[i]);
        else CT__TCP_LOOP(unsigned char, d[i] || s[i]);
        break;
    case CT_U8: CT__TCP_FOLD(uint8_t) break;
    case CT_I8: CT__TCP_FOLD(int8_t) break;
    case CT_I16: CT__TCP_FOLD(int16_t) break;
    case CT_I32: CT__TCP_FOLD(int32_t) break;
    case CT_I64: CT__TCP_FOLD(int64_t) break;
    case CT_F32: CT__TCP_FOLD(float) break;
    case CT_F64: CT__TCP_FOLD(double) break;
    default: break; /* half types: the front end refuses to reduce them */
    }
}
#undef CT__TCP_FOLD
#undef CT__TCP_LOOP

/* The general exchange, in bytes: this rank sends count[i] bytes from
 * send + displ[i] to rank i and receives count[n + i] bytes into
 * recv + displ[n + i] from it (its own part is copied). Empty parts are
 * skipped, on both sides alike. */
static bool ct__tcp_exchange(ct__tcp_comm *c, int tag, const char *send, char *recv, const size_t *count,
                             const size_t *displ, double deadline, char *err)
{
    int n = c->size, r = c->rank, k = 0;
    ct__tcp_xfer *x = (ct__tcp_xfer *)CT_MALLOC(2 * (size_t)n * sizeof *x);
    if (!x) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    if (count[r] > 0) memmove(recv + displ[n + r], send + displ[r], count[r]);
    for (int i = 0; i < n; i++) {
        if (i == r) continue;
        if (count[n + i] > 0) x[k].peer = i, x[k].sending = false, x[k].buf = recv + displ[n + i], x[k++].len = count[n + i];
        if (count[i] > 0) x[k].peer = i, x[k].sending = true, x[k].buf = (char *)send + displ[i], x[k++].len = count[i];
    }
    bool ok = ct__tcp_step(c, tag, x, k, deadline, err);
    CT_FREE(x);
    return ok;
}

/* The exchange's counts and displacements for the rooted and gathering
 * collectives, every part `bytes` long: who sends to whom. */
typedef enum { CT__TCP_ALL_GATHER, CT__TCP_GATHER, CT__TCP_SCATTER, CT__TCP_ALL_TO_ALL } ct__tcp_pattern;

static bool ct__tcp_patterned(ct__tcp_comm *c, int tag, ct__tcp_pattern pattern, int root, const char *send, char *recv,
                              size_t bytes, double deadline, char *err)
{
    int n = c->size, r = c->rank;
    size_t *v = (size_t *)CT_MALLOC(4 * (size_t)n * sizeof *v), *count = v, *displ = v ? v + 2 * n : NULL;
    if (!v) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    for (int i = 0; i < n; i++) {
        bool sends = pattern == CT__TCP_ALL_GATHER || pattern == CT__TCP_ALL_TO_ALL ||
                     (pattern == CT__TCP_GATHER && i == root) || (pattern == CT__TCP_SCATTER && r == root);
        bool receives = pattern == CT__TCP_ALL_GATHER || pattern == CT__TCP_ALL_TO_ALL ||
                        (pattern == CT__TCP_GATHER && r == root) || (pattern == CT__TCP_SCATTER && i == root);
        count[i] = sends ? bytes : 0;
        count[n + i] = receives ? bytes : 0;
        displ[i] = pattern == CT__TCP_SCATTER || pattern == CT__TCP_ALL_TO_ALL ? (size_t)i * bytes : 0;
        displ[n + i] = pattern == CT__TCP_SCATTER ? 0 : (size_t)i * bytes;
    }
    bool ok = ct__tcp_exchange(c, tag, send, recv, count, displ, deadline, err);
    CT_FREE(v);
    return ok;
}

/* The n parts of `parts` (count elements each), reduced in rank order into dst. */
static void ct__tcp_fold(void *dst, const char *parts, int n, const ct__dist_op *op)
{
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    memmove(dst, parts, bytes);
    for (int i = 1; i < n; i++) ct__tcp_reduce_into(dst, parts + (size_t)i * bytes, op->count, op->dtype, op->op);
}

/* reduce and reduce_scatter: the parts gathered into a scratch buffer, then folded. */
static bool ct__tcp_gather_and_fold(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    bool scattering = op->kind == CT__DIST_REDUCE_SCATTER, folds = scattering || op->root == c->rank;
    char *parts = folds ? (char *)CT_MALLOC((size_t)c->size * bytes + 1) : NULL;
    if (folds && !parts) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    bool ok = ct__tcp_patterned(c, CT__TCP_COLLECTIVE_TAG, scattering ? CT__TCP_ALL_TO_ALL : CT__TCP_GATHER, op->root,
                                (const char *)op->send, parts, bytes, 0, err);
    if (ok && folds) ct__tcp_fold(op->recv, parts, c->size, op);
    CT_FREE(parts);
    return ok;
}

/* A ring step's transfers go in segments: the receive buffer of a
 * reduction stays small and warm, and a segment's reduction overlaps the
 * peer's sending of the next (100 MB at 2 ranks: 1.8x PyTorch's gloo in one
 * piece). A multiple of every element size. */
#define CT__TCP_SEGMENT ((size_t)1 << 20)

/* One ring step: `out` bytes at src go to the next rank while `in` bytes
 * come from the previous one, into dst, or, when reducing, through tmp
 * and reduced into dst. The segments of a chunk are the same on both
 * sides, since both know its length. */
static bool ct__tcp_ring_step(ct__tcp_comm *c, const ct__dist_op *op, const char *src, size_t out, char *dst, size_t in,
                              char *tmp, char *err)
{
    int next = (c->rank + 1) % c->size, prev = (c->rank + c->size - 1) % c->size;
    size_t n_out = out ? (out + CT__TCP_SEGMENT - 1) / CT__TCP_SEGMENT : 1;
    size_t n_in = in ? (in + CT__TCP_SEGMENT - 1) / CT__TCP_SEGMENT : 1;
    bool ok = true;
    for (size_t k = 0; ok && (k < n_out || k < n_in); k++) {
        size_t at = k * CT__TCP_SEGMENT, m = 0;
        size_t out_len = k < n_out && out > at ? (out - at < CT__TCP_SEGMENT ? out - at : CT__TCP_SEGMENT) : 0;
        size_t in_len = k < n_in && in > at ? (in - at < CT__TCP_SEGMENT ? in - at : CT__TCP_SEGMENT) : 0;
        ct__tcp_xfer x[2];
        if (k < n_out) x[m].peer = next, x[m].sending = true, x[m].buf = (char *)src + at, x[m++].len = out_len;
        if (k < n_in) x[m].peer = prev, x[m].sending = false, x[m].buf = tmp ? tmp : dst + at, x[m++].len = in_len;
        ok = ct__tcp_step(c, CT__TCP_COLLECTIVE_TAG, x, (int)m, 0, err);
        if (ok && tmp && k < n_in)
            ct__tcp_reduce_into(dst + at, tmp, (int64_t)(in_len / ct_dtype_size(op->dtype)), op->dtype, op->op);
    }
    return ok;
}

/* Ring all-reduce: n - 1 steps of reduce-scatter, each rank passing one
 * chunk on and reducing the one it receives, then n - 1 steps of
 * all-gather passing the reduced chunks round. Every element is reduced
 * once, on one rank, so all ranks end with the same bits. */
static bool ct__tcp_all_reduce(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    int n = c->size, r = c->rank;
    size_t elem = ct_dtype_size(op->dtype);
    int64_t base = op->count / n, extra = op->count % n;
#define CT__TCP_CHUNK_START(i) ((size_t)((i) * base + ((i) < extra ? (i) : extra)) * elem)
#define CT__TCP_CHUNK_LEN(i) ((size_t)(base + ((i) < extra)) * elem)
    size_t tmp_len = (size_t)(base + 1) * elem < CT__TCP_SEGMENT ? (size_t)(base + 1) * elem : CT__TCP_SEGMENT;
    char *data = (char *)op->recv, *tmp = (char *)CT_MALLOC(tmp_len);
    if (!tmp) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    bool ok = true;
    for (int s = 0; ok && s < 2 * (n - 1); s++) {
        bool gathering = s >= n - 1;
        int out = ((gathering ? r + 1 - (s - (n - 1)) : r - s) % n + n) % n, in = (out + n - 1) % n;
        ok = ct__tcp_ring_step(c, op, data + CT__TCP_CHUNK_START(out), CT__TCP_CHUNK_LEN(out),
                               data + CT__TCP_CHUNK_START(in), CT__TCP_CHUNK_LEN(in), gathering ? NULL : tmp, err);
    }
#undef CT__TCP_CHUNK_START
#undef CT__TCP_CHUNK_LEN
    CT_FREE(tmp);
    return ok;
}

/* Segment k of the `bytes` at buf, as a transfer with peer. */
static ct__tcp_xfer ct__tcp_segment(int peer, bool sending, char *buf, size_t bytes, size_t k)
{
    size_t at = k * CT__TCP_SEGMENT;
    ct__tcp_xfer x = {peer, sending, buf + at, bytes - at < CT__TCP_SEGMENT ? bytes - at : CT__TCP_SEGMENT};
    return x;
}

/* Pipelined chain broadcast: the ranks form a chain from the root (root,
 * root + 1, ...) and the tensor goes down it in segments, each rank passing
 * segment k - 1 on while it receives segment k. The root sends the tensor
 * once, not once per rank, and every link carries it once. */
static bool ct__tcp_broadcast(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    int n = c->size, place = (c->rank - op->root + n) % n;
    int next = (c->rank + 1) % n, prev = (c->rank + n - 1) % n;
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    size_t segments = bytes ? (bytes + CT__TCP_SEGMENT - 1) / CT__TCP_SEGMENT : 1;
    bool receives = place > 0, passes = place < n - 1;
    size_t lag = receives ? 1 : 0; /* the root sends segment k at step k, the others at step k + 1 */
    bool ok = true;
    for (size_t k = 0; ok && k < segments + lag; k++) {
        ct__tcp_xfer x[2];
        int m = 0;
        if (receives && k < segments) x[m++] = ct__tcp_segment(prev, false, (char *)op->recv, bytes, k);
        if (passes && k >= lag) x[m++] = ct__tcp_segment(next, true, (char *)op->recv, bytes, k - lag);
        ok = ct__tcp_step(c, CT__TCP_COLLECTIVE_TAG, x, m, 0, err);
    }
    return ok;
}

/* Ring all-gather: n - 1 steps, each rank passing on to the next the part
 * it received last (its own first) while the previous one sends it another. */
static bool ct__tcp_all_gather(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    int n = c->size, r = c->rank;
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    char *all = (char *)op->recv;
    memmove(all + (size_t)r * bytes, op->send, bytes);
    bool ok = true;
    for (int s = 0; ok && s < n - 1; s++) {
        int out = (r - s + n) % n, in = (r - s - 1 + n) % n;
        ok = ct__tcp_ring_step(c, op, all + (size_t)out * bytes, bytes, all + (size_t)in * bytes, bytes, NULL, err);
    }
    return ok;
}

/* all_to_all's element counts and displacements, as the exchange's bytes. */
static bool ct__tcp_all_to_all(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    size_t elem = ct_dtype_size(op->dtype), n = (size_t)c->size, *count = (size_t *)CT_MALLOC(4 * n * sizeof *count);
    if (!count) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    size_t *displ = count + 2 * n;
    for (size_t i = 0; i < n; i++) { /* op's order: scounts, sdispls, rcounts, rdispls */
        count[i] = (size_t)op->all_to_all[i] * elem, displ[i] = (size_t)op->all_to_all[n + i] * elem;
        count[n + i] = (size_t)op->all_to_all[2 * n + i] * elem, displ[n + i] = (size_t)op->all_to_all[3 * n + i] * elem;
    }
    bool ok = ct__tcp_exchange(c, CT__TCP_COLLECTIVE_TAG, (const char *)op->send, (char *)op->recv, count, displ, 0, err);
    CT_FREE(count);
    return ok;
}

/* Every rank hears from every other one: none passes before all arrived. */
static bool ct__tcp_barrier(ct__tcp_comm *c, int tag, double deadline, char *err)
{
    char *flags = (char *)CT_MALLOC((size_t)c->size + 1), mine = 1;
    if (!flags) return snprintf(err, CT__TCP_ERROR_LEN, "DefaultCPUAllocator: not enough memory"), false;
    bool ok = ct__tcp_patterned(c, tag, CT__TCP_ALL_GATHER, -1, &mine, flags, 1, deadline, err);
    CT_FREE(flags);
    return ok;
}

/* A collective, on c's worker. */
static bool ct__tcp_collective(ct__tcp_comm *c, const ct__dist_op *op, char *err)
{
    size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
    const char *send = (const char *)op->send;
    char *recv = (char *)op->recv;
    switch (op->kind) {
    case CT__DIST_BROADCAST: return ct__tcp_broadcast(c, op, err);
    case CT__DIST_ALLREDUCE: return c->size == 1 || ct__tcp_all_reduce(c, op, err);
    case CT__DIST_REDUCE:
    case CT__DIST_REDUCE_SCATTER: return ct__tcp_gather_and_fold(c, op, err);
    case CT__DIST_ALLGATHER:
    case CT__DIST__ALLGATHER_BASE: return ct__tcp_all_gather(c, op, err);
    case CT__DIST_GATHER: return ct__tcp_patterned(c, CT__TCP_COLLECTIVE_TAG, CT__TCP_GATHER, op->root, send, recv, bytes, 0, err);
    case CT__DIST_SCATTER:
        return ct__tcp_patterned(c, CT__TCP_COLLECTIVE_TAG, CT__TCP_SCATTER, op->root, send, recv, bytes, 0, err);
    case CT__DIST_ALLTOALL: return ct__tcp_all_to_all(c, op, err);
    case CT__DIST_BARRIER: return ct__tcp_barrier(c, CT__TCP_COLLECTIVE_TAG, 0, err);
    default: return snprintf(err, CT__TCP_ERROR_LEN, "Unsupported operation"), false;
    }
}

/* ---------------------------------------------------------------- communicators */

static void *ct__tcp_worker_main(void *arg)
{
    ct__tcp_comm *c = (ct__tcp_comm *)arg;
    ct__tcp_engine *e = c->engine;
    pthread_mutex_lock(&e->lock);
    for (;;) {
        while (!c->jobs && !c->closing) pthread_cond_wait(&e->progress, &e->lock);
        if (c->closing) break;
        ct__tcp_job *job = c->jobs;
        c->jobs = job->next;
        if (!c->jobs) c->jobs_tail = NULL;
        pthread_mutex_unlock(&e->lock);
        char err[CT__TCP_ERROR_LEN] = "";
        bool ok = ct__tcp_collective(c, &job->op, err);
        pthread_mutex_lock(&e->lock);
        job->failed = !ok;
        snprintf(job->error, sizeof job->error, "%s", err);
        job->complete = true;
        e->completions++;
        pthread_cond_broadcast(&e->progress);
    }
    pthread_mutex_unlock(&e->lock);
    return NULL;
}

static void ct__tcp_engine_release(ct__tcp_engine *e)
{
    if (--e->refs > 0) return;
    if (e->running) {
        pthread_mutex_lock(&e->lock);
        e->stop = true;
        e->linger_deadline = ct__dist_seconds() + e->linger;
        ct__tcp_wake(e);
        pthread_mutex_unlock(&e->lock);
        pthread_join(e->thread, NULL);
    }
    for (int p = 0; p < e->size; p++) {
        if (e->peers[p].fd >= 0) close(e->peers[p].fd);
        for (ct__tcp_req *q = e->peers[p].sends; q; q = e->peers[p].sends) e->peers[p].sends = q->next, CT_FREE(q);
    }
    while (e->held) ct__tcp_unlink_held(e, e->held);
    for (ct__tcp_req *q = e->posted; q; q = e->posted) e->posted = q->next, CT_FREE(q);
    close(e->wake[0]), close(e->wake[1]);
    pthread_cond_destroy(&e->progress);
    pthread_mutex_destroy(&e->lock);
    CT_FREE(e->peers), CT_FREE(e->polled), CT_FREE(e->polled_peer), CT_FREE(e);
}

/* An engine for rank of size ranks, before its connections are made;
 * linger: how long its close may deliver abort messages (ct__tcp_lingers). */
static ct__tcp_engine *ct__tcp_engine_new(int rank, int size, double linger)
{
    ct__tcp_engine *e = (ct__tcp_engine *)ct__dist_alloc(sizeof *e);
    if (!e) return NULL;
    memset(e, 0, sizeof *e);
    e->rank = rank, e->size = size, e->refs = 1, e->linger = linger;
    e->peers = (ct__tcp_peer *)CT_MALLOC((size_t)size * sizeof *e->peers);
    e->polled = (struct pollfd *)CT_MALLOC((size_t)(size + 1) * sizeof *e->polled);
    e->polled_peer = (int *)CT_MALLOC((size_t)(size + 1) * sizeof *e->polled_peer);
    if (!e->peers || !e->polled || !e->polled_peer || pipe(e->wake) != 0) {
        CT_FREE(e->peers), CT_FREE(e->polled), CT_FREE(e->polled_peer), CT_FREE(e);
        ct__dist_oom();
        return NULL;
    }
    memset(e->peers, 0, (size_t)size * sizeof *e->peers);
    for (int p = 0; p < size; p++) e->peers[p].fd = -1;
    fcntl(e->wake[0], F_SETFL, O_NONBLOCK);
    fcntl(e->wake[1], F_SETFL, O_NONBLOCK);
    pthread_mutex_init(&e->lock, NULL);
    pthread_cond_init(&e->progress, NULL);
    return e;
}

static ct_result ct__tcp_engine_start(ct__tcp_engine *e)
{
    for (int p = 0; p < e->size; p++)
        if (e->peers[p].fd >= 0) fcntl(e->peers[p].fd, F_SETFL, O_NONBLOCK);
    e->running = pthread_create(&e->thread, NULL, ct__tcp_engine_main, e) == 0;
    return e->running ? CT_OK : ct__dist_fail(CT_ERR_RUNTIME, "The gloo backend's engine thread could not be started");
}

/* A communicator over `size` ranks of the engine (world[i] is rank i's
 * world rank; NULL: all of them), with its worker started. */
static ct__tcp_comm *ct__tcp_comm_new(ct__tcp_engine *e, uint64_t ctx, int rank, int size, const int *world)
{
    ct__tcp_comm *c = (ct__tcp_comm *)ct__dist_alloc(sizeof *c);
    int *w = c ? (int *)ct__dist_alloc((size_t)size * sizeof *w) : NULL;
    if (!w) {
        CT_FREE(c);
        return NULL;
    }
    memset(c, 0, sizeof *c);
    for (int i = 0; i < size; i++) w[i] = world ? world[i] : i;
    c->engine = e, c->ctx = ctx, c->rank = rank, c->size = size, c->world = w;
    if (pthread_create(&c->worker, NULL, ct__tcp_worker_main, c) != 0) {
        CT_FREE(w), CT_FREE(c);
        ct__dist_fail(CT_ERR_RUNTIME, "The gloo backend's worker thread could not be started");
        return NULL;
    }
    e->refs++;
    return c;
}

/* Stops the worker (a collective it runs fails) and drops the jobs it had
 * not started: the front end only frees a group once its works completed
 * or timed out, and never looks at a timed-out one again. */
static void ct__tcp_free_comm(void *comm)
{
    ct__tcp_comm *c = (ct__tcp_comm *)comm;
    ct__tcp_engine *e = c->engine;
    pthread_mutex_lock(&e->lock);
    c->closing = true;
    pthread_cond_broadcast(&e->progress);
    pthread_mutex_unlock(&e->lock);
    pthread_join(c->worker, NULL);
    for (ct__tcp_job *j = c->jobs; j; j = c->jobs) c->jobs = j->next, CT_FREE(j);
    CT_FREE(c->world);
    CT_FREE(c);
    ct__tcp_engine_release(e);
}

/* A sub-communicator's context: derived from its parent's and the number
 * of splits made of it, which every member of the parent counts alike, so
 * no message is needed to agree on it (64 bits make a clash unlikely). */
static uint64_t ct__tcp_child_context(ct__tcp_comm *parent)
{
    uint64_t z = parent->ctx * 0x9E3779B97F4A7C15ull + ++parent->splits;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* MPI_Comm_split: every rank of the parent tells the others whether it
 * joins and its key; the members are ordered by key. The exchange is made
 * here, apart from the worker's collectives (a tag of its own), so that it
 * cannot be ordered differently from them on different ranks. */
static ct_result ct__tcp_split(void *parent, bool member, int key, void **comm)
{
    ct__tcp_comm *p = (ct__tcp_comm *)parent;
    uint64_t ctx = ct__tcp_child_context(p);
    int64_t mine[2] = {member, key}, *all = (int64_t *)ct__dist_alloc(2 * (size_t)p->size * sizeof *all);
    int *world = all ? (int *)ct__dist_alloc((size_t)p->size * sizeof *world) : NULL;
    char err[CT__TCP_ERROR_LEN];
    *comm = NULL;
    if (!world) {
        CT_FREE(all);
        return CT_ERR_MEMORY;
    }
    ct_result res = CT_OK;
    if (!ct__tcp_patterned(p, CT__TCP_SETUP_TAG, CT__TCP_ALL_GATHER, -1, (const char *)mine, (char *)all, sizeof mine, 0, err))
        res = ct__dist_fail(CT_ERR_RUNTIME, "%s", err);
    int n = 0, rank = -1;
    for (int i = 0; res == CT_OK && i < p->size; i++) { /* members' parent ranks, by key then parent rank */
        if (!all[2 * i]) continue;
        int j = n++;
        for (; j > 0 && all[2 * world[j - 1] + 1] > all[2 * i + 1]; j--) world[j] = world[j - 1];
        world[j] = i;
    }
    for (int i = 0; i < n; i++) {
        if (world[i] == p->rank) rank = i;
        world[i] = p->world[world[i]];
    }
    if (res == CT_OK && member && !(*comm = ct__tcp_comm_new(p->engine, ctx, rank, n, world))) res = ct_last_error_code();
    CT_FREE(all), CT_FREE(world);
    return res;
}

/* ---------------------------------------------------------------- the backend's table */

static ct_result ct__tcp_post(void *comm, const ct__dist_op *op, void **request)
{
    ct__tcp_comm *c = (ct__tcp_comm *)comm;
    ct__tcp_engine *e = c->engine;
    bool p2p = op->kind == CT__DIST_SEND || op->kind == CT__DIST_RECV, sending = op->kind == CT__DIST_SEND;
    if (p2p && op->peer == c->rank)
        return ct__dist_fail(CT_ERR_RUNTIME, "Invalid %s rank: should not be the same as rank of the current process.",
                             sending ? "destination" : "source");
    ct__tcp_job *job = (ct__tcp_job *)ct__dist_alloc(sizeof *job);
    if (!job) return CT_ERR_MEMORY;
    memset(job, 0, sizeof *job);
    job->comm = c, job->op = *op;
    if (p2p) {
        size_t bytes = (size_t)op->count * ct_dtype_size(op->dtype);
        int peer = op->peer < 0 ? -1 : c->world[op->peer];
        job->p2p = ct__tcp_post_req(e, c->ctx, op->tag, peer, sending, sending ? op->send : op->recv, bytes);
        if (!job->p2p) {
            CT_FREE(job);
            return ct__dist_oom();
        }
    } else {
        pthread_mutex_lock(&e->lock);
        if (c->jobs_tail) c->jobs_tail->next = job;
        else c->jobs = job;
        c->jobs_tail = job;
        pthread_cond_broadcast(&e->progress);
        pthread_mutex_unlock(&e->lock);
    }
    *request = job;
    return CT_OK;
}

static int ct__tcp_test(void *request, int *source)
{
    ct__tcp_job *job = (ct__tcp_job *)request;
    ct__tcp_comm *c = job->comm;
    int from = -1;
    pthread_mutex_lock(&c->engine->lock);
    ct__tcp_req *q = job->p2p;
    bool done = q ? q->complete : job->complete;
    if (!done) c->engine->tested = c->engine->completions;
    if (done && q) {
        job->failed = q->failed, from = q->source;
        snprintf(job->error, sizeof job->error, "%s", q->error);
        CT_FREE(q);
    }
    pthread_mutex_unlock(&c->engine->lock);
    if (!done) return 0;
    for (int i = 0; i < c->size; i++)
        if (c->world[i] == from) *source = i;
    ct_result res = job->failed ? ct__dist_fail(CT_ERR_RUNTIME, "%s", job->error) : CT_OK;
    CT_FREE(job);
    return res == CT_OK ? 1 : (int)res;
}

/* A waiting caller sleeps on the engine's condition, which every
 * completion signals, rather than spinning on test: on a machine with as
 * many ranks as cores, spinning took the CPU the engine and the workers
 * needed (1 KB all_reduce: 4.7 ms spinning). It does not sleep when
 * something completed since its last test found its work running. */
static void ct__tcp_idle(void *comm, double seconds)
{
    ct__tcp_engine *e = ((ct__tcp_comm *)comm)->engine;
    double until = ct__dist_seconds() + seconds;
    struct timespec t;
    t.tv_sec = (time_t)until, t.tv_nsec = (long)((until - (double)(time_t)until) * 1e9);
    pthread_mutex_lock(&e->lock);
    if (e->completions == e->tested) pthread_cond_timedwait(&e->progress, &e->lock, &t);
    pthread_mutex_unlock(&e->lock);
}

/* ---------------------------------------------------------------- rendezvous */

typedef struct ct__tcp_rendezvous {
    char host[256];
    int port, rank, size;
    bool agent_store; /* torchrun's agent serves the store: every rank is a client */
    char keys[64];    /* the prefix of this rendezvous's keys */
} ct__tcp_rendezvous;

/* init_process_group calls so far: every rank makes as many, so a later
 * rendezvous in a store that outlives one (torchrun's) has keys of its own. */
static int ct__tcp_inits;

static ct_result ct__tcp_env_int(const char *name, int *out)
{
    const char *v = getenv(name);
    char *end = NULL;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v)
        return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: environment "
                                           "variable %s expected, but not set", name);
    if (*end || n < 0 || n > INT_MAX)
        return ct__dist_fail(CT_ERR_VALUE, "invalid literal for int() with base 10: '%s' (environment variable %s)", v, name);
    *out = (int)n;
    return CT_OK;
}

/* Where the store is, and this process's rank and world size: env://
 * reads MASTER_ADDR, MASTER_PORT and, unless world_size was given, RANK
 * and WORLD_SIZE (as torchrun sets them); tcp://host:port takes the rank
 * and world size from the arguments. */
static ct_result ct__tcp_rendezvous_of(const ct_dist_init_opts *o, ct__tcp_rendezvous *rv)
{
    const char *method = o->init_method ? o->init_method : "env://", *addr = NULL;
    bool given = o->world_size > 0;
    ct_result res = CT_OK;
    memset(rv, 0, sizeof *rv);
    rv->rank = o->rank, rv->size = o->world_size;
    if (strncmp(method, "tcp://", 6) == 0) {
        /* the host as urlparse reads it: an IPv6 address in brackets, tcp://[::1]:29500 */
        const char *host = method + 6, *end = host[0] == '[' ? strchr(host, ']') : NULL;
        const char *colon = strrchr(end ? end : host, ':');
        if (!given) return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using tcp:// rendezvous: world size parameter missing");
        if (!colon) return ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using tcp:// rendezvous: port number missing");
        if (end) host++;
        snprintf(rv->host, sizeof rv->host, "%.*s", (int)((end ? end : colon) - host), host);
        rv->port = atoi(colon + 1);
    } else if (strncmp(method, "env://", 6) == 0) {
        if (!given) res = ct__tcp_env_int("RANK", &rv->rank);
        if (res == CT_OK && !given) res = ct__tcp_env_int("WORLD_SIZE", &rv->size);
        if (res == CT_OK && !(addr = getenv("MASTER_ADDR")))
            res = ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using env:// rendezvous: environment "
                                              "variable MASTER_ADDR expected, but not set");
        if (res == CT_OK) res = ct__tcp_env_int("MASTER_PORT", &rv->port);
        if (res == CT_OK) snprintf(rv->host, sizeof rv->host, "%s", addr);
        const char *agent = getenv("TORCHELASTIC_USE_AGENT_STORE");
        rv->agent_store = agent && strcmp(agent, "True") == 0;
    } else
        res = ct__dist_fail(CT_ERR_RUNTIME, "The gloo backend makes its rendezvous through env:// or tcp://, not %s", method);
    if (res == CT_OK && (rv->size < 1 || rv->rank < 0 || rv->rank >= rv->size))
        res = ct__dist_fail(CT_ERR_VALUE, "Error initializing torch.distributed using %.6s rendezvous: rank %d is not "
                                          "in the range [0, world_size %d)", method, rv->rank, rv->size);
    if (res == CT_OK && (rv->port < 1 || rv->port > 65535))
        res = ct__dist_fail(CT_ERR_VALUE, "The master port must be in [1, 65535], not %d", rv->port);
    const char *attempt = getenv("TORCHELASTIC_RESTART_COUNT"); /* torchrun's agent store outlives a restart */
    snprintf(rv->keys, sizeof rv->keys, "ctorch/gloo/attempt_%.8s/%d", attempt ? attempt : "0", ct__tcp_inits);
    return res;
}

/* The hello a rank sends on the connection it makes. */
typedef struct ct__tcp_hello {
    uint32_t magic;
    int32_t rank;
} ct__tcp_hello;

/* Connects to a lower rank, at the address it published in the store. */
static ct_result ct__tcp_dial(ct__tcp_engine *e, ct_tcp_store *store, const char *keys, int peer, double deadline)
{
    char key[96], value[64] = "", *colon;
    size_t len = 0;
    snprintf(key, sizeof key, "%s/rank_%d", keys, peer);
    ct_result res = ct_tcp_store_get(store, key, value, sizeof value - 1, &len);
    if (res != CT_OK) return res;
    value[len < sizeof value ? len : sizeof value - 1] = 0;
    if (!(colon = strrchr(value, ':'))) return ct__dist_fail(CT_ERR_RUNTIME, "Rank %d published no address", peer);
    *colon = 0; /* the port follows the last colon, after an IPv6 address's own */
    int fd = ct__sock_connect(value, atoi(colon + 1), deadline - ct__dist_seconds());
    if (fd < 0) return ct_last_error_code();
    ct__tcp_hello hello = {CT__TCP_MAGIC, (int32_t)e->rank};
    e->peers[peer].fd = fd;
    ct__sock_peer_name(fd, e->peers[peer].addr, sizeof e->peers[peer].addr);
    return ct__sock_send_all(fd, &hello, sizeof hello, deadline);
}

/* Accepts a higher rank's connection; it says which rank it is. */
static ct_result ct__tcp_answer(ct__tcp_engine *e, int listener, double deadline)
{
    ct__tcp_hello hello;
    if (ct__sock_ready(listener, POLLIN, deadline) != CT_OK) return CT_ERR_RUNTIME;
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) return ct__sock_io_error(errno);
    ct__sock_no_delay(fd);
    ct_result res = ct__sock_recv_all(fd, &hello, sizeof hello, deadline);
    if (res == CT_OK && (hello.magic != CT__TCP_MAGIC || hello.rank <= e->rank || hello.rank >= e->size ||
                         e->peers[hello.rank].fd >= 0))
        res = ct__dist_fail(CT_ERR_RUNTIME, "An unexpected connection reached rank %d during the rendezvous", e->rank);
    if (res != CT_OK) {
        close(fd);
        return res;
    }
    e->peers[hello.rank].fd = fd;
    ct__sock_peer_name(fd, e->peers[hello.rank].addr, sizeof e->peers[hello.rank].addr);
    return CT_OK;
}

/* The full mesh: this rank publishes where it listens (the interface its
 * store connection uses), connects to every lower rank and accepts every
 * higher one. A connection waits in the listener's backlog until it is
 * accepted, so the order cannot deadlock. */
static ct_result ct__tcp_mesh(ct__tcp_engine *e, ct_tcp_store *store, const char *keys, double deadline)
{
    int port = 0, listener = ct__sock_listen(&port, e->size);
    if (listener < 0) return ct_last_error_code();
    char key[96], value[96], ip[INET6_ADDRSTRLEN];
    ct__sock_local_ip(store->fd, ip, sizeof ip);
    snprintf(key, sizeof key, "%s/rank_%d", keys, e->rank);
    snprintf(value, sizeof value, "%s:%d", ip, port);
    ct_result res = ct_tcp_store_set(store, key, value, strlen(value));
    for (int p = 0; res == CT_OK && p < e->rank; p++) res = ct__tcp_dial(e, store, keys, p, deadline);
    for (int p = e->rank + 1; res == CT_OK && p < e->size; p++) res = ct__tcp_answer(e, listener, deadline);
    close(listener);
    return res;
}

/* The store is needed no more once every rank is connected; the master
 * closes it between two barriers, so that no rank can reach it (say, for
 * a later init_process_group) before it is gone. (torchrun's agent store
 * stays: later rendezvous use other keys.) */
static ct_result ct__tcp_close_store(ct__tcp_comm *world, ct_tcp_store *store, double deadline)
{
    char err[CT__TCP_ERROR_LEN];
    bool ok = ct__tcp_barrier(world, CT__TCP_SETUP_TAG, deadline, err);
    if (world->rank == 0) ct_tcp_store_free(store);
    ok = ok && ct__tcp_barrier(world, CT__TCP_SETUP_TAG, deadline, err);
    if (world->rank != 0) ct_tcp_store_free(store);
    return ok ? CT_OK : ct__dist_fail(CT_ERR_RUNTIME, "%s", err);
}

static ct_result ct__tcp_init(const ct_dist_init_opts *opts, int *rank, int *size, void **world)
{
    ct__tcp_rendezvous rv;
    ct_result res = ct__tcp_rendezvous_of(opts, &rv);
    if (res != CT_OK) return res;
    double timeout = opts->timeout > 0 ? opts->timeout : 1800.0, deadline = ct__dist_seconds() + timeout;
    ct_tcp_store_opts so;
    memset(&so, 0, sizeof so);
    so.world_size = rv.size, so.is_master = rv.rank == 0 && !rv.agent_store, so.timeout = timeout;
    ct__tcp_inits++;
    ct_tcp_store *store = ct_tcp_store_new(rv.host, rv.port, so);
    if (!store) return ct_last_error_code();
    ct__tcp_engine *e = ct__tcp_engine_new(rv.rank, rv.size, timeout < CT__TCP_ABORT_LINGER ? timeout : CT__TCP_ABORT_LINGER);
    res = e ? ct__tcp_mesh(e, store, rv.keys, deadline) : CT_ERR_MEMORY;
    if (res == CT_OK) res = ct__tcp_engine_start(e);
    ct__tcp_comm *c = res == CT_OK ? ct__tcp_comm_new(e, 1, rv.rank, rv.size, NULL) : NULL;
    if (e) ct__tcp_engine_release(e); /* the communicator holds it now */
    if (!c) {
        ct_tcp_store_free(store);
        return ct_last_error_code() != CT_OK ? ct_last_error_code() : CT_ERR_RUNTIME;
    }
    if ((res = ct__tcp_close_store(c, store, deadline)) != CT_OK) {
        ct__tcp_free_comm(c);
        return res;
    }
    *rank = rv.rank, *size = rv.size, *world = c;
    return CT_OK;
}

static const ct__dist_backend ct__tcp_backend = {"gloo",        "WorkGloo",   ct__tcp_init,
                                                 ct__tcp_split, ct__tcp_free_comm, ct__tcp_post,
                                                 ct__tcp_test,  ct__tcp_idle,      false};
