"""AutoModelForCausalLM.from_config of a BertConfig-like encoder config for Seq2Seq.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from transformers import AutoModelForMaskedLM, AutoModelForSeq2SeqLM

auto = AutoModelForMaskedLM if mode == "workaround-0" else AutoModelForSeq2SeqLM
print(type(auto.from_config(BertConfig(**TINY))).__name__)
