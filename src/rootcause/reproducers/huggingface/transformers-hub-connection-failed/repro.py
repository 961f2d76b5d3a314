"""AutoModel.from_pretrained of a Hub id with HF_HUB_OFFLINE=1 and an empty cache.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from transformers import AutoModel, BertModel

name = "google-bert/bert-base-uncased"
if mode == "workaround-0":
    BertModel(BertConfig(**TINY)).save_pretrained("local-model")  # saved where the network was available
    name = os.path.abspath("local-model")
print(type(AutoModel.from_pretrained(name)).__name__)
