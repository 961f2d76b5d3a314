"""safetensors load_file of a torch.save pickle named model.safetensors.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch
from safetensors.torch import load_file, save_file

torch.save({"w": torch.ones(2)}, "model.safetensors")
if mode == "workaround-2":
    os.rename("model.safetensors", "model.pt")
    save_file(torch.load("model.pt"), "model.safetensors")
print(load_file("model.safetensors"))
