"""Starts N worker processes (like pytest-xdist or sharded jobs), each running
one kernel variant; run under capture in exec mode."""

import subprocess
import sys

WORKER = r'''
import sys
import kernels_for_tests as k
k.add_kernel[(1,)](object(), object(), 64, BLOCK=int(sys.argv[1]))
k.add_kernel[(1,)](object(), object(), 64, BLOCK=1024)   # every worker: the same variant
'''

if __name__ == "__main__":
    n = int(sys.argv[1])
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(16 << i)]) for i in range(n)]
    sys.exit(max(p.wait() for p in procs))
