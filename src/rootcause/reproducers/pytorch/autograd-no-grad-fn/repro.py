"""A loss computed under torch.no_grad() reaches backward().

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
x = torch.randn(8, 4)
if mode == "workaround-0":
    loss = model(x).pow(2).mean()
else:
    with torch.no_grad():
        loss = model(x).pow(2).mean()
loss.backward()
print(model.weight.grad)
