"""load_dataset('json') of two files whose columns differ.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import json

from datasets import concatenate_datasets, load_dataset

with open("a.jsonl", "w") as f:
    f.write(json.dumps({"text": "x", "label": 1}) + "\n")
with open("b.jsonl", "w") as f:
    f.write(json.dumps({"text": "y", "score": 0.5}) + "\n")
if mode == "workaround-1":
    a = load_dataset("json", data_files="a.jsonl", cache_dir="cache", split="train")
    b = load_dataset("json", data_files="b.jsonl", cache_dir="cache", split="train")
    print(concatenate_datasets([a.select_columns(["text"]), b.select_columns(["text"])]))
else:
    print(load_dataset("json", data_files=["a.jsonl", "b.jsonl"], cache_dir="cache"))
