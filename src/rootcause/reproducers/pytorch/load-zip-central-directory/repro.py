"""torch.load of a checkpoint truncated to half its size.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
import shutil

torch.save(torch.nn.Linear(512, 512).state_dict(), "good.pt")
shutil.copy("good.pt", "ckpt.pt")
with open("ckpt.pt", "r+b") as f:
    f.truncate(os.path.getsize("ckpt.pt") // 2)
if mode == "workaround-0":
    shutil.copy("good.pt", "ckpt.pt")  # fetch it again
print(sorted(torch.load("ckpt.pt")))
