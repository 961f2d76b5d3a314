"""AutoConfig.from_pretrained of a folder whose config names custom code.

The first argument picks the run: none for the failing program, workaround-N or dead-end-N for a fixed variant.
"""
import os
import sys

mode = sys.argv[1] if len(sys.argv) > 1 else "failing"
import json

from transformers import AutoConfig

os.makedirs("remote", exist_ok=True)
with open("remote/configuration_tiny.py", "w") as f:
    f.write("from transformers import PretrainedConfig\n\n\nclass TinyConfig(PretrainedConfig):\n    model_type = 'tiny-remote'\n")
with open("remote/config.json", "w") as f:
    json.dump({"model_type": "tiny-remote", "auto_map": {"AutoConfig": "configuration_tiny.TinyConfig"}}, f)
kwargs = {"trust_remote_code": True} if mode == "workaround-0" else {}
print(type(AutoConfig.from_pretrained(os.path.abspath("remote"), **kwargs)).__name__)
