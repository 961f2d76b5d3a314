"""cross_entropy of (4, 3) logits and 3 targets.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
feats = torch.randn(3, 2, 2)
target = torch.tensor([0, 2, 1])
head = torch.nn.Linear(2, 3)
if mode == "workaround-0":
    logits = torch.nn.Linear(4, 3)(torch.flatten(feats, 1))  # one row per sample
else:
    logits = head(feats.view(-1, 2))[:4]  # a view that mixes samples: 6 rows, 4 kept
print(torch.nn.functional.cross_entropy(logits, target))
