"""dist.all_reduce before init_process_group.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
t = torch.ones(2)
if mode == "workaround-0":
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=os.environ["RC_PORT"], RANK="0", WORLD_SIZE="1")
    dist.init_process_group("gloo")
dist.all_reduce(t)
print(t)
