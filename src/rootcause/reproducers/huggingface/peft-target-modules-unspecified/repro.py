"""LoraConfig without target_modules on a custom model.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import torch
from peft import LoraConfig, get_peft_model


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.proj(x)


config = LoraConfig(r=2, target_modules=["proj"]) if mode == "workaround-0" else LoraConfig(r=2)
get_peft_model(Net(), config).print_trainable_parameters()
