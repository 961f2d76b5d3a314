"""A file write inside a forward compiled with fullgraph=True.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        if mode != "workaround-0":
            with open("forward.log", "a") as f:
                f.write("forward called\n")
        return y.relu()


model = torch.compile(Net(), fullgraph=mode != "workaround-1", backend="eager")
print(model(torch.randn(2, 4)).shape)
