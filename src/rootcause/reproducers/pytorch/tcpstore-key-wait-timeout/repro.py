"""store.get of a key no one sets.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys
from datetime import timedelta

import torch
import torch.distributed as dist

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
store = dist.TCPStore("127.0.0.1", int(os.environ["RC_PORT"]), world_size=1, is_master=True, timeout=timedelta(seconds=2))
if mode == "workaround-1":
    store.set("/default_pg/0//cpu//0/2", "ready")
print(store.get("/default_pg/0//cpu//0/2"))
