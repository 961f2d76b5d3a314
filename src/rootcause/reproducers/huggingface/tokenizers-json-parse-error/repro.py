"""Tokenizer.from_file of an HTML page saved as tokenizer.json.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from tokenizers import Tokenizer, models

with open("tokenizer.json", "w") as f:
    f.write("<!DOCTYPE html><html>rate limited</html>")
if mode == "workaround-1":
    Tokenizer(models.WordLevel({"<unk>": 0, "hi": 1}, unk_token="<unk>")).save("tokenizer.json")
print(Tokenizer.from_file("tokenizer.json").get_vocab_size())
