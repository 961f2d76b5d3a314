"""DDP over a model whose second head is never used in the loss.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=30))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(4, 4)
        self.used = torch.nn.Linear(4, 1)
        self.unused = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.used(self.body(x))


net = Net()
if mode == "workaround-1":
    net.unused.requires_grad_(False)
model = DDP(net, find_unused_parameters=mode == "workaround-0")
for step in range(2):
    model(torch.randn(2, 4)).sum().backward()
print("ok", flush=True)
dist.barrier()  # neither rank tears its pairs down while the other still uses them
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after DDP with find_unused_parameters=True
# ("terminate called without an active exception": a C++ thread still joinable when static objects are
# destroyed), after the job's work is done; that is not the failure this reproducer is about, so the process
# leaves without running those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
