# ctorch: build, test, demo, bench. Every target first regenerates ctorch.h from src/.
#   make test          the whole suite (what README and CI run)
#   make test-asan     the whole suite under ASan + UBSan + LeakSanitizer
#   make test-openblas the products and decompositions' tests with OPENBLAS=1
#   make test-tsan     the data loader's, the threads', the CPU allocator's and the gloo backend's tests under ThreadSanitizer
#   make fuzz          each parser under libFuzzer for FUZZ_TIME seconds (clang, libclang-rt-14-dev)
#   make install       headers, ctorch_cuda.cu, build/libctorch.a and ctorch.pc under PREFIX (/usr/local)
#   make test-consumer a small project using ctorch through CMake and pkg-config
#   make test-mingw    a subset of the suite built with mingw-w64 and run under wine
#   make test-aarch64  a subset of the suite built for aarch64 and run under qemu-user
#   make cuda          ctorch_cuda.cu's object and the op suites linked with it (nvcc; run by make test)
#   make cuda-emu      the op suites on ctorch_cuda.cu's host emulation (no GPU; run by make test)
#   make gpu-bundle    the CUDA suites, small enough to carry to a GPU machine without a compiler (tests/gpu.sh there)
#   make test-dist     ctorch_dist.h's tests under mpirun with 2, 3 and 4 ranks (libopenmpi-dev), on gloo under ctorchrun, and ctorchrun's
#   make test-dist-asan the same under ASan + UBSan + LeakSanitizer
#   make demo          the main demo: a small CNN learns the bundled digits
#   make tour          a tour of the tensor API
#   make char_transformer  a small GPT learns the bundled text (data/kjv.txt) and writes some
#   make fashion       an MLP and a CNN learn Fashion-MNIST (apt-get install dataset-fashion-mnist)
#   make bench         the benchmarks (ratios against PyTorch when python3-torch is installed)
#   make bench-dist    all_reduce against MPI_Allreduce and on gloo, a DDP step against PyTorch's, gloo's
#                      broadcast and all_gather (NP=2 ranks)
# Options: OPENMP=0 to build without OpenMP, OPENBLAS=1 to use OpenBLAS, GC_SECTIONS=1 for smaller programs, CC=clang.

CC      ?= cc
OPENMP  ?= 1
OPENBLAS ?= 0
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -pedantic
BUILD   ?= build
EXE     ?=
LDLIBS  := -lm -lpthread

ifeq ($(OPENMP),1)
  CFLAGS += -fopenmp
  LDFLAGS += -fopenmp
endif
# zlib (gzip IDX and CSV files) when its header is installed: ZLIB=0 to leave it out
ZLIB    ?= $(shell test -f /usr/include/zlib.h && echo 1 || echo 0)
ifeq ($(ZLIB),1)
  CFLAGS += -DCTORCH_ZLIB
  LDLIBS += -lz
endif
ifeq ($(OPENBLAS),1)
  CFLAGS += -DCTORCH_OPENBLAS
  LDLIBS += -lopenblas
endif
# GC_SECTIONS=1: each function and variable in a section of its own, and the
# linker drops those no one uses (a smaller program: README, "Binary size")
GC_SECTIONS ?= 0
ifeq ($(GC_SECTIONS),1)
  CFLAGS += -ffunction-sections -fdata-sections
  LDFLAGS += -Wl,--gc-sections
endif

