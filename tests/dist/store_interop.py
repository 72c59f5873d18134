"""ctorch's TCP store against PyTorch's TCPStore (the oracle), both ways:
PyTorch serves and ctorch's client (gloo_test client PORT) connects, then
ctorch serves and PyTorch's client connects. Each side sets a key the other
gets and adds to one counter. Then three gloo ranks (gloo_test agent) make
their rendezvous in a store PyTorch serves, as under torchrun's agent. Usage: store_interop.py GLOO_TEST (run by
tests/dist/run.sh when python3 has torch)."""
import datetime
import os
import socket
import subprocess
import sys

import torch.distributed as dist


def python_side(master, port, c):
    """PyTorch's part, the store kept (and served) until ctorch's side exits."""
    store = dist.TCPStore("127.0.0.1", port, 2, master, timeout=datetime.timedelta(seconds=20))
    store.set("from_py", "world")
    got = store.get("from_c")
    store.wait(["n"])
    total = store.add("n", 1)
    store.set("done_py", "1")
    out, _ = c.communicate(timeout=30)
    return got, total, out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def agent_store(gloo_test, world=3):
    """torchrun's agent serves the store (TORCHELASTIC_USE_AGENT_STORE=True);
    the ranks are all its clients, their keys under the restart count."""
    port = free_port()
    agent = dist.TCPStore("127.0.0.1", int(port), None, True, timeout=datetime.timedelta(seconds=20))
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=port, WORLD_SIZE=str(world),
               TORCHELASTIC_USE_AGENT_STORE="True", TORCHELASTIC_RESTART_COUNT="2")
    ranks = [subprocess.Popen([gloo_test, "agent"], env=dict(env, RANK=str(r)), stdout=subprocess.PIPE, text=True)
             for r in range(world)]
    outs = [(p.communicate(timeout=60)[0], p.returncode) for p in ranks]
    ok = all(code == 0 and out.strip() == "sum=%d" % (world * (world - 1) // 2) for out, code in outs)
    print(("ok   " if ok else "FAIL ") + "gloo_rendezvous_in_an_agent_store (%d ranks)" % world)
    if not ok:
        print("    the ranks said %r" % outs)
    del agent
    return ok


def main():
    gloo_test, ports = sys.argv[1], (free_port(), free_port())
    failures = 0
    for python_serves, port in zip((True, False), ports):
        c = subprocess.Popen([gloo_test, "client" if python_serves else "server", port],
                             stdout=subprocess.PIPE, text=True)
        got, total, out = python_side(python_serves, int(port), c)
        ok = c.returncode == 0 and got == b"hello" and total == 6 and out.strip() == "from_py=world n=5"
        who = "PyTorch serves, ctorch connects" if python_serves else "ctorch serves, PyTorch connects"
        print(("ok   " if ok else "FAIL ") + "tcp_store_interop (" + who + ")")
        if not ok:
            print("    ctorch said %r (status %s); PyTorch got %r and n=%r" % (out, c.returncode, got, total))
        failures += not ok
    failures += not agent_store(gloo_test)
    print("RESULT %d passed, %d failed, 0 skipped" % (3 - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
