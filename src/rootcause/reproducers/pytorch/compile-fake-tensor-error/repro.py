"""A compiled matmul of (2, 3) and (4, 5) tensors.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
@torch.compile(backend="eager")
def f(a, b):
    return a @ b


b = torch.randn(3, 5) if mode == "workaround-0" else torch.randn(4, 5)
print(f(torch.randn(2, 3), b).shape)