SRC     := $(shell find src -name '*.[ch]' -o -name '*.cu') tools/amalgamate.sh
DIST_TESTS := $(patsubst tests/dist/%.c,$(BUILD)/dist/%,$(wildcard tests/dist/test_*.c))
GLOO_TESTS := $(patsubst tests/dist/%.c,$(BUILD)/dist/gloo/%,$(wildcard tests/dist/test_*.c))
TESTS   := $(patsubst tests/%.c,$(BUILD)/%$(EXE),$(wildcard tests/test_*.c))
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c examples/seeds/*.c))

.PHONY: gpu-bundle all amalgamate install test-consumer test test-build cross-test test-mingw test-aarch64 test-asan test-openblas \
        test-tsan test-valgrind fuzz fuzz-build test-dist test-dist-asan demo tour char_transformer fashion bench \
        bench-dist cuda cuda-emu clean

all: ctorch.h ctorch_dist.h $(TESTS) $(EXAMPLES) $(BUILD)/ctorchrun

amalgamate: ctorch.h ctorch_dist.h ctorch_cuda.cu

# one run writes both headers (each only when its text changed)
ctorch.h ctorch_dist.h ctorch_cuda.cu &: $(SRC)
	tools/amalgamate.sh

# The implementation, compiled once per configuration (a project's two-step
# build: README, "Building"); the tests and examples link it.
$(BUILD)/ctorch.o: ctorch.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -DCTORCH_IMPLEMENTATION -x c -c ctorch.h -o $@

$(BUILD)/libctorch.a: $(BUILD)/ctorch.o
	rm -f $@ && ar rcs $@ $<

# The headers with the CUDA backend's source beside them, the library and
# ctorch.pc (pkg-config) under PREFIX.
PREFIX  ?= /usr/local
install: $(BUILD)/libctorch.a ctorch.h ctorch_dist.h ctorch_cuda.cu
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 ctorch.h ctorch_dist.h ctorch_cuda.cu $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(BUILD)/libctorch.a $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBS@|$(strip $(LDFLAGS) $(LDLIBS))|' tools/ctorch.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/ctorch.pc

# A small project using ctorch through CMake (add_subdirectory, find_package)
# and pkg-config (tests/consumer/run.sh).
test-consumer: ctorch.h
	@tests/consumer/run.sh

$(BUILD)/harness.o: tests/harness.c tests/harness.h tests/testdev.h ctorch.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -c $< -o $@

# The test device: a backend compiled apart, as ctorch_cuda.cu is (tests/testdev.c).
$(BUILD)/testdev.o: tests/testdev.c tests/testdev.h ctorch.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -c $< -o $@

TEST_LIBS = $(BUILD)/harness.o $(BUILD)/testdev.o $(BUILD)/libctorch.a
$(BUILD)/test_%$(EXE): tests/test_%.c $(TEST_LIBS) tests/harness.h examples/digits.h examples/gpt.h ctorch.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -Itests -DCT_BUILD_DIR='"$(BUILD)"' $< $(TEST_LIBS) -o $@ $(LDFLAGS) $(LDLIBS)

# The examples the suite runs, linked with the implementation compiled once:
# CTORCH_IMPLEMENTATION_DONE makes their own #define CTORCH_IMPLEMENTATION
# include the declarations only.
$(BUILD)/examples/%: examples/%.c examples/digits.h examples/gpt.h ctorch.h $(BUILD)/libctorch.a
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -DCTORCH_IMPLEMENTATION_DONE -I. $< $(BUILD)/libctorch.a -o $@ $(LDFLAGS) $(LDLIBS)

# The demo, the tour and the Fashion-MNIST example as users build them:
# optimised for this machine's vector units (the kernels are plain C that the
# compiler vectorises; without -march it can use SSE2 only on x86-64).
BIN_OPT ?= -O3 -march=native
$(BUILD)/bin/%: examples/%.c examples/digits.h examples/gpt.h ctorch.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) $(BIN_OPT) -I. $< -o $@ $(LDFLAGS) $(LDLIBS)

# The CUDA backend (ctorch_cuda.cu, with nvcc from the CUDA Toolkit: CUDA=0
# leaves it out) and the op suites that tests/run.sh runs again on cuda:0,
# linked with it: run where a GPU is there, reported skipped by name where not.
NVCC      ?= /usr/local/cuda/bin/nvcc
CUDA_HOME ?= /usr/local/cuda
CUDA      ?= $(shell test -x $(NVCC) && echo 1 || echo 0)
CUDA_ARCH ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 \
             -gencode arch=compute_90,code=compute_90
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcublas -lcudart -lstdc++
DEVICE_SUITES := pointwise reduce join index sort products conv layers nn optim rnn autograd function grad_pointwise \
                 grad_reduce grad_join views create random decomp einsum print io data sched autocast
CUDA_TESTS := $(DEVICE_SUITES:%=$(BUILD)/cuda/test_%) $(BUILD)/cuda/gpu_count $(BUILD)/cuda/nccl_test $(BUILD)/cuda/cuda_backend
ifneq ($(CUDA),1)
  CUDA_TESTS :=
endif

$(BUILD)/cuda/ctorch_cuda.o: ctorch_cuda.cu ctorch.h
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 -O2 $(CUDA_ARCH) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -I. -c $< -o $@

$(DEVICE_SUITES:%=$(BUILD)/cuda/test_%) $(BUILD)/cuda/cuda_backend: $(BUILD)/cuda/%: tests/%.c $(BUILD)/cuda/ctorch_cuda.o $(TEST_LIBS) tests/harness.h examples/digits.h examples/gpt.h ctorch.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -Itests -DCT_BUILD_DIR='"$(BUILD)"' $< $(BUILD)/cuda/ctorch_cuda.o $(TEST_LIBS) \
	    -o $@ $(LDFLAGS) $(LDLIBS) $(CUDA_LIBS)

$(BUILD)/cuda/gpu_count: tests/gpu_count.c $(BUILD)/cuda/ctorch_cuda.o $(BUILD)/libctorch.a ctorch.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. $< $(BUILD)/cuda/ctorch_cuda.o $(BUILD)/libctorch.a -o $@ $(LDFLAGS) $(LDLIBS) $(CUDA_LIBS)

# The CUDA suites for a GPU machine that has no compiler (the device tool
# carries 64 MiB): ctorch and its CUDA backend as shared libraries, each
# program linked with them and stripped, and the suite list; tests/gpu.sh
# runs them there. Each statically linked CUDA program is ~28 MB.
GPU_BUNDLE := build/gpu
GPU_PROGS  := $(DEVICE_SUITES:%=$(GPU_BUNDLE)/cuda/test_%) $(GPU_BUNDLE)/cuda/cuda_backend
GPU_LINK   := -L$(GPU_BUNDLE)/lib -Wl,-rpath,'$$ORIGIN/../lib' -Wl,--no-as-needed -lctorch_cuda -lctorch \
              $(CUDA_LIBS) -lm -lpthread -fopenmp
gpu-bundle: $(GPU_PROGS) $(GPU_BUNDLE)/cuda/gpu_count $(GPU_BUNDLE)/cuda/nccl_test
	echo "$(DEVICE_SUITES)" > $(GPU_BUNDLE)/suites
	strip $^ $(GPU_BUNDLE)/lib/*.so
	du -sh $(GPU_BUNDLE)

$(GPU_BUNDLE)/lib/libctorch.so: ctorch.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -fopenmp -fPIC -shared -DCTORCH_IMPLEMENTATION -x c ctorch.h -o $@ -lm -lpthread

$(GPU_BUNDLE)/lib/libctorch_cuda.so: ctorch_cuda.cu ctorch.h $(GPU_BUNDLE)/lib/libctorch.so
	$(NVCC) -std=c++17 -O2 $(CUDA_ARCH) -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror,-fPIC -shared -I. $< \
	    -o $@ -L$(GPU_BUNDLE)/lib -lctorch -lcublas

$(GPU_BUNDLE)/harness.o $(GPU_BUNDLE)/testdev.o: $(GPU_BUNDLE)/%.o: tests/%.c tests/harness.h ctorch.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -I. -c $< -o $@

$(GPU_PROGS): $(GPU_BUNDLE)/cuda/%: tests/%.c $(GPU_BUNDLE)/lib/libctorch_cuda.so $(GPU_BUNDLE)/harness.o \
              $(GPU_BUNDLE)/testdev.o tests/harness.h examples/digits.h examples/gpt.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -I. -Itests -DCT_BUILD_DIR='"$(GPU_BUNDLE)"' $< $(GPU_BUNDLE)/harness.o $(GPU_BUNDLE)/testdev.o \
	    -o $@ $(GPU_LINK)

$(GPU_BUNDLE)/cuda/gpu_count: tests/gpu_count.c $(GPU_BUNDLE)/lib/libctorch_cuda.so
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -I. $< -o $@ $(GPU_LINK)

$(GPU_BUNDLE)/cuda/nccl_test: tests/dist/nccl_test.c tests/dist/free_port.h $(GPU_BUNDLE)/lib/libctorch_cuda.so \
                              $(GPU_BUNDLE)/harness.o $(GPU_BUNDLE)/testdev.o ctorch_dist.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) -O2 -DCTORCH_DIST_NCCL -I. -Itests -I$(CUDA_HOME)/include $< $(GPU_BUNDLE)/harness.o \
	    $(GPU_BUNDLE)/testdev.o -o $@ $(GPU_LINK) -lnccl

# The CUDA backend's host emulation (tests/cuda_emu): ctorch_cuda.cu built by
# the C++ compiler with emu.h, linked with emu.cpp in place of the CUDA
# runtime and cuBLAS, so that the op suites run its kernels without a GPU
# (tests/run.sh: @cuda-emu). Needs the Toolkit's headers only.
CXX       ?= g++
CUDA_EMU  ?= $(shell test "$(CUDA)" = 1 && test -f $(CUDA_HOME)/include/curand_kernel.h && echo 1 || echo 0)
EMU_FLAGS := -std=c++17 -O1 -g -Wall -Wextra -Werror -I. -I$(CUDA_HOME)/include
EMU_OBJS  := $(BUILD)/cuda-emu/ctorch_cuda.o $(BUILD)/cuda-emu/emu.o
EMU_PROGS := $(DEVICE_SUITES:%=$(BUILD)/cuda-emu/test_%) $(BUILD)/cuda-emu/cuda_backend
EMU_TESTS := $(EMU_PROGS) $(BUILD)/cuda-emu/nccl_test
ifneq ($(CUDA_EMU),1)
  EMU_TESTS :=
endif

$(BUILD)/cuda-emu/ctorch_cuda.o: ctorch_cuda.cu ctorch.h tests/cuda_emu/emu.h
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_FLAGS) -include tests/cuda_emu/emu.h -x c++ -c $< -o $@

$(BUILD)/cuda-emu/emu.o: tests/cuda_emu/emu.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(EMU_FLAGS) -c $< -o $@

$(EMU_PROGS): $(BUILD)/cuda-emu/%: tests/%.c $(EMU_OBJS) $(TEST_LIBS) tests/harness.h examples/digits.h examples/gpt.h ctorch.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -Itests -DCT_BUILD_DIR='"$(BUILD)"' -DCT_CUDA_EMU $< $(EMU_OBJS) $(TEST_LIBS) \
	    -o $@ $(LDFLAGS) $(LDLIBS) -lstdc++

$(BUILD)/cuda-emu/nccl_test: tests/dist/nccl_test.c tests/dist/free_port.h $(EMU_OBJS) $(TEST_LIBS) tests/harness.h \
                             ctorch.h ctorch_dist.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -DCTORCH_DIST_NCCL -I. -Itests -I$(CUDA_HOME)/include $< $(EMU_OBJS) $(TEST_LIBS) \
	    -o $@ $(LDFLAGS) $(LDLIBS) -lstdc++

# ctorch_dist.h's nccl backend (NCCL ships with the CUDA Toolkit here), one rank on cuda:0
$(BUILD)/cuda/nccl_test: tests/dist/nccl_test.c tests/dist/free_port.h $(BUILD)/cuda/ctorch_cuda.o $(TEST_LIBS) \
                         tests/harness.h ctorch.h ctorch_dist.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -DCTORCH_DIST_NCCL -I. -Itests -I$(CUDA_HOME)/include $< $(BUILD)/cuda/ctorch_cuda.o \
	    $(TEST_LIBS) -o $@ $(LDFLAGS) $(LDLIBS) -L$(CUDA_HOME)/lib64 -lnccl $(CUDA_LIBS)

cuda-emu: $(EMU_PROGS) $(BUILD)/cuda-emu/nccl_test

cuda: $(BUILD)/cuda/ctorch_cuda.o $(DEVICE_SUITES:%=$(BUILD)/cuda/test_%) $(BUILD)/cuda/gpu_count $(BUILD)/cuda/nccl_test \
      $(BUILD)/cuda/cuda_backend

# Build on all cores.
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
test-build: ctorch.h
	@$(MAKE) -k -j$(JOBS) --no-print-directory $(TESTS) $(EXAMPLES) $(CUDA_TESTS) $(EMU_TESTS) $(BUILD)/ctorchrun || true

test: test-build
	@CC="$(CC)" BUILD="$(BUILD)" CUDA="$(CUDA)" CUDA_EMU="$(CUDA_EMU)" DEVICE_SUITES="$(DEVICE_SUITES)" tests/run.sh

# Cross builds: the library and a subset of the suites built by another
# compiler (no zlib, static where the runtime is not at hand), run by
# tests/run.sh through RUN, an emulator, without the device suites' second
# run. Neither runs the suites that compile or run host programs (readme,
# seeds) or fork (alloc_fail). README, "Build options", says why each one
# leaves out more.
CROSS_LEFT_OUT   := readme seeds alloc_fail
# Windows: the suites whose tests need POSIX or glibc (symbolic links,
# setrlimit, /proc, mallinfo2), or whose golden values hold glibc's last
# bits of pow, acosh, erfc, lgamma, log, sin, cos and others, where
# mingw-w64's libm differs, run with those tests or cases reported skipped
# (tests/harness.h, RUN_NOT_ON_WINDOWS); io is left out, for time (its
# atomic saves' fsyncs take minutes under wine).
MINGW_LEFT_OUT   := io
# aarch64: glibc's hypot takes its FMA path there (grad_pointwise's hypot
# gradient differs in the last bit); qemu-user drops madvise(MADV_HUGEPAGE),
# which create's test_large_blocks looks for; conv, io and nn take minutes
# under qemu.
AARCH64_LEFT_OUT := grad_pointwise create conv io nn
ALL_SUITES := $(patsubst tests/test_%.c,%,$(wildcard tests/test_*.c))
MINGW_CC   ?= x86_64-w64-mingw32-gcc
WINE       ?= /usr/lib/wine/wine64
AARCH64_CC ?= aarch64-linux-gnu-gcc
QEMU       ?= qemu-aarch64
cross-test: ctorch.h
	@$(MAKE) -k -j$(JOBS) --no-print-directory $(SUITES:%=$(BUILD)/test_%$(EXE)) || true
	@CC="$(CC)" BUILD="$(BUILD)" EXE="$(EXE)" RUN="$(RUN)" SUITES="$(SUITES)" DEVICE_SUITES= tests/run.sh

# -mfma: mingw-w64's fma() and fmaf() round twice, where PyTorch's kernels
# (and ctorch's, to give their bits) fuse. WINEDEBUG=-all keeps wine's own
# diagnostics out of the tests' output. ctorch's threads are Windows' own
# there; MINGW_THREADS=pthreads builds them on winpthreads (CTORCH_PTHREADS)
# in build-mingw-pthreads.
MINGW_THREADS ?= windows
MINGW_PTHREADS := $(filter pthreads,$(MINGW_THREADS))
test-mingw:
	@WINEPREFIX=$(CURDIR)/build-mingw/wineprefix WINEDEBUG=-all $(MAKE) --no-print-directory cross-test \
	    BUILD=build-mingw$(MINGW_PTHREADS:%=-%) EXE=.exe CC=$(MINGW_CC) OPT="-O2 -mfma $(MINGW_PTHREADS:%=-DCTORCH_PTHREADS)" \
	    ZLIB=0 CUDA=0 LDFLAGS="-fopenmp -static" \
	    RUN="$(WINE)" SUITES="$(filter-out $(CROSS_LEFT_OUT) $(MINGW_LEFT_OUT),$(ALL_SUITES))"

test-aarch64:
	@QEMU_LD_PREFIX=/usr/aarch64-linux-gnu $(MAKE) --no-print-directory cross-test BUILD=build-aarch64 \
	    CC=$(AARCH64_CC) ZLIB=0 CUDA=0 RUN="$(QEMU)" SUITES="$(filter-out $(CROSS_LEFT_OUT) $(AARCH64_LEFT_OUT),$(ALL_SUITES))"

# allocator_may_return_null: tests ask for impossible sizes and expect an error, not an abort
test-asan:
	@ASAN_OPTIONS=allocator_may_return_null=1 $(MAKE) --no-print-directory test BUILD=build-asan CC=clang OPENMP=0 CUDA=0 \
	    OPT="-O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# The distributed layer's tests: built with mpicc against the harness's
# implementation of ctorch, run under mpirun with 2, 3 and 4 ranks by
# tests/dist/run.sh (which reports them skipped, by name, without MPI).
MPICC   ?= mpicc
$(BUILD)/dist/test_%: tests/dist/test_%.c tests/dist/dist_harness.h $(TEST_LIBS) tests/harness.h ctorch.h ctorch_dist.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 $(WARN) $(CFLAGS) -DCTORCH_DIST_MPI -I. -Itests $< $(TEST_LIBS) -o $@ $(LDFLAGS) $(LDLIBS)

# The same programs on the gloo backend: no MPI, run under ctorchrun.
$(BUILD)/dist/gloo/test_%: tests/dist/test_%.c tests/dist/dist_harness.h $(TEST_LIBS) tests/harness.h ctorch.h ctorch_dist.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -Itests $< $(TEST_LIBS) -o $@ $(LDFLAGS) $(LDLIBS)

# The distributed examples, each with its own implementation of ctorch
$(BUILD)/examples/dist/%: examples/dist/%.c examples/digits.h ctorch.h ctorch_dist.h
	@mkdir -p $(dir $@)
	$(MPICC) -std=c11 $(WARN) $(CFLAGS) -DCTORCH_DIST_MPI -I. -Iexamples $< -o $@ $(LDFLAGS) $(LDLIBS)

# ctorchrun, torchrun for programs (tools/ctorchrun.c), and the worker its
# tests drive (tests/dist/launcher.sh, run by test-dist; no MPI needed).
$(BUILD)/ctorchrun: tools/ctorchrun.c src/dist/listen.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) $< -o $@ $(LDFLAGS)

$(BUILD)/dist/launch_worker: tests/dist/launch_worker.c tests/dist/free_port.h src/dist/listen.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) $< -o $@ $(LDFLAGS)

# ct_dist_spawn's tests, and the gloo backend's rendezvous and failures: no
# MPI, run once by tests/dist/run.sh
$(BUILD)/dist/spawn_test $(BUILD)/dist/gloo_test: $(BUILD)/dist/%: tests/dist/%.c $(TEST_LIBS) tests/harness.h ctorch.h ctorch_dist.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -Itests $< $(TEST_LIBS) -o $@ $(LDFLAGS) $(LDLIBS)

test-dist: ctorch.h ctorch_dist.h
	@BUILD="$(BUILD)" MPICC="$(MPICC)" MAKE="$(MAKE)" DIST_TESTS="$(DIST_TESTS)" GLOO_TESTS="$(GLOO_TESTS)" tests/dist/run.sh

# ctorch_dist.h's tests under ASan, UBSan and LeakSanitizer, with test-asan's
# harness (MPI's own allocations are suppressed: tests/dist/lsan.supp).
test-dist-asan:
	@ASAN_OPTIONS=allocator_may_return_null=1:fast_unwind_on_malloc=0 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/dist/lsan.supp OMPI_CC=clang \
	    $(MAKE) --no-print-directory test-dist BUILD=build-asan CC=clang OPENMP=0 \
	    OPT="-O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# The products, decompositions (with their error cases: gels's full-rank
# error comes from LAPACK's info there), convolutions and einsum through
# OpenBLAS's cblas GEMM and LAPACK (libopenblas-dev): the same golden values
# as the built-in kernels.
BLAS_TESTS := products decomp errors_decomp conv einsum
test-openblas: ctorch.h
	@$(MAKE) --no-print-directory -j$(JOBS) $(BLAS_TESTS:%=build-blas/test_%) BUILD=build-blas OPENBLAS=1
	@status=0; for t in $(BLAS_TESTS); do build-blas/test_$$t || status=1; done; exit $$status

# The loader's worker threads, threads training shared parameters, the CPU
# allocator, and the gloo backend's store, engine and worker threads (its
# rendezvous and failures, and the collectives at 3 processes), under
# ThreadSanitizer.
TSAN_TESTS := data threads cpu_alloc
TSAN_GLOO  := build-tsan/dist/gloo_test build-tsan/dist/gloo/test_collectives build-tsan/ctorchrun
test-tsan: ctorch.h ctorch_dist.h
	@$(MAKE) --no-print-directory -j$(JOBS) $(TSAN_TESTS:%=build-tsan/test_%) $(TSAN_GLOO) BUILD=build-tsan CC=clang \
	    OPENMP=0 OPT="-O1 -fsanitize=thread"
	@status=0; for t in $(TSAN_TESTS); do TSAN_OPTIONS=halt_on_error=1 build-tsan/test_$$t || status=1; done; \
	TSAN_OPTIONS=halt_on_error=1 build-tsan/dist/gloo_test || status=1; \
	TSAN_OPTIONS=halt_on_error=1 build-tsan/ctorchrun --standalone --nproc_per_node 3 \
	    build-tsan/dist/gloo/test_collectives || status=1; exit $$status

# The suite's programs under valgrind's memcheck: fails on leaks and invalid
# accesses only (valgrind emulates some float conversions, such as int64 to
# float32, with double rounding, so value checks can differ under it). Slow.
test-valgrind: test-build
	@status=0; for t in $(TESTS); do \
	    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 $$t > $$t.vg 2>&1; \
	    if [ $$? = 99 ]; then echo "FAIL $$t (see $$t.vg)"; status=1; else echo "ok   $$t"; fi; \
	done; exit $$status

# The parsers under libFuzzer with ASan and UBSan (tests/fuzz): ctorch is
# built once (impl.o), each target links it. FUZZ_TIME seconds per target,
# from the seed corpora in tests/fuzz/corpus; findings in build-fuzz/artifacts.
FUZZ_TIME ?= 60
FUZZ_TARGETS := index safetensors pth npy idx csv einsum state_dict
FUZZ_FLAGS := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_ZLIB := $(if $(filter 1,$(ZLIB)),-DCTORCH_ZLIB,)
build-fuzz/impl.o: tests/fuzz/impl.c ctorch.h
	@mkdir -p build-fuzz
	clang -std=c11 $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FUZZ_ZLIB) -I. -c $< -o $@
build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build-fuzz/impl.o
	clang -std=c11 $(WARN) $(FUZZ_FLAGS) -fsanitize=fuzzer -I. -Itests/fuzz $< build-fuzz/impl.o -o $@ $(LDLIBS)
fuzz-build: $(FUZZ_TARGETS:%=build-fuzz/fuzz_%)
fuzz: fuzz-build
	@FUZZ_TIME=$(FUZZ_TIME) BUILD=build-fuzz tests/fuzz/run.sh

# The main demo: a CNN trained on the bundled digits (needs zlib's header, zlib1g-dev).
demo: $(BUILD)/bin/train_digits
	$(BUILD)/bin/train_digits $(BUILD)/digits_loss.svg
	@echo "loss curve: $(BUILD)/digits_loss.svg"

tour: $(BUILD)/bin/tour
	$(BUILD)/bin/tour

# A small GPT learns the bundled King James text character by character, then writes some.
char_transformer: $(BUILD)/bin/char_transformer
	$(BUILD)/bin/char_transformer

# An MLP and a LeNet-style CNN on Fashion-MNIST, EPOCHS epochs each, from
# Debian's dataset-fashion-mnist package or FASHION_MNIST=dir (the four IDX files).
FASHION_MNIST ?= /usr/share/datasets/fashion-mnist
EPOCHS  ?= 1
fashion: $(BUILD)/bin/fashion_mnist
	$(BUILD)/bin/fashion_mnist $(FASHION_MNIST) $(EPOCHS)

bench: ctorch.h
	@BUILD="$(BUILD)" bench/run.sh

NP      ?= 2
bench-dist: ctorch.h ctorch_dist.h
	@mkdir -p $(BUILD)/bench
	for b in allreduce ddp_mlp; do \
	    $(MPICC) -std=c11 $(WARN) -O3 -march=native -DCTORCH_DIST_MPI -I. bench/dist/$$b.c -o $(BUILD)/bench/dist_$$b -lm && \
	    OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np $(NP) $(BUILD)/bench/dist_$$b || exit 1; \
	done
	-/usr/bin/python3 bench/dist/ddp_mlp.py $(NP)
	$(CC) -std=c11 $(WARN) -O3 -march=native -I. bench/dist/allreduce.c -o $(BUILD)/bench/dist_allreduce_gloo -lm -lpthread
	$(MAKE) --no-print-directory $(BUILD)/ctorchrun
	$(BUILD)/ctorchrun --standalone --nproc_per_node $(NP) $(BUILD)/bench/dist_allreduce_gloo
	$(CC) -std=c11 $(WARN) -O3 -march=native -I. bench/dist/broadcast_gather.c -o $(BUILD)/bench/dist_broadcast_gather -lm -lpthread
	$(BUILD)/ctorchrun --standalone --nproc_per_node $(NP) $(BUILD)/bench/dist_broadcast_gather
	-/usr/bin/python3 bench/dist/gloo_allreduce.py $(NP)

clean:
	rm -rf build build-asan build-blas build-tsan build-fuzz build-mingw build-mingw-pthreads build-aarch64
