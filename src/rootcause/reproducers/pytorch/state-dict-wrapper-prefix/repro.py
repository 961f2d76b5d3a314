"""A DataParallel-style 'module.'-prefixed checkpoint loaded into the bare model.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.nn.modules.utils import consume_prefix_in_state_dict_if_present


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 4)


sd = {f"module.{k}": v for k, v in Net().state_dict().items()}
if mode == "workaround-0":
    consume_prefix_in_state_dict_if_present(sd, "module.")
print(Net().load_state_dict(sd))
