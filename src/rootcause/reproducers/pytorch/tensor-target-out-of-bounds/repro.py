"""3-class logits with a target of 5.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
target = torch.tensor([0, 5, 1])
classes = 3
if mode == "workaround-0":
    classes = int(target.max()) + 1
logits = torch.randn(3, classes)
print(torch.nn.functional.cross_entropy(logits, target))
