"""BertForSequenceClassification.from_pretrained of a bare BertModel checkpoint.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from transformers import BertForSequenceClassification, BertModel
from transformers.utils import logging

logging.set_verbosity_warning()
BertModel(BertConfig(**TINY)).save_pretrained("base")
cls = BertModel if mode == "workaround-1" else BertForSequenceClassification
model, info = cls.from_pretrained("base", output_loading_info=True)
print(type(model).__name__, info["missing_keys"])
