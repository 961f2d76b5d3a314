"""What users do to a paste must never turn a right answer into a wrong claim (bench/robustness.py --corpus
measures it on the corpus's dev split): CRLF line ends, cuts inside a message, a sibling message's template."""

from __future__ import annotations

import re
import textwrap

import pytest

from rootcause.adapters.loading import load_index
from rootcause.core.diagnosis import diagnose_text
from rootcause.core.matching.backends import misses_object, pattern_objects
from rootcause.core.matching.claims import runs_on_in_specific_text


@pytest.fixture(scope="module")
def canon_index():
    return load_index()


def first_claim(text: str, index) -> str | None:  # type: ignore[no-untyped-def]
    d = diagnose_text(text, index)
    if not d.matched:
        return None
    claims = [f for f in d.findings if f.matched_by in ("pattern", "lexical") and not index.entries[f.id].catch_all]
    return claims[0].id if claims else None


TE = 'so_path = next(so_dir.glob(f"*.{extension}"))\n          ^^^^^^^^^^^^^^^^^^^^^^^^^^\nStopIteration'


def test_crlf_line_ends_keep_multi_line_windows(canon_index) -> None:
    want = "packaging/transformer-engine-extension-not-found"
    assert first_claim(TE, canon_index) == want
    assert first_claim(TE.replace("\n", "\r\n") + "\r\n", canon_index) == want


@pytest.mark.parametrize(
    "cut",
    [
        "FileNotFoundError: [Errno 2] No such file or directory: 'b",  # cmake-not-found is about 'cmake'
        "ERROR: No matching distribution found for o",  # the torch entry is about torch
    ],
)
def test_a_cut_or_sibling_message_is_not_claimed_by_words_alone(canon_index, cut: str) -> None:
    assert first_claim(cut, canon_index) is None


@pytest.mark.parametrize("cut", ["RuntimeError: CUDA error: an ille", "RuntimeError: CUDA error: out"])
def test_a_family_does_not_claim_a_message_cut_inside_its_member(canon_index, cut: str) -> None:
    assert first_claim(cut, canon_index) != "cuda/cuda-runtime-error-code"


def test_a_family_still_claims_its_whole_member_and_a_huge_cut_parameter(canon_index) -> None:
    """The cut check looks for the line's end in the specific entries' texts with more after it (one RE2 pass, kept
    per index); a parameter thousands of characters long is looked for by its end, within the pattern length RE2 is
    given."""
    assert runs_on_in_specific_text("cuda error: an ille", canon_index)
    assert not runs_on_in_specific_text(
        "cuda error: peer access is not supported between these two devices", canon_index
    )
    line = "RuntimeError: CUDA error: peer access is not supported between these two devices"
    assert first_claim(line, canon_index) == "cuda/cuda-runtime-error-code"
    huge = "RuntimeError: CUDA error: " + "a" * 5000
    assert first_claim(huge, canon_index) == "cuda/cuda-runtime-error-code"
    assert first_claim(huge, canon_index) == "cuda/cuda-runtime-error-code"  # the kept answer


def test_a_copy_failure_after_matching_shapes_is_not_a_size_mismatch(canon_index) -> None:
    """From torch 1.0 load_state_dict prints "While copying the parameter named "<name>" ..." (quoted) only when copy_
    fails after the shapes matched; the unquoted 0.4 sentence was the size check itself."""
    line = (
        'While copying the parameter named "fc.weight", whose dimensions in the model are torch.Size([2, 2]) and whose '
        "dimensions in the checkpoint are torch.Size([2, 2]), an exception occurred : ('Inplace update to inference "
        "tensor outside InferenceMode is not allowed.',)."
    )
    assert first_claim(line, canon_index) != "pytorch/state-dict-size-mismatch"
    old = (
        "RuntimeError: While copying the parameter named decoder.embedding.weight, whose dimensions in the model are "
        "torch.Size([58, 256]) and whose dimensions in the checkpoint are torch.Size([107, 256])."
    )
    assert first_claim(old, canon_index) == "pytorch/state-dict-size-mismatch"


