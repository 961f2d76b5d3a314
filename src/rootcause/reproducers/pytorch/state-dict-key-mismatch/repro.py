"""load_state_dict of a checkpoint without fc2.bias.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 4)
        self.fc2 = torch.nn.Linear(4, 2)


sd = Net().state_dict()
del sd["fc2.bias"]
model = Net()
if mode == "workaround-2":
    result = model.load_state_dict(sd, strict=False)
    print("missing:", result.missing_keys)
else:
    print(model.load_state_dict(sd))
