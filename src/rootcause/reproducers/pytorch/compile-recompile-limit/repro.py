"""A compiled function called with ten different Python ints.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch


@torch.compile(backend="eager", dynamic=mode == "workaround-2")
def scale(x, n):
    return x * n


x = torch.ones(4)
for n in range(10):
    arg = torch.tensor(float(n)) if mode == "workaround-1" else n
    scale(x, arg)
print("done")
