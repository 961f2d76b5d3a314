"""A batched map that returns more rows than it got, keeping the old columns.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from datasets import Dataset

ds = Dataset.from_dict({"text": ["a b c", "d e"], "id": [1, 2]})


def split_words(batch):
    return {"word": [w for t in batch["text"] for w in t.split()]}


if mode == "workaround-0":
    print(ds.map(split_words, batched=True, remove_columns=ds.column_names))
elif mode == "dead-end-0":
    print(ds.map(split_words, batched=True, batch_size=1))
else:
    print(ds.map(split_words, batched=True))
