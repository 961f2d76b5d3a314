"""Tokenizer.from_file of a tokenizer.json whose model section this tokenizers cannot read.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import json

from tokenizers import Tokenizer, models

good = Tokenizer(models.WordLevel({"<unk>": 0, "hi": 1}, unk_token="<unk>"))
data = json.loads(good.to_str())
data["model"] = {"type": "WordLevel", "vocab": {"<unk>": 0, "hi": 1}, "unk_token": ["not", "a", "string"]}
with open("tokenizer.json", "w") as f:
    json.dump(data, f)
if mode == "workaround-1":
    good.save("tokenizer.json")  # re-serialised by the tokenizers that will read it
print(Tokenizer.from_file("tokenizer.json").get_vocab_size())
