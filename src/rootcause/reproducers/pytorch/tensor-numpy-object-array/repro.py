"""torch.tensor of a ragged numpy object array.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
import numpy as np

rows = [np.array([1.0, 2.0]), np.array([3.0]), np.array([4.0, 5.0, 6.0])]
if mode == "workaround-0":
    from torch.nn.utils.rnn import pad_sequence

    print(pad_sequence([torch.tensor(r) for r in rows], batch_first=True).shape)
else:
    arr = np.empty(len(rows), dtype=object)
    arr[:] = rows
    print(torch.tensor(arr))
