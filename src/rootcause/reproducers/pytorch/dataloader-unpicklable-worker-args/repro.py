"""A lambda transform in a Dataset under spawn workers.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.utils.data import DataLoader, Dataset


def square(t):
    return t * t


class Squares(Dataset):
    def __init__(self, transform):
        self.transform = transform

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.transform(torch.tensor(float(i)))


if __name__ == "__main__":
    transform = square if mode == "workaround-0" else (lambda t: t * t)
    context = "fork" if mode == "workaround-1" else "spawn"
    for batch in DataLoader(Squares(transform), batch_size=2, num_workers=1, multiprocessing_context=context):
        print(batch)
