"""generate(max_length=8) on a 20-token prompt (tiny GPT-2).

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=99, n_embd=32, n_layer=1, n_head=2, n_positions=64)).eval()
ids = torch.randint(0, 99, (1, 20))
kwargs = {"max_new_tokens": 4} if mode == "workaround-0" else {"max_length": 8}
out = model.generate(ids, do_sample=False, pad_token_id=0, **kwargs)
print(out.shape)
