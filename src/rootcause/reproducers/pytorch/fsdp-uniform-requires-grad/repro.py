"""FSDP (use_orig_params=False) over a partly frozen module.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

dist.init_process_group("gloo", timeout=timedelta(seconds=30))
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 4))
model[0].requires_grad_(False)
fsdp = FSDP(model, device_id=torch.device("cpu"), use_orig_params=mode == "workaround-0")
fsdp(torch.randn(2, 4)).sum().backward()
print("ok", flush=True)
dist.barrier()  # neither rank tears its pairs down while the other still uses them
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
