"""Python exceptions that no known error explains: their facts, never a diagnosis.

The catch-all entry (``catch_all: true``, ``pytorch/python-exception-generic``) matches the final line of
any Python traceback. That is not a known error: ``diagnose`` reports it as an *unclassified Python
exception* (type, message, where it was raised, which packages of the ML stack its frames pass through)
and still says "no known error matched" (exit 1). A traceback whose frames are all outside the ML stack
(a Django view, a redis client) is none of rootcause's business and is not reported at all.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

# Top-level packages of the ML stack: a frame in one of them puts the traceback in rootcause's scope.
ML_PACKAGES = frozenset(
    {
        "torch", "torchvision", "torchaudio", "torchtext", "torchdata", "torchtitan", "torchrec", "functorch",
        "transformers", "accelerate", "datasets", "peft", "trl", "diffusers", "huggingface_hub", "tokenizers",
        "safetensors", "evaluate", "optimum", "sentence_transformers", "timm", "deepspeed", "vllm",
        "bitsandbytes", "flash_attn", "xformers", "triton", "apex", "megatron", "lightning",
        "pytorch_lightning", "lightning_fabric", "onnx", "onnxruntime", "tensorrt", "torch_xla", "jax",
        "llamafactory", "axolotl", "nccl", "cupy", "numba", "colossalai", "fairscale", "ray", "unsloth",
    }
)  # fmt: skip
FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"\n]+)", line (?P<line>\d+)(?:, in (?P<func>[^\n]+))?', re.M)
_HEADER = "Traceback (most recent call last)"
MAX_FRAMES = 200


class UnclassifiedException(BaseModel):
    exception: str
    message: str
    source: str
    line: int
    text: str
    last_frame: str | None = None
    frames: int = 0
    stack: list[str] = []  # the ML-stack packages its frames pass through, in order of first appearance


def ml_package(path: str) -> str | None:
    """The ML-stack package a frame's file belongs to (by any folder of its path, or its module name)."""
    parts = [p for p in re.split(r"[\\/]", path) if p]
    for part in parts[:-1]:
        if part in ML_PACKAGES:
            return part
    stem = parts[-1].removesuffix(".py") if parts else ""
    return stem if stem in ML_PACKAGES else None


def frames_of(context: str) -> list[tuple[str, str, str | None]]:
    """The frames (file, line, function) of the last traceback in a window of text."""
    start = context.rfind(_HEADER)
    body = context[start:] if start >= 0 else context
    return [(m["file"], m["line"], m["func"]) for m in FRAME_RE.finditer(body)][-MAX_FRAMES:]


def unclassified(
    exception: str, message: str, source: str, line: int, text: str, context: str
) -> UnclassifiedException | None:
    """The facts of one unexplained exception, or None when none of its frames is in the ML stack."""
    frames = frames_of(context)
    stack: list[str] = []
    for file, _, _ in frames:
        package = ml_package(file)
        if package is not None and package not in stack:
            stack.append(package)
    if not stack:
        return None
    file, number, func = frames[-1]
    last = f"{file}:{number}" + (f" in {func}" if func else "")
    return UnclassifiedException(
        exception=exception,
        message=message[:500],
        source=source,
        line=line,
        text=text[:500],
        last_frame=last,
        frames=len(frames),
        stack=stack,
    )