def test_torchrun_closing_its_other_workers_is_a_notice_under_the_child_failure(canon_index) -> None:
    """torchrun's ``Sending process N closing signal SIGTERM`` is printed while it tears the group down after a
    worker failed: its ChildFailedError summary, printed later, is the primary error of a paste with no cause line."""
    log = (
        "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 1123 closing signal SIGTERM\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 1 (pid: 1124) of binary: "
        "/usr/bin/python3\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
    )
    assert first_claim(log, canon_index) == "pytorch/elastic-child-failed"
    alone = "[WARNING] Sending process 270 closing signal SIGTERM"
    assert first_claim(alone, canon_index) == "pytorch/elastic-closing-workers-signal"


def test_pattern_objects() -> None:
    assert pattern_objects("No such file or directory: 'cmake'") == {"cmake"}
    assert pattern_objects(r"found for (?P<package>torch(?:vision|audio)?)\b") == {
        "torch$",
        "torchvision$",
        "torchaudio$",
    }
    assert pattern_objects(r"from '(?P<package>(?:peft|trl))'") == {"peft$", "trl$"}
    assert pattern_objects(r"named '(?P<module>nemo\w*)'") == {"nemo"}  # any name it starts
    assert pattern_objects(r"CUDA error: (?P<message>[a-z][\w ]*)") == frozenset()
    assert misses_object("No such file or directory: 'b", frozenset({"cmake"}))
    assert not misses_object("No such file or directory: 'cmake'", frozenset({"cmake"}))
    assert not misses_object("anything", frozenset())


@pytest.mark.parametrize(
    ("line", "misses"),
    [
        ("No matching distribution found for torch==2.1.0", False),
        ("Processing ./torch-2.1.0-cp310-cp310-linux_x86_64.whl", False),  # torch's own wheel
        ("from torch.utils import data", False),
        ("No matching distribution found for torchvision", False),
        ("No matching distribution found for torchao==0.5.0", True),  # pytorch/ao#913: another package
        ("No matching distribution found for torch-xla", True),
        ("No matching distribution found for torch_xla", True),
        ("No matching distribution found for executorch", True),
        ("pip install pytorch", True),
    ],
)
def test_a_whole_name_is_named_only_as_a_whole(line: str, misses: bool) -> None:
    objects = pattern_objects(r"found for (?P<package>torch(?:vision|audio)?)(?:\s|$)")
    assert misses_object(line, objects) is misses


@pytest.mark.parametrize(
    "cut",
    [
        "ModuleNotFoundError: No module named 'nemo",  # 'nemo' or 'nemo_text_processing'
        "ModuleNotFoundError: No module named 'torch",  # 'torch', 'torchvision' or 'torch._six'
        "ModuleNotFoundError: No module named 'pytorch_lightning.mode",  # the lexical stage guessed a module
    ],
)
def test_a_paste_cut_inside_the_quoted_name_it_is_about_is_not_claimed(canon_index, cut: str) -> None:
    assert first_claim(cut, canon_index) is None


def test_a_quoted_name_left_whole_or_cut_after_the_member_still_answers(canon_index) -> None:
    assert (
        first_claim("ModuleNotFoundError: No module named 'torch'", canon_index) == "packaging/torch-module-not-found"
    )
    cut_after_member = "ImportError: cannot import name 'MODEL_TYPE_TO_PEFT_MODEL_MAPPING' from 'peft.m"
    assert first_claim(cut_after_member, canon_index) == "huggingface/ml-package-cannot-import-name"


@pytest.mark.parametrize(
    ("cut", "not_this"),
    [
        ("RuntimeError: DataLoader worker (pid 16725) is killed by sig", "pytorch/dataloader-worker-killed-oom"),
        ("RuntimeError: Input type (torch.cuda.FloatTensor) and w", "pytorch/tensor-conv-input-weight-device"),
        ("Input type (MPSBFloat16Type) and weight t", "pytorch/tensor-dtype-mismatch"),
        ("RuntimeError: CUDA error: operation n", "cuda/operation-not-supported"),
        ("RuntimeError: cuda runtime error (8", "cuda/operation-not-supported"),
        ("requests.exceptions.HTTPError: 403 Client Error: Forbidden f", "huggingface/hub-forbidden-403"),
    ],
)
def test_a_line_cut_where_two_entries_messages_still_agree_is_neither_entrys(
    canon_index, cut: str, not_this: str
) -> None:
    """The cut line runs on in another entry's own message as well (its examples): neither a cut form nor the
    lexical stage may pick one of them."""
    assert first_claim(cut, canon_index) in (None, "cuda/cuda-runtime-error-code")
    assert first_claim(cut, canon_index) != not_this


