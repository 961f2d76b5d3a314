"""PyTorch core entries: every message generation is answered first by its own entry.

Each generation lists real examples of one wording (torch 0.4 to 2.13); the entry must claim each of
them first, ahead of every other entry and the catch-all. Wordings whose patterns changed (issues 11
and 15) are also checked on their own, with what the pattern extracts.
"""

from __future__ import annotations

import pytest

from rootcause.adapters.loading import load_entries, load_index
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.model import Entry

OTHER_PARTITIONS = ("nccl-", "gloo-", "tcpstore-", "rdzv-", "elastic-", "dist-", "ddp-", "fsdp-")


def _core_entries() -> list[Entry]:
    return [
        e
        for e in load_entries([])
        if e.id.startswith("pytorch/") and not e.id.removeprefix("pytorch/").startswith(OTHER_PARTITIONS)
    ]


CORE = _core_entries()
CASES = [
    pytest.param(entry, g, n, id=f"{entry.id}:gen{g}:ex{n}")
    for entry in CORE
    for g, generation in enumerate(entry.generations)
    for n in generation.examples
]


def _first(text: str) -> tuple[str, dict[str, str]]:
    findings = [f for f in diagnose_text(text, load_index()).findings if f.matched_by == "pattern"]
    assert findings, f"nothing matched {text!r}"
    return findings[0].id, dict(findings[0].params)


def test_every_core_entry_lists_its_generations() -> None:
    assert len(CORE) >= 70
    assert all(entry.generations for entry in CORE)


@pytest.mark.parametrize(("entry", "g", "n"), CASES)
def test_each_generation_example_is_answered_by_its_entry(entry: Entry, g: int, n: int) -> None:
    text = entry.examples[n].text
    if entry.catch_all:  # a bare traceback in the ML stack: an unclassified exception, never a known error
        d = diagnose_text(text, load_index())
        assert d.findings == [] and d.unclassified, f"{entry.id} generation {g}: {text!r} gave {d.findings}"
        return
    first, _ = _first(text)
    assert first == entry.id, f"{entry.id} generation {g}: {text!r} went to {first}"


@pytest.mark.parametrize(
    ("text", "entry_id", "param", "value"),
    [
        # issue 15: empty target shape, and symbolic sizes under torch.compile
        ("RuntimeError: shape '[]' is invalid for input of size 2", "pytorch/tensor-view-shape-invalid", "shape", ""),
        (
            "  Explanation: Dynamo failed to run FX node with fake tensors: call_method view(*(FakeTensor(..., "
            "size=(s77, s27)), s77, 4), **{}): got RuntimeError(\"shape '[s77, 4]' is invalid for input of size s27*s77\")",
            "pytorch/tensor-view-shape-invalid",
            "size",
            "s27*s77",
        ),
        (
            "RuntimeError: shape '[-1, 400]' is invalid for input of size 384",
            "pytorch/tensor-view-shape-invalid",
            "shape",
            "-1, 400",
        ),
        # issue 11: the torch 0.4 state_dict wording, and conv errors naming legacy tensor types
        (
            "RuntimeError: While copying the parameter named decoder.embedding.weight, whose dimensions in the model are "
            "torch.Size([58, 256]) and whose dimensions in the checkpoint are torch.Size([107, 256]).",
            "pytorch/state-dict-size-mismatch",
            "key",
            "decoder.embedding.weight",
        ),
        (
            "size mismatch for hidden_layers.0.weight: copying a param of torch.Size([400, 784]) from checkpoint, "
            "where the shape is torch.Size([512, 784]) in current model.",
            "pytorch/state-dict-size-mismatch",
            "key",
            "hidden_layers.0.weight",
        ),
        (
            "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same",
            "pytorch/tensor-dtype-mismatch",
            "input_type",
            "HalfTensor",
        ),
        (
            "Warning: Error detected in MulBackward0. Traceback of forward call that caused the error:",
            "pytorch/autograd-anomaly-error-detected",
            "node",
            "MulBackward0",
        ),
    ],
)
def test_changed_patterns_claim_their_wordings(text: str, entry_id: str, param: str, value: str) -> None:
    first, params = _first(text)
    assert first == entry_id
    assert params.get(param) == value


def test_a_cuda_cpu_type_pair_is_not_called_a_dtype_mismatch() -> None:
    text = "RuntimeError: Input type (torch.cuda.FloatTensor) and weight type (torch.FloatTensor) should be the same"
    findings = [f.id for f in diagnose_text(text, load_index()).findings if f.matched_by == "pattern"]
    assert "pytorch/tensor-dtype-mismatch" not in findings


def test_the_catch_all_ranks_below_a_specific_entry_on_the_same_traceback() -> None:
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
        "    x.view(4, 2)\nRuntimeError: shape '[4, 2]' is invalid for input of size 6\n"
    )
    findings = [f.id for f in diagnose_text(text, load_index()).findings]
    assert findings[0] == "pytorch/tensor-view-shape-invalid"
    catch_all = next(e for e in CORE if e.id == "pytorch/python-exception-generic")
    assert catch_all.catch_all and catch_all.generic
