"""w.add_(1.0) on a leaf that requires grad.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
if mode == "workaround-0":
    with torch.no_grad():
        w.add_(1.0)
else:
    w.add_(1.0)
print(w)
