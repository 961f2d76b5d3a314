"""x.t().view(24) on a transposed tensor.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
x = torch.randn(4, 6).t()
if mode == "workaround-0":
    y = x.reshape(24)
elif mode == "workaround-1":
    y = x.contiguous().view(24)
elif mode == "dead-end-0":
    y = x.view(24).contiguous()
else:
    y = x.view(24)
print(y.shape)
