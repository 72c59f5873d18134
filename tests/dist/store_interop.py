"""ctorch's TCP store against PyTorch's TCPStore (the oracle), both ways:
PyTorch serves and ctorch's client (gloo_test client PORT) connects, then
ctorch serves and PyTorch's client connects. Each side sets a key the other
gets and adds to one counter; then ctorch's side compares-and-sets, checks,
deletes and counts the keys, and PyTorch's side sees the outcome and does
the same in turn. Then three gloo ranks (gloo_test agent) make
their rendezvous in a store PyTorch serves, as under torchrun's agent. Usage: store_interop.py GLOO_TEST (run by
tests/dist/run.sh when python3 has torch)."""
import datetime
import os
import socket
import subprocess
import sys

import torch.distributed as dist


def python_side(master, port, c):
    """PyTorch's part, the store kept (and served) until ctorch's side exits.
    Its answers, in the order made."""
    store = dist.TCPStore("127.0.0.1", port, 2, master, timeout=datetime.timedelta(seconds=20))
    store.set("from_py", "world")
    got = [store.get("from_c")]
    store.wait(["n"])
    got.append(store.add("n", 1))
    store.set("done_py", "1")
    store.wait(["done_c"])  # ctorch's side compared-and-set from_py and deleted from_c
    got += [store.get("from_py"), store.compare_set("py_cas", "", "p"), store.compare_set("from_py", "no", "x"),
            store.delete_key("n"), store.delete_key("from_c"), store.num_keys()]
    store.set("bye_py", "1")
    out, _ = c.communicate(timeout=30)
    return got, out


# What PyTorch's side gets, and what ctorch's side prints: from the store of
# init/ (world_size 2), /from_py, /n, /done_py (/from_c deleted), then
# /done_c and /py_cas, less /n.
PYTHON_GETS = [b"hello", 6, b"c_was_here", b"p", b"c_was_here", True, False, 5]
CTORCH_SAYS = "from_py=world n=5 cas=world,c_was_here,e check=1,0 deleted=1,0 keys=4"


def free_port():
    """A port free where the stores listen (as src/dist/listen.h probes):
    on [::] for IPv6 and IPv4 alike, or on 0.0.0.0 without IPv6."""
    for family, host in ((socket.AF_INET6, "::"), (socket.AF_INET, "0.0.0.0")):
        try:
            with socket.socket(family) as s:
                if family == socket.AF_INET6:
                    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
                s.bind((host, 0))
                return str(s.getsockname()[1])
        except OSError:
            pass
    raise OSError("no free port")


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
        got, out = python_side(python_serves, int(port), c)
        ok = c.returncode == 0 and got == PYTHON_GETS and out.strip() == CTORCH_SAYS
        who = "PyTorch serves, ctorch connects" if python_serves else "ctorch serves, PyTorch connects"
        print(("ok   " if ok else "FAIL ") + "tcp_store_interop (" + who + ")")
        if not ok:
            print("    ctorch said %r (status %s); PyTorch got %r" % (out, c.returncode, got))
        failures += not ok
    failures += not agent_store(gloo_test)
    print("RESULT %d passed, %d failed, 0 skipped" % (3 - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
