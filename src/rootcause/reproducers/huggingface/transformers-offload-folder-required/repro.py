"""from_pretrained with a device_map that puts the encoder on disk and no offload_folder.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig, BertModel

tiny = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)
BertModel(BertConfig(**tiny)).save_pretrained("ckpt")
device_map = {"embeddings": "cpu", "encoder": "disk", "pooler": "cpu"}
kwargs = {"offload_folder": "offload"} if mode == "workaround-0" else {}
model = BertModel.from_pretrained("ckpt", device_map=device_map, **kwargs)
print(type(model).__name__)
