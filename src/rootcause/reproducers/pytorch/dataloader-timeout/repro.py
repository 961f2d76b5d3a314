"""A 3 s __getitem__ under DataLoader(timeout=1).

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
import time

from torch.utils.data import DataLoader, Dataset


class Slow(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        time.sleep(3)
        return torch.tensor(i)


if __name__ == "__main__":
    wait = 20 if mode == "workaround-0" else 1
    for batch in DataLoader(Slow(), batch_size=2, num_workers=1, timeout=wait):
        print(batch)
