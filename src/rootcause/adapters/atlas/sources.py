"""Where a template's line lives publicly: the project's repository at the release's tag.

Only repositories and tag schemes checked by hand are listed; other packages get no source_url.
`prefix` is prepended to a wheel's module path (an sdist's paths are already repository paths).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Repo:
    url: str
    tag: str  # format with {version}
    prefix: str = ""  # the repository folder that holds the import package (wheels only)
    short: bool = False  # tags drop a `.postN` and a trailing `.0` (TransformerEngine: 2.18.0 is `v2.18`)

    def tag_of(self, version: str) -> str:
        if self.short:
            version = re.sub(r"\.post\d+$", "", version)
            version = re.sub(r"^(\d+\.\d+)\.0$", r"\1", version)
        return self.tag.format(version=version)


REPOS: dict[str, Repo] = {
    "torch": Repo("https://github.com/pytorch/pytorch", "v{version}"),
    "torchvision": Repo("https://github.com/pytorch/vision", "v{version}"),
    "transformers": Repo("https://github.com/huggingface/transformers", "v{version}", "src/"),
    "accelerate": Repo("https://github.com/huggingface/accelerate", "v{version}", "src/"),
    "peft": Repo("https://github.com/huggingface/peft", "v{version}", "src/"),
    "huggingface_hub": Repo("https://github.com/huggingface/huggingface_hub", "v{version}", "src/"),
    "trl": Repo("https://github.com/huggingface/trl", "v{version}"),
    "deepspeed": Repo("https://github.com/deepspeedai/DeepSpeed", "v{version}"),
    "vllm": Repo("https://github.com/vllm-project/vllm", "v{version}"),
    "onnx": Repo("https://github.com/onnx/onnx", "v{version}"),
    "nccl": Repo("https://github.com/NVIDIA/nccl", "{version}"),
    "diffusers": Repo("https://github.com/huggingface/diffusers", "v{version}", "src/"),
    "sentence-transformers": Repo("https://github.com/huggingface/sentence-transformers", "v{version}"),
    "optimum": Repo("https://github.com/huggingface/optimum", "v{version}"),
    "llamafactory": Repo("https://github.com/hiyouga/LlamaFactory", "v{version}", "src/"),
    "transformer-engine": Repo("https://github.com/NVIDIA/TransformerEngine", "v{version}", short=True),
    "megatron-core": Repo("https://github.com/NVIDIA/Megatron-LM", "core_v{version}"),
    "torch-xla": Repo("https://github.com/pytorch/xla", "v{version}"),
    "torchtune": Repo("https://github.com/meta-pytorch/torchtune", "v{version}"),
    "torchao": Repo("https://github.com/pytorch/ao", "v{version}"),
    "timm": Repo("https://github.com/huggingface/pytorch-image-models", "v{version}"),
    "axolotl": Repo("https://github.com/axolotl-ai-cloud/axolotl", "v{version}", "src/"),
    "verl": Repo("https://github.com/verl-project/verl", "v{version}"),
    "openrlhf": Repo("https://github.com/OpenRLHF/OpenRLHF", "v{version}"),
    "mmengine": Repo("https://github.com/open-mmlab/mmengine", "v{version}"),
    "mmcv": Repo("https://github.com/open-mmlab/mmcv", "v{version}"),
}


def source_url(package: str, version: str, module: str, line: int, *, sdist: bool) -> str:
    """The line's address at the release's tag, or "" when the package's repository is not listed."""
    repo = REPOS.get(package)
    if repo is None or not line or module.endswith((".so", ".dylib")):
        return ""
    path = module if sdist else repo.prefix + module
    return f"{repo.url}/blob/{repo.tag_of(version)}/{path}#L{line}"
