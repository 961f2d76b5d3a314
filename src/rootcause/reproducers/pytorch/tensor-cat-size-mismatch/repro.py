"""torch.cat along dim 0 of (2, 3) and (2, 4).

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
a = torch.randn(2, 3)
b = torch.randn(2, 4)
dim = 1 if mode == "workaround-0" else 0
print(torch.cat([a, b], dim=dim).shape)
