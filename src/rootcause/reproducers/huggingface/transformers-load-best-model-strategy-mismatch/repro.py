"""TrainingArguments(load_best_model_at_end=True) with eval per epoch and saves per step.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
from transformers import TrainingArguments

save = "epoch" if mode == "workaround-0" else "steps"
args = TrainingArguments("out", load_best_model_at_end=True, eval_strategy="epoch", save_strategy=save, report_to=[])
print(args.save_strategy, args.eval_strategy)
