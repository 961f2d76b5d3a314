"""Embedding(100, 16) looked up with id 100.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

import torch

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
torch.manual_seed(0)
ids = torch.tensor([[1, 5, 100]])
vocab = 100
if mode == "workaround-1":
    vocab = int(ids.max()) + 1  # size the table for every id
emb = torch.nn.Embedding(vocab, 16)
print(emb(ids).shape)
