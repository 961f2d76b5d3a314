"""0*sqrt(x)/0 under detect_anomaly: a backward function returns nan.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
x = torch.tensor([0.0, 1.0, 4.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    if mode == "workaround-0":
        y = torch.sqrt(x + 1e-6) * 2.0  # the unsafe expression made finite
    else:
        y = torch.sqrt(x) * 0.0 / 0.0
    y.sum().backward()
print(x.grad)
