/* Threads: the few primitives the implementation uses (a mutex, a condition
 * variable with an optional deadline, a thread started and joined, a
 * function run once, and a per-thread value freed when its thread exits),
 * on POSIX threads or on Windows' own.
 *
 * Windows' are taken under _WIN32 unless the program defines
 * CTORCH_PTHREADS: MSVC has no <pthread.h>, and a MinGW program needs no
 * winpthreads for ctorch's own threads. CTORCH_PTHREADS keeps a MinGW
 * build on winpthreads, as ctorch was before it had this layer.
 *
 * Windows' primitives used: SRWLOCK (statically initialisable, as
 * PTHREAD_MUTEX_INITIALIZER is), CONDITION_VARIABLE, _beginthreadex (the C
 * runtime's per-thread state is set up, as CreateThread does not),
 * InitOnceExecuteOnce, and fiber-local storage (FlsAlloc's keys are
 * Windows' only ones with a destructor run at a thread's exit). */

#if defined(_WIN32) && !defined(CTORCH_PTHREADS)
#define CT__WIN32_THREADS 1
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#include <process.h>
#else
#include <pthread.h>
#endif

/* A thread-local variable: MSVC's C has its own spelling. */
#ifdef __cplusplus
#define CT__TLS thread_local
#elif defined(_MSC_VER)
#define CT__TLS __declspec(thread)
#else
#define CT__TLS _Thread_local
#endif

/* ---------------------------------------------------------------- mutexes and condition variables */

#ifdef CT__WIN32_THREADS
typedef SRWLOCK ct__mutex;
typedef CONDITION_VARIABLE ct__cond;
#define CT__MUTEX_INIT SRWLOCK_INIT
static inline void ct__mutex_init(ct__mutex *m) { InitializeSRWLock(m); }
static inline void ct__mutex_destroy(ct__mutex *m) { (void)m; }
static inline void ct__mutex_lock(ct__mutex *m) { AcquireSRWLockExclusive(m); }
static inline void ct__mutex_unlock(ct__mutex *m) { ReleaseSRWLockExclusive(m); }
static inline void ct__cond_init(ct__cond *c) { InitializeConditionVariable(c); }
static inline void ct__cond_destroy(ct__cond *c) { (void)c; }
static inline void ct__cond_wait(ct__cond *c, ct__mutex *m) { SleepConditionVariableSRW(c, m, INFINITE, 0); }
static inline void ct__cond_broadcast(ct__cond *c) { WakeAllConditionVariable(c); }
#else
typedef pthread_mutex_t ct__mutex;
typedef pthread_cond_t ct__cond;
#define CT__MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
static inline void ct__mutex_init(ct__mutex *m) { pthread_mutex_init(m, NULL); }
static inline void ct__mutex_destroy(ct__mutex *m) { pthread_mutex_destroy(m); }
static inline void ct__mutex_lock(ct__mutex *m) { pthread_mutex_lock(m); }
static inline void ct__mutex_unlock(ct__mutex *m) { pthread_mutex_unlock(m); }
static inline void ct__cond_init(ct__cond *c) { pthread_cond_init(c, NULL); }
static inline void ct__cond_destroy(ct__cond *c) { pthread_cond_destroy(c); }
static inline void ct__cond_wait(ct__cond *c, ct__mutex *m) { pthread_cond_wait(c, m); }
static inline void ct__cond_broadcast(ct__cond *c) { pthread_cond_broadcast(c); }
#endif

/* ---------------------------------------------------------------- deadlines */

/* A moment `seconds` (>= 0) from now, for ct__cond_wait_until. */
#ifdef CT__WIN32_THREADS
typedef struct ct__deadline {
    ULONGLONG ms; /* GetTickCount64's clock */
} ct__deadline;

static inline ct__deadline ct__deadline_in(double seconds)
{
    ct__deadline d = {GetTickCount64() + (ULONGLONG)(seconds * 1e3)};
    return d;
}

/* Wait on c until woken or d passes; false when it timed out. */
static inline bool ct__cond_wait_until(ct__cond *c, ct__mutex *m, const ct__deadline *d)
{
    ULONGLONG now = GetTickCount64(), left = d->ms > now ? d->ms - now : 0;
    DWORD ms = left < INFINITE ? (DWORD)left : INFINITE - 1;
    return SleepConditionVariableSRW(c, m, ms, 0) || GetLastError() != ERROR_TIMEOUT;
}
#else
typedef struct ct__deadline {
    struct timespec ts; /* CLOCK_REALTIME, pthread_cond_timedwait's */
} ct__deadline;

