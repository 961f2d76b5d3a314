"""Installed versions that pip and xFormers print in a paste reach the diagnosis's environment."""

from __future__ import annotations

import pytest
from engine_helpers import make_entry
from packaging.requirements import Requirement
from testkit import SEED_SIGNATURE

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.model import Entry
from rootcause.core.versions import verdict, versions_in_line

# pip 26.x's output, produced here (`pip install packaging` where it was installed; `pip install six==1.16.0`)
PIP_SATISFIED = "Requirement already satisfied: packaging in /work/main/.venv/lib/python3.11/site-packages (26.4)"
PIP_INSTALLED = "Successfully installed six-1.16.0"
# xFormers' load failure (xformers/_cpp_lib.py's format: "PyTorch {built} with CUDA {cuda} (you have {torch})")
XFORMERS_BUILT_FOR = "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.2.2+cu121)"


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (PIP_SATISFIED, {"packaging": "26.4"}),
        (
            r"Requirement already satisfied: onnxruntime in c:\python37\lib\site-packages (0.1.4)",
            {"onnxruntime": "0.1.4"},
        ),
        ("Requirement already satisfied: torch>=1.13 in ./lib (from xformers) (2.1.0+cu118)", {"torch": "2.1.0+cu118"}),
        (PIP_INSTALLED + " Nvidia_cuBLAS-cu12-12.1.3.1", {"six": "1.16.0", "nvidia-cublas-cu12": "12.1.3.1"}),
        (XFORMERS_BUILT_FOR, {"torch": "2.2.2"}),
        ("    Python  3.10.11 (you have 3.10.11)", {"python": "3.10.11"}),
        ("Requirement already satisfied: six in /usr/lib/python3/dist-packages", {}),  # no version shown
        ("Successfully installed the model weights", {}),
    ],
)
def test_versions_pip_and_xformers_print(line: str, expected: dict[str, str]) -> None:
    assert versions_in_line(line) == expected


def test_a_pip_line_in_a_paste_decides_whether_it_is_affected() -> None:
    index = load_index()
    older = diagnose_text(f"Requirement already satisfied: torch in /opt/lib (1.9.0)\n{SEED_SIGNATURE}\n", index)
    assert older.environment["torch"] == "1.9.0"
    assert older.findings[0].versions.status == "not_affected"
    newer = diagnose_text(f"Successfully installed filelock-3.13.1 torch-2.3.0\n{SEED_SIGNATURE}\n", index)
    assert newer.environment["torch"] == "2.3.0"
    assert newer.findings[0].versions.status == "affected"


def test_a_huge_or_hostile_pip_line_is_read_in_bounded_work() -> None:
    line = "Successfully installed " + " ".join(f"pkg{n}-1.{n}" for n in range(200_000))
    found = versions_in_line(line)
    assert len(found) == 400 and found["pkg399"] == "1.399" and "pkg400" not in found
    # an item or a satisfied line of 64 KiB built to make a backtracking matcher retry at every '-' or ' (': one pass
    assert versions_in_line("Successfully installed " + "a-1" * 21_000 + "-x") == {}
    assert versions_in_line("Requirement already satisfied: a in " + " (1.1" * 13_000 + ")") == {"a": "1.1"}


def _versioned(status: str, **bound: str) -> Entry:
    item = {"requirement": "peft>=0.3,<0.6", "status": status, "bounds_source": "unchecked", **bound}
    return make_entry("huggingface/x-versioned", "merge failed", "merge failed", versions=[item])


@pytest.mark.parametrize(
    ("status", "bound", "have", "expected"),
    [
        # the requirement is the range that prints the message; `fixed` / `removed` say what came after it
        ("fixed", {"fixed": "0.6"}, "0.5.0", "affected"),  # before: not_affected, for the very releases affected
        ("fixed", {"fixed": "0.6"}, "0.6.1", "fixed"),
        ("fixed", {"fixed": "0.6"}, "0.2.0", "not_affected"),
        ("removed", {"removed": "0.6"}, "0.4.0", "affected"),
        ("removed", {"removed": "0.6"}, "0.7.0", "not_affected"),
        ("removed", {}, "0.4.0", "affected"),
        ("active", {}, "0.4.0", "affected"),
        ("active", {}, "0.9.0", "not_affected"),
    ],
)
def test_a_fixed_or_removed_range_is_affected_below_its_bound(
    status: str, bound: dict[str, str], have: str, expected: str
) -> None:
    assert verdict(_versioned(status, **bound), {"peft": have}).status == expected


def test_the_canons_fixed_range_is_affected_inside_it() -> None:
    # the canon writes the affected range and the release that fixed it (peft>=0.3,<0.6, fixed 0.6.0)
    index = load_index()
    entry = index.entries["huggingface/peft-merge-quantized-model-unsupported"]
    inside = [vr for vr in entry.versions if vr.status.value in ("fixed", "removed")]
    assert inside, "the entry keeps a range that ends in a fix or a removal"
    lower = next(s.version for s in Requirement(inside[0].requirement).specifier if s.operator == ">=")
    assert verdict(entry, {"peft": lower}).status == "affected"
