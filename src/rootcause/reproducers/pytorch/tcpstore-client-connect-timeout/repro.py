"""A TCPStore client with no server to reach.

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
    server = dist.TCPStore("127.0.0.1", port, world_size=2, is_master=True, wait_for_workers=False)
client = dist.TCPStore("127.0.0.1", port, world_size=2, is_master=False, timeout=timedelta(seconds=3))
client.set("k", "v")
print("connected")
