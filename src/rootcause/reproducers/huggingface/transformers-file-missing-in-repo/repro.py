"""AutoModel.from_pretrained of a folder with weights but no config.json.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from transformers import AutoModel, BertModel

BertModel(BertConfig(**TINY)).save_pretrained("model")
os.remove("model/config.json")
if mode == "workaround-1":
    BertConfig(**TINY).save_pretrained("model")
print(type(AutoModel.from_pretrained("model")).__name__)
