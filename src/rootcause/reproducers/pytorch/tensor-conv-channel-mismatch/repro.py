"""Conv2d(3, 8) fed a 4-channel image.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
conv = torch.nn.Conv2d(3, 8, 3)
x = torch.randn(1, 4, 32, 32)
if mode == "workaround-0":
    x = x[:, :3]  # drop the alpha channel, as an RGBA->RGB conversion does
elif mode == "workaround-2":
    conv = torch.nn.Conv2d(x.shape[1], 8, 3)
print(conv(x).shape)
