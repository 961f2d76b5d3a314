"""load_dataset('csv', data_files=...) of a path that does not exist where the code runs.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import glob

from datasets import load_dataset

os.makedirs("data", exist_ok=True)
with open("data/train.csv", "w") as f:
    f.write("text,label\nhello,1\n")
path = "workspace/data/train.csv"
if mode == "workaround-0":
    path = os.path.abspath("data/train.csv")
    assert glob.glob(path), path
print(load_dataset("csv", data_files=path, cache_dir="cache"))
