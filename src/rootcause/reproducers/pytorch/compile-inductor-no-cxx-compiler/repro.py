"""torch.compile (inductor) with torch._inductor.config.cpp.cxx naming a compiler that does not exist.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch
import torch._inductor.config as inductor_config

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.abspath("inductor-cache"))
if mode == "workaround-1":
    inductor_config.cpp.cxx = ("g++",)
else:
    inductor_config.cpp.cxx = ("/nonexistent/bin/g++",)


@torch.compile
def f(x, y):
    return (x.sin() + y.cos()).relu()


print(f(torch.randn(8), torch.randn(8)))
