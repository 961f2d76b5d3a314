"""Tokenizing 40 words with a tokenizer whose model_max_length is 16.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast

t = Tokenizer(models.WordLevel(vocab={"<unk>": 0, "hello": 1, "world": 2}, unk_token="<unk>"))
t.pre_tokenizer = pre_tokenizers.Whitespace()
tok = PreTrainedTokenizerFast(tokenizer_object=t, unk_token="<unk>", model_max_length=16)
kwargs = {"truncation": True, "max_length": tok.model_max_length} if mode == "workaround-0" else {}
print(len(tok("hello world " * 20, **kwargs)["input_ids"]))