def test_a_line_cut_inside_one_entrys_message_is_that_entrys(canon_index) -> None:
    assert first_claim("RuntimeError: cu_seqlens_q must have s", canon_index) == "cuda/flash-attn-cu-seqlens-shape"
    assert first_claim("RuntimeError: CUDA error: no kernel image is availa", canon_index) == "cuda/no-kernel-image"


def test_a_fence_language_tag_is_framing_not_a_word_of_the_log(canon_index) -> None:
    """```python on a line of its own says how the paste is shown, not that a Python program ran."""
    assert first_claim("**Error:**\n```python\nSegmentation fault (core dumped)\n```", canon_index) is None
    ran = "```python\nimport torch\nx = torch.ones(2)\nSegmentation fault (core dumped)\n```"
    assert first_claim(ran, canon_index) == "pytorch/native-crash-shell-signal"


def test_a_fence_opened_on_the_message_keeps_the_messages_first_word(canon_index) -> None:
    """Before text on the fence's own line, only a language's name is a tag: facebookresearch/msn#24 opened the fence
    on NCCL's message, whose first word was once dropped as a tag."""
    line = "```Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 40```"
    assert first_claim(line, canon_index) == "nccl/duplicate-gpu"
    assert first_claim("```python RuntimeError: CUDA error: out of memory\n```", canon_index) == (
        "cuda/cuda-error-out-of-memory"
    )


def test_terminal_colours_and_an_indented_paste_are_framing(canon_index) -> None:
    """A colour code at a line's start or end hid it from anchored patterns; a paste indented whole (a markdown
    code block) kept its margin."""
    assert (
        first_claim("\x1b[31mlmdeploy: command not found\x1b[0m", canon_index) == "packaging/ml-cli-command-not-found"
    )
    indented = "    `ModuleNotFoundError: No module named 'torch'`"
    assert first_claim(indented, canon_index) == "packaging/torch-module-not-found"
    assert first_claim(textwrap.indent(TE, "    "), canon_index) == "packaging/transformer-engine-extension-not-found"


_TYPED = {
    "blanks at line ends": lambda t: "\n".join(line + " \t " for line in t.split("\n")),
    "no-break spaces": lambda t: t.replace(" ", "\u00a0"),
    "a full-width colon": lambda t: t.replace(": ", "\uff1a", 1),
    "ideographic spaces": lambda t: t.replace(" ", "\u3000", 3),
    "curly quotes": lambda t: re.sub(r"'([^'\n]*)'", "\u2018\\1\u2019", t).replace('"', "\u201c", 1),
}


@pytest.mark.parametrize("change", sorted(_TYPED))
def test_what_a_copy_or_a_keyboard_changes_keeps_the_first_claim(canon_index, change: str) -> None:
    """Every 16th canon example its own entry claims first is still claimed first by it with blanks left at line
    ends, with its spaces copied from a web page as no-break spaces, with its first ': ' typed full-width, or with its
    quotes curled by an editor (pytorch#88166's title)."""
    examples = [(e.id, ex.text) for e in canon_index.entries.values() for ex in e.examples][::16]
    kept = [(entry_id, text) for entry_id, text in examples if first_claim(text, canon_index) == entry_id]
    assert len(kept) > 150
    lost = [entry_id for entry_id, text in kept if first_claim(_TYPED[change](text), canon_index) != entry_id]
    assert not lost, lost


@pytest.mark.parametrize(
    ("entry_id", "line"),
    [
        (
            "huggingface/ml-package-module-missing-attribute",
            "AttributeError: module 'triton' has no attribute 'code_gen'",
        ),
        (
            "huggingface/datasets-streaming-hub-file-not-found",
            "FileNotFoundError: hf://datasets/open-phi/textbooks@292aaae99cbecacad50f692d7327887f05dacaf2/data/"
            "train-00000-of-00001-b513d9e388d56453.parquet",
        ),
    ],
)
def test_a_pattern_ending_at_the_line_end_allows_blanks_after_it(canon_index, entry_id: str, line: str) -> None:
    assert first_claim(line, canon_index) == entry_id
    assert first_claim(line + "  \t", canon_index) == entry_id
