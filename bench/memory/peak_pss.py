"""Runs a command and samples, every 20 ms, the summed proportional set size
(Pss, /proc/PID/smaps_rollup) of its process and all descendants: the memory
the whole tree holds, pages shared between a process and its forked workers
counted once. Passes the command's output through, then prints
"peak_pss_kib N" (the largest sum seen) and "peak_rss_kib N" (the command's
own process's peak resident set, from the kernel when it exits) and exits
with the command's status.

    python3 peak_pss.py COMMAND [ARG...]
"""
import os
import subprocess
import sys
import time


def children():
    """pid -> list of child pids, from /proc/*/stat."""
    tree = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(ppid, []).append(int(name))
    return tree


def pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_pss_kib(root):
    tree, total, todo = children(), 0, [root]
    while todo:
        pid = todo.pop()
        total += pss_kib(pid)
        todo.extend(tree.get(pid, []))
    return total


proc = subprocess.Popen(sys.argv[1:])
peak = 0
while True:
    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    if pid == proc.pid:
        break
    peak = max(peak, tree_pss_kib(proc.pid))
    time.sleep(0.02)
sys.stdout.flush()
print("peak_pss_kib", peak, flush=True)
print("peak_rss_kib", usage.ru_maxrss, flush=True)
sys.exit(os.waitstatus_to_exitcode(status))
