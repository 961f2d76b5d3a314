"""Workers send many small tensors through file descriptors under a 128-file limit, and every batch is kept.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import resource

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

SOFT, HARD = resource.getrlimit(resource.RLIMIT_NOFILE)


class ManyTensors(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return [torch.full((4,), float(i)) for _ in range(64)]


def identity(batch):
    return batch


def restore_limit(worker_id):
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT, HARD))


if __name__ == "__main__":
    mp.set_sharing_strategy("file_system" if mode == "workaround-0" else "file_descriptor")
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, HARD))
    loader = DataLoader(ManyTensors(), batch_size=4, num_workers=2, collate_fn=identity, worker_init_fn=restore_limit, timeout=30)
    kept = []
    for batch in loader:
        kept.append(batch)  # keep references so the shared descriptors stay open
    print(len(kept), "batches")
