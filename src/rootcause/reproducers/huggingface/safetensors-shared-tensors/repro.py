"""save_file of a state dict with tied weights.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch
from safetensors.torch import load_file, save_file, save_model

model = torch.nn.Module()
model.a = torch.nn.Linear(4, 4, bias=False)
model.b = torch.nn.Linear(4, 4, bias=False)
model.b.weight = model.a.weight
if mode == "workaround-0":
    save_model(model, "model.safetensors")
else:
    sd = model.state_dict()
    if mode == "workaround-1":
        sd = {k: v.clone() for k, v in sd.items()}
    save_file(sd, "model.safetensors")
print(sorted(load_file("model.safetensors")))
