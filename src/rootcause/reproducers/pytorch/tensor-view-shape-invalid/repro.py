"""view(4, 2) of a tensor with 6 elements.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
x = torch.arange(6.0)
if mode == "workaround-0":
    y = x.view(2, -1)
elif mode == "dead-end-0":
    y = x.reshape(4, 2)
else:
    y = x.view(4, 2)
print(y.shape)
