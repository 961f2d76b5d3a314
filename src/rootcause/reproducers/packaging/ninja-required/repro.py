"""torch.utils.cpp_extension.load_inline with no ninja on PATH.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import shutil
import sys

from torch.utils import cpp_extension

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
if mode == "workaround-0":
    cpp_extension.verify_ninja_availability()  # ninja installed where this interpreter finds it
    print("ninja found at", shutil.which("ninja"))
else:
    os.makedirs("nobin", exist_ok=True)
    os.environ["PATH"] = os.path.abspath("nobin")  # an environment without ninja
    cpp_extension.load_inline(name="tiny", cpp_sources="int one() { return 1; }", functions=["one"])
