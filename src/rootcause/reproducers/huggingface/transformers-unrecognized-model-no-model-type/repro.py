"""AutoConfig.from_pretrained of a config.json without model_type.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import json

from transformers import AutoConfig

os.makedirs("my-llm", exist_ok=True)
config = {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "vocab_size": 99}
if mode == "workaround-1":
    config.update(model_type="bert", architectures=["BertModel"])
with open("my-llm/config.json", "w") as f:
    json.dump(config, f)
print(type(AutoConfig.from_pretrained(os.path.abspath("my-llm"))).__name__)
