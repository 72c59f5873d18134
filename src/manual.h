/* ctorch.h - PyTorch's core as a single-header C library.
 *
 * Generated from src/ by `make amalgamate`; edit src/, not this file.
 *
 * 1. QUICK START
 *
 *    In exactly one C or C++ file:
 *
 *        #define CTORCH_IMPLEMENTATION
 *        #include "ctorch.h"
 *
 *    and `#include "ctorch.h"` wherever else it is used. Link with -lm.
 *
 *        ct_manual_seed(0);
 *        ct_tensor *x = ct_rand(CT_SHAPE(2, 3), CT_F32, NULL);   // torch.rand(2, 3)
 *        ct_tensor *y = ct_index(x, ":, 1:");                     // x[:, 1:], a view
 *        ct_print(y);                                             // tensor([[0.7682, 0.0885], ...
 *        ct_release(y);
 *        ct_release(x);
 *
 *    Names follow PyTorch's: torch.zeros is ct_zeros, Tensor.view is ct_view,
 *    an in-place Tensor.fill_ is ct_fill_. Shapes are written inline with
 *    CT_SHAPE(3, 4); dtypes are CT_F32, CT_I64, ... and CT_DEFAULT (0) means the
 *    default dtype. Python numbers are ct_scalar values made by ct_int(2),
 *    ct_float(2.5) and ct_bool(true), because PyTorch treats them differently.
 *
 * 2. MEMORY RULES
 *
 *    Tensors are refcounted. Every function that returns a tensor returns a new
 *    reference, which the caller gives back with ct_release (ct_retain takes
 *    another). A view shares its storage: the storage lives while any view does.
 *
 *    Scopes free a loop's temporaries without a ct_release for each:
 *
 *        for (int step = 0; step < n; step++) {
 *            ct_scope s = ct_scope_begin();
 *            ... every tensor made here belongs to the scope ...
 *            best = ct_keep(t);       // except those handed on with ct_keep
 *            ct_scope_end(s);         // releases the rest
 *        }
 *
 *    While a scope is open on a thread, tensors returned on that thread belong
 *    to it: do not ct_release them. ct_keep hands one reference on to the
 *    enclosing scope, or to the caller when no scope encloses it. Scopes nest,
 *    and ending one ends those still open inside it.
 *
 *    ct_from_blob wraps caller memory without copying (torch.from_numpy); an
 *    optional deleter is called when the last view goes.
 *
 * 3. ERRORS
 *
 *    Bad input never aborts the program and never leaves state half changed.
 *    A function that makes a tensor returns NULL on failure; one that acts
 *    returns a ct_result (CT_OK is 0, errors are negative and name the Python
 *    exception PyTorch raises: CT_ERR_RUNTIME, CT_ERR_INDEX, ...). The message,
 *    worded as PyTorch's, is ct_last_error(); ct_clear_error() forgets it.
 *    A function given a NULL tensor returns NULL and keeps the error already
 *    pending, so a chain of calls is checked once at its end:
 *
 *        ct_tensor *r = ct_view(ct_transpose(x, 0, 1), CT_SHAPE(-1));
 *        if (!r) fprintf(stderr, "%s\n", ct_last_error());
 *        // view size is not compatible with input tensor's size and stride ...
 *
 *    ct_set_error_handler installs a callback for every new error (to log, or
 *    to abort in a debug build).
 *
 * 4. THREADS
 *
 *    Tensors may be passed between threads; refcounts are atomic. Writing a
 *    tensor on one thread while another reads or writes it is a data race, as
 *    in PyTorch. Errors and scopes are per thread. The default generator is
 *    shared (as torch.default_generator is): give each thread its own
 *    ct_generator when several draw random numbers at once. Built with
 *    -fopenmp, large elementwise kernels run on OpenMP threads.
 *
 * 5. DEVICES
 *
 *    Every tensor lives on a device (ct_device_of): the CPU, or one a backend
 *    registers (ctorch_cuda.cu's CUDA, PyTorch's PrivateUse1 slot).
 *    ct_to_device moves a tensor; creation functions use the default device
 *    (ct_set_default_device, ct_device_guard_begin). Reading a device's
 *    tensor on the host (ct_item, ct_copy_to_array, printing, saving) copies
 *    it and waits for the device. A backend compiled apart defines
 *    CTORCH_BACKEND before including this file to see the backend interface
 *    (ct_backend, ct_register_backend). The CPU keeps freed tensor blocks
 *    for the next tensors of their sizes (ct_memory_stats, ct_empty_cache);
 *    CTORCH_CPU_CACHE_MAX in the environment or ct_set_cpu_cache_limit
 *    bounds what it keeps, 0 turns that off.
 *
 * 6. BUILD OPTIONS
 *
 *    CTORCH_IMPLEMENTATION   compile the implementation in this file
 *    CTORCH_STATIC           make every function static (one file uses ctorch)
 *    CT_MALLOC, CT_REALLOC, CT_FREE   the allocator (define all three or none)
 *    CT_ASSERT               internal invariant checks (default: assert)
 *    CTORCH_BACKEND          the backend interface, for a device's translation unit
 *    CTORCH_OPENBLAS         GEMM through OpenBLAS's cblas; LU, Cholesky, QR,
 *                            eigh, SVD, eig and lstsq's gels/gelsy through its
 *                            LAPACK, PyTorch's routines (link -lopenblas)
 *    CTORCH_PTHREADS         on Windows, ctorch's threads on POSIX threads
 *                            (winpthreads) rather than Windows' own
 *    -fopenmp                parallel kernels
 *
 *    ctorch is C11 and compiles as C++17; it needs the C math library (-lm).
 */
