"""broadcast of a 2-element tensor on rank 0 and a 1-element one on rank 1 (Gloo).

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
dist.init_process_group("gloo", timeout=timedelta(seconds=30))
rank = dist.get_rank()
n = 2 if rank == 0 else 1
if mode == "workaround-0":
    size = torch.tensor([n])
    dist.all_reduce(size, op=dist.ReduceOp.MAX)
    n = int(size)
t = torch.ones(n, dtype=torch.float32)
dist.broadcast(t, src=0)
print(f"rank {rank}: {t.tolist()}", flush=True)
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
