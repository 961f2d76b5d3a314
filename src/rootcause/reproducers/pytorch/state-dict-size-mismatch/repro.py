"""A 1000-class checkpoint loaded into a 10-class model.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
def make(num_classes):
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, num_classes))


ckpt = make(1000).state_dict()
model = make(10)
if mode == "workaround-0":
    own = model.state_dict()
    ckpt = {k: v for k, v in ckpt.items() if v.shape == own[k].shape}
    print(model.load_state_dict(ckpt, strict=False))
elif mode == "dead-end-0":
    print(model.load_state_dict(ckpt, strict=False))
else:
    print(model.load_state_dict(ckpt))
