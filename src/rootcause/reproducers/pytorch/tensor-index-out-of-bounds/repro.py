"""Index 5 into a tensor of size 3.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
t = torch.tensor([1.0, 2.0, 3.0])
i = 5
if mode == "workaround-1":
    i = len(t) - 1
print(t[i])
