"""A TCPStore server for world_size=2 that only one process joins.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
port = int(os.environ["RC_PORT"])
if mode == "workaround-0":
    store = dist.TCPStore("127.0.0.1", port, world_size=1, is_master=True, timeout=timedelta(seconds=3))
else:
    store = dist.TCPStore("127.0.0.1", port, world_size=2, is_master=True, timeout=timedelta(seconds=3))
print("all clients joined")
