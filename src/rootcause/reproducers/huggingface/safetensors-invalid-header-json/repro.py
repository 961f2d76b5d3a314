"""safetensors load_file of a file whose JSON header is broken.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import struct

import torch
from safetensors.torch import load_file, save_file

header = b'{"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]'  # no closing brace
with open("model.safetensors", "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header + b"\0" * 8)
if mode == "workaround-1":
    save_file({"w": torch.zeros(2)}, "model.safetensors")
print(load_file("model.safetensors"))
