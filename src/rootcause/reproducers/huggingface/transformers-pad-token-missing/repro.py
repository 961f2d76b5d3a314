"""Batch encoding with padding=True and a tokenizer without a pad token.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

t = Tokenizer(models.WordLevel(vocab={"<unk>": 0, "hello": 1, "world": 2, "</s>": 3}, unk_token="<unk>"))
t.pre_tokenizer = pre_tokenizers.Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=t, unk_token="<unk>", eos_token="</s>")
if mode == "workaround-0":
    tok.pad_token = tok.eos_token
elif mode == "workaround-1":
    tok.add_special_tokens({"pad_token": "<pad>"})
print(tok(["hello world", "hello"], padding=True)["input_ids"])
