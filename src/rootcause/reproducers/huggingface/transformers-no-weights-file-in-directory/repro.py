"""from_pretrained of a folder holding config.json and a weights file under another name.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

import torch
from transformers import AutoModel, BertModel

model = BertModel(BertConfig(**TINY))
model.config.save_pretrained("model")
torch.save(model.state_dict(), "model/weights.ckpt")
if mode == "workaround-0":
    model.save_pretrained("model")
print(type(AutoModel.from_pretrained("model")).__name__)
