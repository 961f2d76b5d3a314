"""Default collate of a batch holding None.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.utils.data import DataLoader, default_collate

samples = [None, torch.tensor(1.0), torch.tensor(3.0)]


def drop_none(batch):
    return default_collate([s for s in batch if s is not None])


for batch in DataLoader(samples, batch_size=3, collate_fn=drop_none if mode == "workaround-0" else None):
    print(batch)
