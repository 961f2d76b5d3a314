"""nn.Linear built under torch.device('meta') and called on a CPU input.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
with torch.device("meta"):
    model = torch.nn.Linear(4, 2)
if mode == "workaround-1":
    model = model.to_empty(device="cpu")
    model.reset_parameters()
print(model(torch.randn(3, 4)).shape)
