"""safetensors load_file of a file cut short.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import shutil

import torch
from safetensors.torch import load_file, save_file

save_file({"w": torch.ones(1000)}, "good.safetensors")
shutil.copy("good.safetensors", "model.safetensors")
with open("model.safetensors", "r+b") as f:
    f.truncate(60)
if mode == "workaround-0":
    shutil.copy("good.safetensors", "model.safetensors")  # a fresh copy
print(sorted(load_file("model.safetensors")))
