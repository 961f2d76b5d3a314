"""Gloo all_reduce while rank 1 sleeps past the process-group timeout.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
dist.init_process_group("gloo", timeout=timedelta(seconds=60))  # start-up may be slow on a busy machine
group = dist.new_group(timeout=timedelta(seconds=20 if mode == "workaround-1" else 2))  # the collectives' timeout
rank = dist.get_rank()
t = torch.ones(4) * rank
dist.all_reduce(t, group=group)
if rank == 1:
    import time

    time.sleep(5)
dist.all_reduce(t, group=group)
print(f"rank {rank}: ok", flush=True)
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
