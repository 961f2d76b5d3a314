"""Where a template's line lives publicly: the project's repository at the release's tag.

Only repositories and tag schemes checked by hand are listed; other packages get no source_url.
`prefix` is prepended to a wheel's module path (an sdist's paths are already repository paths).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Repo:
    url: str
    tag: str  # format with {version}
    prefix: str = ""  # the repository folder that holds the import package (wheels only)


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
}


def source_url(package: str, version: str, module: str, line: int, *, sdist: bool) -> str:
    """The line's address at the release's tag, or "" when the package's repository is not listed."""
    repo = REPOS.get(package)
    if repo is None or not line or module.endswith((".so", ".dylib")):
        return ""
    path = module if sdist else repo.prefix + module
    return f"{repo.url}/blob/{repo.tag.format(version=version)}/{path}#L{line}"
