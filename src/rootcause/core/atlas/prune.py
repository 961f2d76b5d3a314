"""Templates too generic to keep in the atlas (the builder prunes them): they would fire on pastes from any stack.

Measured on the corpus's negatives (pastes from other stacks): the atlas's first build located 43 of
155, nearly all through Python's own formats copied into a library (`File "{}", line {}, in {}`),
`No module named {}`, C library strerror strings compiled into a shared object (`connection timed
out`), and short heads such as `'{repo_id}' not found.`.
"""

from __future__ import annotations

import re

from rootcause.core.atlas.extract import Extracted
from rootcause.core.atlas.model import TemplateKind

MIN_LITERAL = 20  # literal characters of the whole message
MIN_WORDS = 3  # distinct words of three or more letters
_WORD = re.compile(r"[A-Za-z]{3,}")
_PYTHON_OWN = re.compile(
    r'File "|Traceback \(most recent call last\)|^No module named|^During handling of the above exception'
    r"|^The above exception was the direct cause|^name '.*' is not defined|^Internal Server Error"
)
_STRERROR = re.compile(r"^[a-z][a-z ]{0,60}$")  # `connection timed out`, `protocol not supported`
# packages whose shared objects are mostly a bundled compiler toolchain: triton's libtriton links all of LLVM and
# MLIR (15,000 of its 18,400 strings are theirs, such as `internal compiler error: `), and its NVIDIA backend ships
# CUPTI's libraries; rustc, clang, numba and julia print the same strings, so they would be located in other stacks
# (the first build that read triton located a rustc crash). sglang's wheels (0.5 on) ship Rust extension modules
# (`sglang/srt/rust_extensions/*.so`, `rust_tree_core`) that link hyper, tonic, h2, regex and image crates: 1,790 of
# 0.5.23's strings, such as `error sending request` and `failed HPACK decoding`, which any Rust program built on
# those crates prints. Their Python sources are read as usual. safetensors' extension is Rust too: a Rust library's
# strings are not NUL-terminated, so its .rodata reads as long runs of several messages glued to crate paths
# (`library/std/src/alloc.rsRust panics must be rethrown...`), and the runs that matched pastes were the standard
# library's (a tokenizers panic was located as safetensors'); 276 of its 290 templates were such runs.
NATIVE_NOT_OWN = frozenset({"triton", "sglang", "safetensors"})
# Rust's standard library, linked into every Rust extension (safetensors, tokenizers): its panic and runtime strings are
# printed by any Rust program, so a paste of a tokenizers panic was located as safetensors'.
_RUST_STD = re.compile(
    r"fatal runtime error|failed to initiate panic|panicked at|called `(?:Result|Option)::(?:unwrap|expect)\(\)`"
    r"|RUST_BACKTRACE"
)
# messages other packages copied from one of the atlas, whose lines in pastes are that one's (message -> owner):
# torchrun's OMP_NUM_THREADS note (torch/distributed/run.py), copied word for word into mmengine's and mmdet's
# setup_env, was located as theirs in two dev pastes of torchrun jobs that never imported them.
COPIED = {re.compile(r"Setting OMP_NUM_THREADS environment variable for each process"): "torch"}


def is_generic(found: Extracted) -> bool:
    """True when the template says too little to name the library that printed it."""
    text = found.message
    literal = re.sub(r"\{[^{}]*\}|%[-#0 +\d.]*[a-zA-Z]", "", text)
    if len(literal.strip()) < MIN_LITERAL or len(set(_WORD.findall(literal.lower()))) < MIN_WORDS:
        return True
    if _PYTHON_OWN.search(text):
        return True
    return found.kind is TemplateKind.NATIVE and not found.line and bool(_STRERROR.match(text.strip()))


def is_not_own(package: str, found: Extracted) -> bool:
    """True for a string of a shared object that another project's code most likely put there, or a message the
    package copied from another one."""
    if found.kind is TemplateKind.NATIVE and (package in NATIVE_NOT_OWN or _RUST_STD.search(found.message)):
        return True
    return any(owner != package and copied.match(found.message) for copied, owner in COPIED.items())
