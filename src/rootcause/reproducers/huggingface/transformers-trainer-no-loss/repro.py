"""Trainer.train on a bare BertModel with a dataset that has no labels.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch
from transformers import BertConfig, BertForSequenceClassification, BertModel, Trainer, TrainingArguments

torch.manual_seed(0)
tiny = dict(vocab_size=99, hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=37, max_position_embeddings=64)


class Rows(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        row = {"input_ids": torch.tensor([1, 5, 7, 2]), "attention_mask": torch.ones(4, dtype=torch.long)}
        if mode == "workaround-1":
            row["labels"] = torch.tensor(i % 2)
        return row


model = BertForSequenceClassification(BertConfig(**tiny)) if mode == "workaround-1" else BertModel(BertConfig(**tiny))
args = TrainingArguments("out", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True, save_strategy="no")
Trainer(model=model, args=args, train_dataset=Rows()).train()
print("trained")
