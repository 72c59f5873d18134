#!/bin/sh
# Regenerates the golden data in tests/golden/ from PyTorch (Debian: apt-get install python3-torch).
# The files are committed, so `make test` needs no Python.
# It also writes the expected output of the demo and of each seed example
# (examples/train_digits.out, examples/seeds/*.out) from its PyTorch twin (*.py;
# train_digits.py and zero_copy.py also need python3-numpy).
set -eu
cd "$(dirname "$0")/golden"
for g in gen_*.py; do
    echo "$g"
    /usr/bin/python3 "$g"
done
cd ../..
echo examples/train_digits.py   # reads data/ from the repository root
/usr/bin/python3 examples/train_digits.py > examples/train_digits.out
cd examples/seeds
for p in *.py; do
    echo "examples/seeds/$p"
    /usr/bin/python3 "$p" > "${p%.py}.out"
done
