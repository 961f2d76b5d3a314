"""LoRA with Llama names (q_proj, v_proj) on a BERT model.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from peft import LoraConfig, get_peft_model
from transformers import BertModel

model = BertModel(BertConfig(**TINY))
targets = {"workaround-0": ["query", "value"], "workaround-1": "all-linear"}.get(mode, ["q_proj", "v_proj"])
get_peft_model(model, LoraConfig(r=4, target_modules=targets)).print_trainable_parameters()
