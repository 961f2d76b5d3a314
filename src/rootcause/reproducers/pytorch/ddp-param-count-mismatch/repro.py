"""Rank-dependent model depth wrapped in DDP.

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
rank = dist.get_rank()
depth = 1 if mode == "workaround-0" else 1 + rank
model = torch.nn.Sequential(*[torch.nn.Linear(4, 4, bias=False) for _ in range(depth)])
print(DDP(model)(torch.randn(2, 4)).shape, flush=True)
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
