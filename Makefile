# ctorch: build, test, demo, bench. Every target first regenerates ctorch.h from src/.
#   make test          the whole suite (what README and CI run)
#   make test-asan     the whole suite under ASan + UBSan + LeakSanitizer
#   make test-openblas the products and decompositions' tests with OPENBLAS=1
#   make test-tsan     the data loader's tests under ThreadSanitizer
#   make fuzz          each parser under libFuzzer for FUZZ_TIME seconds (clang, libclang-rt-14-dev)
#   make demo          the main demo: a small CNN learns the bundled digits
#   make tour          a tour of the tensor API
#   make fashion       an MLP and a CNN learn Fashion-MNIST (apt-get install dataset-fashion-mnist)
#   make bench         the benchmarks (ratios against PyTorch when python3-torch is installed)
# Options: OPENMP=0 to build without OpenMP, OPENBLAS=1 to use OpenBLAS, CC=clang.

CC      ?= cc
OPENMP  ?= 1
OPENBLAS ?= 0
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
WARN    := -Wall -Wextra -pedantic
BUILD   ?= build
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

SRC     := $(shell find src -name '*.[ch]') tools/amalgamate.sh
TESTS   := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/test_*.c))
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c examples/seeds/*.c))

.PHONY: all amalgamate test test-build test-asan test-openblas test-tsan test-valgrind fuzz fuzz-build demo tour fashion bench clean

all: ctorch.h $(TESTS) $(EXAMPLES)

amalgamate: ctorch.h

ctorch.h: $(SRC)
	tools/amalgamate.sh

$(BUILD)/harness.o: tests/harness.c tests/harness.h tests/testdev.h ctorch.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -c $< -o $@

# The test device: a backend compiled apart, as ctorch_cuda.cu is (tests/testdev.c).
$(BUILD)/testdev.o: tests/testdev.c tests/testdev.h ctorch.h
	@mkdir -p $(BUILD)
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -c $< -o $@

$(BUILD)/test_%: tests/test_%.c $(BUILD)/harness.o $(BUILD)/testdev.o tests/harness.h ctorch.h
	$(CC) -std=c11 $(WARN) $(CFLAGS) -I. -Itests -DCT_BUILD_DIR='"$(BUILD)"' $< $(BUILD)/harness.o $(BUILD)/testdev.o -o $@ $(LDFLAGS) $(LDLIBS)

# The suite runs the examples to compare what they print, not for speed: each
# compiles the whole implementation, which -O0 does in a seventh of -O2's time.
EXAMPLE_OPT ?= -O0
$(BUILD)/examples/%: examples/%.c ctorch.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) $(EXAMPLE_OPT) -I. $< -o $@ $(LDFLAGS) $(LDLIBS)

# The demo, the tour and the Fashion-MNIST example as users build them:
# optimised for this machine's vector units (the kernels are plain C that the
# compiler vectorises; without -march it can use SSE2 only on x86-64).
BIN_OPT ?= -O3 -march=native
$(BUILD)/bin/%: examples/%.c ctorch.h
	@mkdir -p $(dir $@)
	$(CC) -std=c11 $(WARN) $(CFLAGS) $(BIN_OPT) -I. $< -o $@ $(LDFLAGS) $(LDLIBS)

# Every example program compiles the whole implementation: build on all cores.
JOBS    ?= $(shell nproc 2>/dev/null || echo 1)
test-build: ctorch.h
	@$(MAKE) -k -j$(JOBS) --no-print-directory $(TESTS) $(EXAMPLES) || true

test: test-build
	@CC="$(CC)" BUILD="$(BUILD)" tests/run.sh

# allocator_may_return_null: tests ask for impossible sizes and expect an error, not an abort
test-asan:
	@ASAN_OPTIONS=allocator_may_return_null=1 $(MAKE) --no-print-directory test BUILD=build-asan CC=clang OPENMP=0 \
	    OPT="-O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"

# The products, decompositions (with their error cases: gels's full-rank
# error comes from LAPACK's info there), convolutions and einsum through
# OpenBLAS's cblas GEMM and LAPACK (libopenblas-dev): the same golden values
# as the built-in kernels.
BLAS_TESTS := products decomp errors_decomp conv einsum
test-openblas: ctorch.h
	@$(MAKE) --no-print-directory -j$(JOBS) $(BLAS_TESTS:%=build-blas/test_%) BUILD=build-blas OPENBLAS=1
	@status=0; for t in $(BLAS_TESTS); do build-blas/test_$$t || status=1; done; exit $$status

# The loader's worker threads under ThreadSanitizer.
test-tsan: ctorch.h
	@$(MAKE) --no-print-directory build-tsan/test_data BUILD=build-tsan CC=clang OPENMP=0 OPT="-O1 -fsanitize=thread"
	TSAN_OPTIONS=halt_on_error=1 build-tsan/test_data

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

# The main demo: an MLP trained on the bundled digits (needs zlib's header, zlib1g-dev).
demo: $(BUILD)/bin/train_digits
	$(BUILD)/bin/train_digits $(BUILD)/digits_loss.svg
	@echo "loss curve: $(BUILD)/digits_loss.svg"

tour: $(BUILD)/bin/tour
	$(BUILD)/bin/tour

# An MLP and a LeNet-style CNN on Fashion-MNIST, EPOCHS epochs each, from
# Debian's dataset-fashion-mnist package or FASHION_MNIST=dir (the four IDX files).
FASHION_MNIST ?= /usr/share/datasets/fashion-mnist
EPOCHS  ?= 1
fashion: $(BUILD)/bin/fashion_mnist
	$(BUILD)/bin/fashion_mnist $(FASHION_MNIST) $(EPOCHS)

bench: ctorch.h
	@BUILD="$(BUILD)" bench/run.sh

clean:
	rm -rf build build-asan build-blas build-tsan build-fuzz
