/* Private to the implementation: system headers, allocator hooks,
 * atomics, error helpers and the per-dtype element conversions. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* ---------------------------------------------------------------- allocator hooks */

#if defined(CT_MALLOC) && defined(CT_REALLOC) && defined(CT_FREE)
#elif !defined(CT_MALLOC) && !defined(CT_REALLOC) && !defined(CT_FREE)
#define CT_MALLOC(n) malloc(n)
#define CT_REALLOC(p, n) realloc(p, n)
#define CT_FREE(p) free(p)
#define CT__LIBC_ALLOCATOR 1 /* (the CPU backend may then ask libc for more: see ct__cpu_alloc) */
#else
#error "define all of CT_MALLOC, CT_REALLOC and CT_FREE, or none"
#endif

/* Internal invariants: a failure is a bug in ctorch, not bad input. */
#ifndef CT_ASSERT
#include <assert.h>
#define CT_ASSERT(c) assert(c)
#endif

#ifdef __cplusplus
#define CT__RESTRICT __restrict
#else
#define CT__RESTRICT restrict
#endif

#if defined(__GNUC__) || defined(__clang__)
#ifdef __MINGW_PRINTF_FORMAT /* MinGW: gcc's printf is msvcrt's, but ctorch's may be MinGW's own (base.h) */
#define CT__PRINTF(f, a) __attribute__((format(__MINGW_PRINTF_FORMAT, f, a)))
#else
#define CT__PRINTF(f, a) __attribute__((format(printf, f, a)))
#endif
#define CT__ATOMIC_INC(p) __atomic_add_fetch(p, 1, __ATOMIC_RELAXED)
#define CT__ATOMIC_DEC(p) __atomic_sub_fetch(p, 1, __ATOMIC_ACQ_REL)
#define CT__ATOMIC_LOAD(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#else
#define CT__PRINTF(f, a)
#include <intrin.h>
#define CT__ATOMIC_INC(p) _InterlockedIncrement((volatile long *)(p))
#define CT__ATOMIC_DEC(p) _InterlockedDecrement((volatile long *)(p))
#define CT__ATOMIC_LOAD(p) _InterlockedOr((volatile long *)(p), 0)
#endif

/* Whether the caller drops the last reference to *refcount. Holding the only
 * reference, it needs no atomic write: no other thread can reach the object. */
static inline bool ct__last_reference(int *refcount)
{
    return CT__ATOMIC_LOAD(refcount) == 1 || CT__ATOMIC_DEC(refcount) == 0;
}

/* x made opaque to the optimiser. In a loop's body it keeps a short copy
 * loop a loop: GCC makes one a call of memcpy, which costs more than the
 * few elements (a tensor's dims) it copies. */
#if defined(__GNUC__) || defined(__clang__)
#define CT__OPAQUE(x) __asm__("" : "+r"(x))
#else
#define CT__OPAQUE(x) ((void)0)
#endif

/* memset(p, 0, n) that stays a memset. GCC and clang turn a malloc followed
 * by a memset of the whole block into calloc, and glibc's calloc bypasses
 * its per-thread cache of small blocks: several times slower for the small
 * objects (tensors, graph nodes) that every op makes. */
static inline void ct__zero(void *p, size_t n)
{
    CT__OPAQUE(p); /* no calloc, and a memset of known size may be a few stores */
    memset(p, 0, n);
}

/* Bytes per element of each dtype, by enum value (CT_DEFAULT: 0). */
static const uint8_t ct__dtype_sizes[CT_NUM_DTYPES] = {0, 1, 1, 1, 2, 4, 8, 2, 2, 4, 8};

#define CT__MIN(a, b) ((a) < (b) ? (a) : (b))
#define CT__MAX(a, b) ((a) > (b) ? (a) : (b))

/* Elementwise loops shorter than this run on one thread (PyTorch's GRAIN_SIZE). */
#define CT__GRAIN 32768

/* ---------------------------------------------------------------- errors */

/* Record an error (worded like PyTorch's) and tell the handler. Returns the code
 * so that `return ct__fail(...)` works in functions returning ct_result. */
static ct_result ct__fail(ct_result code, const char *fmt, ...) CT__PRINTF(2, 3);
/* A NULL tensor argument: keep a pending error (a failed call earlier in the
 * chain), or report the NULL in PyTorch's words. `fn` is the C function name. */
static ct_result ct__null_arg(const char *fn, const char *arg, int position);
#define CT__ARG(t, name, pos) \
    do { if (CT__UNLIKELY(!(t))) { ct__null_arg(__func__, name, pos); return NULL; } } while (0)
#define CT__ARG_R(t, name, pos) \
    do { if (CT__UNLIKELY(!(t))) return ct__null_arg(__func__, name, pos); } while (0)
#define CT__OOM() ct__fail(CT_ERR_MEMORY, "DefaultCPUAllocator: not enough memory")

/* a*b into *out, false on int64 overflow (sizes are checked before allocating). */
static inline bool ct__mul_ok(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return !__builtin_mul_overflow(a, b, out);
#else
    if (a != 0 && (b > INT64_MAX / a || b < INT64_MIN / a)) return false;
    *out = a * b;
    return true;
#endif
}

/* a*b wrapped to int64, as PyTorch's C++ computes the strides of a tensor
 * with a zero dim (torch.empty(0, 2**62, 2**62) has stride 0 in front): with
 * no elements, no stride is read, and a signed overflow is undefined in C. */
static inline int64_t ct__mul_wrap(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }

/* a+b into *out, false on int64 overflow. */
static inline bool ct__add_ok(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return !__builtin_add_overflow(a, b, out);
#else
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return false;
    *out = a + b;
    return true;
#endif
}


/* Read element i of a buffer of any dtype as a double / int64 (slow paths only). */
static double ct__read_f64(const void *p, ct_dtype dt);
static int64_t ct__read_i64(const void *p, ct_dtype dt);
/* Write a double to an element of any dtype with c10::convert's rules. */
static void ct__write_f64(void *p, ct_dtype dt, double v);
static void ct__write_i64(void *p, ct_dtype dt, int64_t v);
