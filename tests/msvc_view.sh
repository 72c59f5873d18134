#!/bin/sh
# ctorch.h's implementation as MSVC sees it: preprocessed with MSVC's macros
# and none of GCC's or clang's (-undef), its system headers left out. It must
# hold no GNU extension (each one sits in a GCC/clang guard with a portable
# fallback, or is rewritten) and include only headers that MSVC ships (the C
# library's, Windows', OpenMP's) or that a build option names (zlib, cblas).
# Prints what it finds; fails when it finds anything. Run by tests/run.sh.
set -eu
cd "$(dirname "$0")/.."
CC=${CC:-cc}
view=$(sed 's/^#include \(<.*>\)/ct__include \1/' ctorch.h |
       $CC -E -P -undef -D_WIN32 -D_WIN64 -D_MSC_VER=1940 -D_M_X64 -D_OPENMP -DCTORCH_ZLIB -DCTORCH_OPENBLAS \
           -DCTORCH_IMPLEMENTATION -x c -)
gnu='\b(__attribute__|__builtin_[a-z_0-9]*|__asm__|asm|__typeof__|typeof|__int128|__thread|__extension__|__label__)\b'
gnu="$gnu|vector_size|#pragma GCC|\(\{|case [^:]*\.\.\."
c11='assert|errno|float|limits|math|stdarg|stdbool|stddef|stdint|stdio|stdlib|string|time'
msvc="($c11|windows|process|intrin|omp|zlib|cblas)\.h"
found=$(printf '%s\n' "$view" | grep -nE "$gnu"; printf '%s\n' "$view" | grep "^ct__include" | grep -vE "^ct__include <$msvc>$") || true
[ -z "$found" ] || { echo "$found"; exit 1; }
