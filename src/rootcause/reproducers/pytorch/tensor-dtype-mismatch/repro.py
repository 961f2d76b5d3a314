"""A float32 Linear fed a float64 tensor.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
x = torch.randn(3, 4, dtype=torch.float64)
if mode == "workaround-0":
    x = x.to(next(model.parameters()).dtype)
out = model(x)
if mode == "dead-end-0":
    out = out.float()
print(out.dtype)
