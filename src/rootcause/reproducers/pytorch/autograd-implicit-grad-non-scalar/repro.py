"""backward() on a (3, 2) output.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
w = torch.randn(2, 2, requires_grad=True)
out = torch.randn(3, 2) @ w
if mode == "workaround-0":
    out.mean().backward()
elif mode == "workaround-1":
    out.backward(torch.ones_like(out))
else:
    out.backward()
print(w.grad)
