"""torch.load of an empty file.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
open("ckpt.pt", "wb").close()
if mode == "workaround-0" and os.path.getsize("ckpt.pt") == 0:
    torch.save({"w": torch.ones(2)}, "ckpt.pt")  # re-create the empty checkpoint
if mode == "dead-end-0":
    print(torch.load("ckpt.pt", map_location="cpu", weights_only=False))
else:
    print(torch.load("ckpt.pt", weights_only=False))  # the plain pickle reader says "Ran out of input"
