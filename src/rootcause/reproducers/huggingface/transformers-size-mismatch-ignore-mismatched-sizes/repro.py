"""BertForSequenceClassification with num_labels=5 from a 2-label checkpoint.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

import torch
from transformers import BertForSequenceClassification

BertForSequenceClassification(BertConfig(**TINY, num_labels=2)).save_pretrained("ckpt")
if mode == "workaround-1":
    model = BertForSequenceClassification.from_pretrained("ckpt")  # the checkpoint's own config
    model.classifier = torch.nn.Linear(model.config.hidden_size, 5)  # then the new head
else:
    model = BertForSequenceClassification.from_pretrained("ckpt", num_labels=5)
print(model.classifier)
