"""init_process_group('nccl') on the CPU-only wheel.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ["RC_PORT"], RANK="0", WORLD_SIZE="1")
dist.init_process_group("gloo" if mode == "workaround-0" else "nccl")
print("backend", dist.get_backend())
dist.destroy_process_group()
# torch 2.13's CPU build sometimes aborts at interpreter exit after Gloo work ("terminate called without an
# active exception": a C++ thread still joinable when static objects are destroyed), after the program's work
# is done; that is not what this reproducer is about, so a finished run leaves without those destructors
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
