"""Line numbers and line counts from the one forward count of newlines, across long spans and chunk edges."""

from __future__ import annotations

import random

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import SourceInput, diagnose_sources
from rootcause.core.matching.scan import count_newlines

ERROR = "RuntimeError: NCCL communicator was aborted on rank 1."


def test_count_newlines_on_long_and_short_spans() -> None:
    rng = random.Random(5)
    data = bytes(rng.choice(b"ab\n\n\xff") for _ in range(1 << 19))
    for start, end in [(0, len(data)), (7, (1 << 18) + 9), (100, 200), (5, 5), (len(data) - 1, len(data))]:
        assert count_newlines(data, start, end) == data.count(b"\n", start, end)


def test_a_hit_deep_in_a_large_input_has_its_line_number() -> None:
    noise = "".join(f"step {n} loss 0.{n % 97:02d}\n" for n in range(120_000))  # about 2.5 MiB
    text = noise + ERROR + "\n" + noise[: len(noise) // 3]
    chunks = [text.encode()[i : i + 300_001] for i in range(0, len(text), 300_001)]
    d = diagnose_sources([SourceInput("big", chunks)], load_index())
    assert d.findings[0].lines[0].line == 120_001
    assert d.inputs[0].lines == len(text.splitlines())  # the unterminated last line counts too