static inline ct__deadline ct__deadline_in(double seconds)
{
    ct__deadline d;
#ifdef TIME_UTC
    timespec_get(&d.ts, TIME_UTC);
#else /* msvcrt (MinGW's default C library) lacks C11's clock: winpthreads' timed waits use this one */
    clock_gettime(CLOCK_REALTIME, &d.ts);
#endif
    double t = (double)d.ts.tv_sec + d.ts.tv_nsec * 1e-9 + seconds;
    d.ts.tv_sec = (time_t)t;
    d.ts.tv_nsec = (long)((t - (double)d.ts.tv_sec) * 1e9);
    return d;
}

/* Wait on c until woken or d passes; false when it timed out. */
static inline bool ct__cond_wait_until(ct__cond *c, ct__mutex *m, const ct__deadline *d)
{
    return pthread_cond_timedwait(c, m, &d->ts) == 0;
}
#endif

/* ---------------------------------------------------------------- threads */

/* A thread running fn(arg); the struct must stay put until ct__thread_join. */
typedef struct ct__thread {
    void (*fn)(void *);
    void *arg;
#ifdef CT__WIN32_THREADS
    HANDLE handle;
#else
    pthread_t id;
#endif
} ct__thread;

#ifdef CT__WIN32_THREADS
static inline unsigned __stdcall ct__thread_entry(void *p)
{
    ct__thread *t = (ct__thread *)p;
    t->fn(t->arg);
    return 0;
}

/* Start fn(arg) on a new thread; false when the system refused. */
static inline bool ct__thread_start(ct__thread *t, void (*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    t->handle = (HANDLE)_beginthreadex(NULL, 0, ct__thread_entry, t, 0, NULL);
    return t->handle != NULL;
}

static inline void ct__thread_join(ct__thread *t)
{
    WaitForSingleObject(t->handle, INFINITE);
    CloseHandle(t->handle);
}
#else
static inline void *ct__thread_entry(void *p)
{
    ct__thread *t = (ct__thread *)p;
    t->fn(t->arg);
    return NULL;
}

/* Start fn(arg) on a new thread; false when the system refused. */
static inline bool ct__thread_start(ct__thread *t, void (*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    return pthread_create(&t->id, NULL, ct__thread_entry, t) == 0;
}

static inline void ct__thread_join(ct__thread *t) { pthread_join(t->id, NULL); }
#endif

/* ---------------------------------------------------------------- once */

#ifdef CT__WIN32_THREADS
typedef INIT_ONCE ct__once;
#define CT__ONCE_INIT INIT_ONCE_STATIC_INIT

typedef struct ct__once_fn {
    void (*fn)(void); /* (in a struct: a function pointer does not convert to void *) */
} ct__once_fn;

static inline BOOL CALLBACK ct__once_entry(PINIT_ONCE once, PVOID p, PVOID *context)
{
    (void)once, (void)context;
    ((ct__once_fn *)p)->fn();
    return TRUE;
}

/* fn() on the first call with this once, by one thread; the others wait for it. */
static inline void ct__call_once(ct__once *once, void (*fn)(void))
{
    ct__once_fn f = {fn};
    InitOnceExecuteOnce(once, ct__once_entry, &f, NULL);
}
#else
typedef pthread_once_t ct__once;
#define CT__ONCE_INIT PTHREAD_ONCE_INIT

/* fn() on the first call with this once, by one thread; the others wait for it. */
static inline void ct__call_once(ct__once *once, void (*fn)(void)) { pthread_once(once, fn); }
#endif

/* ---------------------------------------------------------------- values freed at thread exit */

/* A key whose value, set per thread, is passed to the key's destructor when
 * that thread exits (POSIX: not for the thread that ends the process;
 * Windows may run it for that one too, as the process ends). The destructor
 * is declared CT__AT_EXIT, Windows' calling convention for it. */
#ifdef CT__WIN32_THREADS
typedef DWORD ct__exit_key;
#define CT__AT_EXIT WINAPI

/* false: no key left */
static inline bool ct__exit_key_create(ct__exit_key *key, void(CT__AT_EXIT *destructor)(void *))
{
    *key = FlsAlloc(destructor);
    return *key != FLS_OUT_OF_INDEXES;
}

static inline bool ct__exit_key_set(ct__exit_key key, void *value) { return FlsSetValue(key, value) != 0; }
#else
typedef pthread_key_t ct__exit_key;
#define CT__AT_EXIT

/* false: no key left */
static inline bool ct__exit_key_create(ct__exit_key *key, void(CT__AT_EXIT *destructor)(void *))
{
    return pthread_key_create(key, destructor) == 0;
}

static inline bool ct__exit_key_set(ct__exit_key key, void *value) { return pthread_setspecific(key, value) == 0; }
#endif
