"""In-place mul_ on the sigmoid output that autograd saved.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
x = torch.randn(4, requires_grad=True)
y = torch.sigmoid(x)
if mode == "workaround-1":
    y = y * 2
else:
    y.mul_(2)
y.sum().backward()
print(x.grad)
