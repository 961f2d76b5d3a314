"""out.numpy() on a tensor that requires grad.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
out = model(torch.randn(2, 3))
if mode == "workaround-0":
    print(out.detach().cpu().tolist())
elif mode == "workaround-1":
    with torch.no_grad():
        out = model(torch.randn(2, 3))
    print(out.tolist())
else:
    out.numpy()
