"""A fast tokenizer used on a batch, then os.fork().

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
if mode == "workaround-0":
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
else:
    os.environ.pop("TOKENIZERS_PARALLELISM", None)
from tokenizers import Tokenizer, models, pre_tokenizers

t = Tokenizer(models.WordLevel(vocab={"<unk>": 0, "hello": 1, "world": 2}, unk_token="<unk>"))
t.pre_tokenizer = pre_tokenizers.Whitespace()
t.encode_batch(["hello world"] * 2000)
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
print("done")
