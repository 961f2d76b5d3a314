"""PeftModel.from_pretrained of a folder without adapter_config.json.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from peft import LoraConfig, PeftModel, get_peft_model
from transformers import BertModel

base = BertModel(BertConfig(**TINY))
get_peft_model(BertModel(BertConfig(**TINY)), LoraConfig(r=4, target_modules=["query"])).save_pretrained("run/adapter")
folder = "run"
if mode == "workaround-0":
    folder = os.path.dirname(next(p for p in __import__("glob").glob("run/**/adapter_config.json", recursive=True)))
print(type(PeftModel.from_pretrained(base, os.path.abspath(folder))).__name__)
