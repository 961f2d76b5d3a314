"""A branch on y.sum().item() under torch.compile(fullgraph=True).

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
@torch.compile(fullgraph=mode != "workaround-2", backend="eager")
def step(x):
    y = x * 2
    if mode == "workaround-0":
        return torch.where(y.sum() > 0, y + 1, y - 1)
    if y.sum().item() > 0:
        return y + 1
    return y - 1


print(step(torch.randn(8)))
