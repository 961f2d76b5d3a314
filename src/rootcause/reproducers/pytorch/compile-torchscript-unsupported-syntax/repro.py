"""torch.jit.script of a function with a try block.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
def total(xs: torch.Tensor) -> torch.Tensor:
    try:
        return xs.sum()
    except Exception:
        return xs


def total_plain(xs: torch.Tensor) -> torch.Tensor:
    return xs.sum()


fn = torch.jit.script(total_plain if mode == "workaround-0" else total)
print(fn(torch.ones(3)))
