"""concatenate_datasets of an int 'label' and a string 'label'.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from datasets import Dataset, Value, concatenate_datasets

a = Dataset.from_dict({"text": ["x"], "label": [0]})
b = Dataset.from_dict({"text": ["y"], "label": ["1"]})
if mode == "workaround-0":
    b = b.cast_column("label", Value("int64"))
print(concatenate_datasets([a, b]))
