"""cross_entropy with an int32 class-index target.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
logits = torch.randn(4, 3)
target = torch.tensor([0, 1, 2, 1], dtype=torch.int32)
if mode == "workaround-0":
    target = target.long()
print(torch.nn.functional.cross_entropy(logits, target))
