"""nn.Linear(10, ...) fed a (3, 7) input. workaround-0: size in_features from the real input."""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
x = torch.randn(3, 7)
in_features = x.shape[-1] if mode == "workaround-0" else 10
model = torch.nn.Sequential(torch.nn.Linear(in_features, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
print(model(x).shape)
