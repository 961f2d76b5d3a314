"""AutoTokenizer.from_pretrained of a model folder that holds no tokenizer files.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import BertConfig

TINY = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)

from transformers import AutoTokenizer, BertModel, BertTokenizerFast

BertModel(BertConfig(**TINY)).save_pretrained("bert-base-uncased")
if mode == "workaround-0":
    with open("vocab.txt", "w") as f:
        f.write("\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "hello"]) + "\n")
    BertTokenizerFast(vocab_file="vocab.txt").save_pretrained("bert-base-uncased")
print(type(AutoTokenizer.from_pretrained("bert-base-uncased")).__name__)
