"""torch.compile(backend='inducter'): a misspelt backend.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
backend = "inducter"
if mode == "workaround-0":
    import torch._dynamo

    backend = "eager" if "eager" in torch._dynamo.list_backends(exclude_tags=()) else backend


@torch.compile(backend=backend)
def f(x):
    return x * 2


print(f(torch.ones(2)))
