"""torch.load (weights_only default) of a checkpoint holding a config object.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
class TrainConfig:
    def __init__(self):
        self.lr = 0.1


torch.save({"model": torch.nn.Linear(2, 2).state_dict(), "config": TrainConfig()}, "ckpt.pt")
if mode == "workaround-0":
    with torch.serialization.safe_globals([TrainConfig]):
        print(sorted(torch.load("ckpt.pt")))
elif mode == "workaround-1":
    print(sorted(torch.load("ckpt.pt", weights_only=False)))
else:
    print(sorted(torch.load("ckpt.pt")))
