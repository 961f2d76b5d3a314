"""Stacks compared across ranks: where each rank's Python stack shows it inside a collective.

A traceback (console `[rankN]:` lines, a rank's stderr.log, error.json's `py_callstack`) or a py-spy
dump gives the collective a rank was in (`all_reduce`, `broadcast`, `barrier` … of
torch/distributed/distributed_c10d.py) and the frame of the user's program that called it. Ranks in
different collectives, or calling from different lines, did not run the same program path: a desync,
even without TORCH_DISTRIBUTED_DEBUG. The minority is the suspect.
"""

from __future__ import annotations

from dataclasses import dataclass

from rootcause.core.triage import extract as x

MAX_FRAMES = 64
# public collectives of torch/distributed/distributed_c10d.py (the frame the user's call enters)
COLLECTIVES = frozenset(
    {
        "all_reduce",
        "all_reduce_coalesced",
        "broadcast",
        "broadcast_object_list",
        "barrier",
        "monitored_barrier",
        "all_gather",
        "all_gather_into_tensor",
        "all_gather_object",
        "all_gather_coalesced",
        "_all_gather_base",
        "reduce",
        "reduce_scatter",
        "reduce_scatter_tensor",
        "_reduce_scatter_base",
        "gather",
        "gather_object",
        "scatter",
        "scatter_object_list",
        "all_to_all",
        "all_to_all_single",
        "send",
        "recv",
        "isend",
        "irecv",
        "batch_isend_irecv",
        "send_object_list",
        "recv_object_list",
    }
)


@dataclass(slots=True)
class Stack:
    collective: str
    user_file: str | None
    user_line: int | None
    user_func: str | None
    via: str  # traceback | py-spy

    def where(self) -> str:
        if self.user_file is None:
            return f"in {self.collective}"
        return f"in {self.collective} called from {self.user_file.rsplit('/', 1)[-1]}:{self.user_line}"

    def key(self) -> tuple[str, str | None, int | None]:
        return (self.collective, self.user_file.rsplit("/", 1)[-1] if self.user_file else None, self.user_line)


def is_c10d(f: x.Frame) -> bool:
    return f.file.endswith("distributed_c10d.py") and f.func in COLLECTIVES


def is_library(f: x.Frame) -> bool:
    path = f.file.replace("\\", "/")
    return "/torch/" in path or path.startswith("torch/") or "site-packages/" in path or "/lib/python" in path


def stack_of(frames: list[x.Frame]) -> Stack | None:
    """The outermost c10d collective frame and the user frame that called into the library for it."""
    if not frames:
        return None
    pyspy = frames[0].innermost_first
    ordered = list(reversed(frames)) if pyspy else frames  # outermost first
    for i, f in enumerate(ordered):
        if is_c10d(f):
            user = next((g for g in reversed(ordered[:i]) if not is_library(g)), None)
            via = "py-spy" if pyspy else "traceback"
            if user is None:
                return Stack(f.func, None, None, None, via)
            return Stack(f.func, user.file, user.line, user.func, via)
    return None
