"""monitored_barrier(timeout=2s) while rank 1 is 4 s late.

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
if rank == 1:
    import time

    time.sleep(4)
wait = 20 if mode == "workaround-1" else 2
dist.monitored_barrier(timeout=timedelta(seconds=wait))
print(f"rank {rank}: passed", flush=True)
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
