"""A 5-D (batch, time, C, H, W) input to Conv2d.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
conv = torch.nn.Conv2d(3, 4, 3)
x = torch.randn(2, 1, 3, 32, 32)
if mode == "workaround-0":
    b, t = x.shape[:2]
    y = conv(x.flatten(0, 1))
    print(y.unflatten(0, (b, t)).shape)
else:
    print(conv(x).shape)
