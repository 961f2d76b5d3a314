"""torch.load of a checkpoint whose storages are tagged cuda:0, on a machine without CUDA.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
import torch.serialization as ser


def tag_as_cuda(storage):
    return "cuda:0"


def no_deserialize(obj, location):
    return None


ser.register_package(0, tag_as_cuda, no_deserialize)  # save as a GPU machine would
torch.save(torch.nn.Linear(4, 4).state_dict(), "gpu_ckpt.pt")
if mode == "workaround-0":
    state = torch.load("gpu_ckpt.pt", map_location=torch.device("cpu"))
else:
    state = torch.load("gpu_ckpt.pt")
print({k: v.device for k, v in state.items()})
