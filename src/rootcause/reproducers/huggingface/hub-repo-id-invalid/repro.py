"""AutoConfig.from_pretrained of a local path that does not exist.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from transformers import AutoConfig

path = "/models/my-bert/checkpoint-100"
if mode == "workaround-0":
    path = os.path.abspath("checkpoint-100")
    BertConfig(**TINY).save_pretrained(path)
print(AutoConfig.from_pretrained(path).model_type)
