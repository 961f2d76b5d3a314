"""remove_columns(['labels']) on a dataset whose column is 'label'.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from datasets import Dataset

ds = Dataset.from_dict({"text": ["a", "b"], "label": [0, 1]})
names = ["labels"]
if mode == "workaround-0":
    print(ds.column_names)
    names = [n for n in names if n in ds.column_names]
print(ds.remove_columns(names))
