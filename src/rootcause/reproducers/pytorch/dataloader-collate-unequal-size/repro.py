"""Default collate of images of different heights.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.utils.data import DataLoader

samples = [torch.zeros(3, 32, 32), torch.zeros(3, 40, 32)]


def pad_collate(batch):
    h = max(t.shape[1] for t in batch)
    return torch.stack([torch.nn.functional.pad(t, (0, 0, 0, h - t.shape[1])) for t in batch])


def as_list(batch):
    return list(batch)


collate = {"workaround-1": pad_collate, "workaround-2": as_list}.get(mode)
for batch in DataLoader(samples, batch_size=2, collate_fn=collate):
    print(type(batch).__name__)
