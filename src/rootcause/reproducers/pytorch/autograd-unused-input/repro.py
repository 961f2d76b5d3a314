"""autograd.grad with respect to a tensor the output does not use.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
a = torch.randn(3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
loss = (a * 2).sum()
if mode == "workaround-0":
    ga, gb = torch.autograd.grad(loss, [a, b], allow_unused=True)
    print(ga, gb)
elif mode == "workaround-1":
    print(torch.autograd.grad(loss, [a]))
else:
    torch.autograd.grad(loss, [a, b])
