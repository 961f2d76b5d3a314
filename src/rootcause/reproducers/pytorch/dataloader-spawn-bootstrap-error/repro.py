"""A DataLoader with spawn workers iterated at module level, with no __main__ guard.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
from torch.utils.data import DataLoader


def main():
    for batch in DataLoader(list(range(4)), batch_size=2, num_workers=1, multiprocessing_context="spawn"):
        print(batch)


if mode == "workaround-0":
    if __name__ == "__main__":
        main()
else:
    main()
