"""In-place float multiply on a Long tensor.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
idx = torch.tensor([1, 2, 3])
if mode == "workaround-1":
    idx = idx.float()
    idx.mul_(0.5)
elif mode == "workaround-0":
    idx.mul_(int(2.0))
else:
    idx.mul_(0.5)
print(idx)
