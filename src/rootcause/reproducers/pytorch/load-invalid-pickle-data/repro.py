"""torch.load of an HTML error page saved as model.pt.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
torch.save({"w": torch.ones(2)}, "real.pt")
with open("model.pt", "w") as f:
    f.write("<html><body>404 Not Found</body></html>\n")
path = "model.pt"
if mode == "workaround-0":
    with open(path, "rb") as f:
        head = f.read(16)
    path = "real.pt" if head.startswith(b"<") else path  # an HTML page: fetch the real binary
print(torch.load(path, weights_only=False) if mode == "dead-end-0" else torch.load(path))
