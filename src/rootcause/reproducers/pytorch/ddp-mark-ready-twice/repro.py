"""Reentrant checkpoint of one block applied twice under DDP.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
import torch.utils.checkpoint as cp
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo", timeout=timedelta(seconds=30))
rank = dist.get_rank()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.block = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 1)

    def forward(self, x):
        reentrant = mode != "workaround-0"
        x = cp.checkpoint(self.block, x, use_reentrant=reentrant)
        x = cp.checkpoint(self.block, x, use_reentrant=reentrant)
        return self.head(x)


model = DDP(Net(), find_unused_parameters=mode != "workaround-1", static_graph=mode == "workaround-1")
for step in range(2):
    loss = model(torch.randn(4, 8, requires_grad=True)).pow(2).mean()
    loss.backward()
print(f"rank {rank}: ok", flush=True)
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
