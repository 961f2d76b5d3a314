"""Subtracting (5, 3) from (4, 3).

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
a = torch.randn(4, 3)
b = torch.randn(5, 3)
if mode == "workaround-0":
    b = b[: a.shape[0]]
print((a - b).shape)
