"""loss.backward() twice on the same graph.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
h = (w * 2).sigmoid()
loss1 = h.sum()
loss2 = (h * h).sum()
if mode == "workaround-1":
    (loss1 + loss2).backward()  # sum the losses, one backward
else:
    loss1.backward()
    loss2.backward()
print(w.grad)
