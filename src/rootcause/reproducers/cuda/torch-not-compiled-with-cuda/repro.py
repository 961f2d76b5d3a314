"""model.cuda() on the CPU-only wheel.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
if mode == "workaround-1":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
else:
    model = model.cuda()
print(next(model.parameters()).device)
