#!/bin/sh
# Regenerates the golden data in tests/golden/ from PyTorch (Debian: apt-get install python3-torch).
# The files are committed, so `make test` needs no Python.
set -eu
cd "$(dirname "$0")/golden"
for g in gen_*.py; do
    echo "$g"
    /usr/bin/python3 "$g"
done
