"""Atlas extraction (core): which calls become templates, their RE2 patterns, and release intervals."""

from __future__ import annotations

import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from rootcause.core.atlas.extract import MAX_PATTERN, MIN_HEAD, Part, build_pattern, extract_python, merge_parts
from rootcause.core.atlas.intervals import compress, merge_releases
from rootcause.core.atlas.model import ReleaseInterval, TemplateKind
from rootcause.core.atlas.native import is_error_like, native_strings, nccl_formats

SOURCE = """
import logging, warnings
logger = logging.getLogger(__name__)

def top(x):
    raise ValueError("Expected a floating point tensor as input, got %s" % x.dtype)

class Engine:
    def step(self, rank, size):
        if rank >= size:
            raise RuntimeError(f"Rank {rank} is out of range for a world of size {size}")
        warnings.warn("Engine.step(sync=True) is deprecated and will be removed", FutureWarning)
        logger.warning("Checkpoint shard %s could not be loaded, skipping it", rank)
        logging.error("The data loader worker exited unexpectedly: {}".format(rank))
        raise TypeError("Unsupported optimizer " + str(rank) + " for the fused engine")
        raise ValueError("bad value")       # too short to be distinctive
        raise ValueError(message)           # no literal
        raise KeyError(f"{rank}")           # no literal
        print("not an error call at all, even with a long message")
"""


def _by_exception() -> dict[str, object]:
    return {t.exception: t for t in extract_python(SOURCE)}


def test_each_message_form_becomes_one_template() -> None:
    found = extract_python(SOURCE)
    assert [(t.kind, t.exception, t.line) for t in found] == [
        (TemplateKind.RAISE, "ValueError", 6),
        (TemplateKind.RAISE, "RuntimeError", 11),
        (TemplateKind.WARNING, "FutureWarning", 12),
        (TemplateKind.LOG, "warning", 13),
        (TemplateKind.LOG, "error", 14),
        (TemplateKind.RAISE, "TypeError", 15),
    ]
    by = {t.exception: t for t in found}
    assert by["ValueError"].function == "top"
    assert by["RuntimeError"].function == "Engine.step"
    assert by["RuntimeError"].message == "Rank {rank} is out of range for a world of size {size}"
    assert by["warning"].message == "Checkpoint shard %s could not be loaded, skipping it"
    assert by["TypeError"].message == "Unsupported optimizer {str(rank)} for the fused engine"


def test_patterns_match_the_printed_line_and_capture_its_values() -> None:
    by = {t.exception: t for t in extract_python(SOURCE)}
    line = "RuntimeError: Rank 9 is out of range for a world of size 8"
    m = re2.search(by["RuntimeError"].pattern, line)
    assert m is not None and m.group("p0") == "9" and m.group("p1") == "8"
    assert by["RuntimeError"].literal in line
    assert re2.search(by["error"].pattern, "ERROR:root:The data loader worker exited unexpectedly: 3")
    assert re2.search(by["FutureWarning"].pattern, "FutureWarning: Engine.step(sync=True) is deprecated and will be")
    assert not re2.search(by["RuntimeError"].pattern, "Rank 9 is fine")


def test_a_paste_cut_after_a_fixed_part_still_matches() -> None:
    pattern = {t.exception: t for t in extract_python(SOURCE)}["RuntimeError"].pattern
    assert re2.search(pattern, "Rank 9 is out of range for a world of size ")
    assert re2.search(pattern, "Rank 9 is out of range for a wor")  # past the required head
    assert re2.search(pattern, "Rank 9 is out of range for a")
    assert not re2.search(pattern, "Rank 9 is out of range")
    assert not re2.search(pattern, "Rank 9 is out")  # inside the head: too little to tell


def test_multiline_messages_keep_their_first_line_and_unparsable_source_gives_nothing() -> None:
    found = extract_python('raise ValueError("\\nThe tokenizer class you load from this checkpoint\\nis not the same")')
    assert [t.message for t in found] == ["The tokenizer class you load from this checkpoint"]
    assert extract_python("def broken(:\n") == []


_TEXT = st.text(alphabet="abcdefghij klmnop:,.()[]*+?$^|", min_size=1, max_size=30)
_VALUE = st.text(alphabet="0123456789xyzXYZ_/-", min_size=0, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_TEXT, _VALUE), min_size=1, max_size=6))
def test_any_cut_after_the_head_matches(pieces: list[tuple[str, str]]) -> None:
    """For a message `lit0 {v0} lit1 {v1} ...`: the full line matches, and so does the line cut after
    any literal part once MIN_HEAD literal characters are in; the prefilter literal is in each."""
    raw: list[Part] = []
    for text, _ in pieces:
        raw += [Part("Something failed at " + text, True), Part("{x}", False)]
    parts = merge_parts(raw)
    built = build_pattern(parts)
    if built is None:
        return
    pattern, literal = built
    assert len(pattern) <= MAX_PATTERN + 200
    compiled = re2.compile(pattern)
    rendered = ""
    seen = 0
    for i, (text, value) in enumerate(pieces):
        rendered += ("Something failed at " + text) if i else ("Something failed at " + text).lstrip()
        seen += len(("Something failed at " + text).strip())
        if seen >= MIN_HEAD:
            assert compiled.search(rendered), (pattern, rendered)
            assert literal in rendered
        rendered += value
    assert compiled.search(rendered)


def test_patterns_stay_under_the_canon_cap() -> None:
    long = "x" * 3000
    found = extract_python(f'raise ValueError("A very long message follows here: {long} and more " + str(v) + " tail")')
    assert found and all(len(t.pattern) <= MAX_PATTERN for t in found)
    assert re2.compile(found[0].pattern)


def test_intervals_compress_runs_in_release_order() -> None:
    releases = ["1.0", "1.1", "1.2", "2.0", "2.1"]
    assert compress(releases, {"1.0", "1.1", "2.0"}) == (
        ReleaseInterval(first="1.0", last="1.1"),
        ReleaseInterval(first="2.0", last="2.0"),
    )
    assert compress(releases, set()) == ()
    old = extract_python('def f():\n    raise ValueError(f"Expected the input to be contiguous, got {x}")')
    new = extract_python('\n\ndef g():\n    raise ValueError(f"Expected the input to be contiguous, got {x}")')
    [template] = merge_releases("pkg", ["1.0", "1.1"], {"1.0": old, "1.1": new})
    assert template.releases == (ReleaseInterval(first="1.0", last="1.1"),)
    assert (template.function, template.line) == ("g", 4)  # from the newest release


def test_native_strings_keep_error_like_prose_as_printf_patterns() -> None:
    blob = (
        b"\x00_ZN3c105ErrorC2ENS_14SourceLocationE\x00"
        b"Expected all tensors to be on the same device, but found at least two devices, %s and %s!\x00"
        b"\x7fELF\x00some/path/to/file.cpp\x00just an ordinary sentence with words\x00"
    )
    found = native_strings(blob, "torch/lib/libtorch_cpu.dylib")
    assert [t.kind for t in found] == [TemplateKind.NATIVE]
    assert re2.search(
        found[0].pattern,
        "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
    )
    assert not is_error_like("some/path/to/error.cpp")


def test_nccl_warn_and_info_formats_with_their_lines() -> None:
    source = 'int f() {\n  WARN("Call to ibv_reg_mr failed with error %s", strerror(errno));\n  INFO(NCCL_INIT|NCCL_NET, "NET/IB : "\n  "Using interface %s for sideband communication", ifName);\n  TRACE(NCCL_ALL, "comm %p rank %d", comm, rank);\n}\n'
    found = nccl_formats(source, "src/transport/net_ib.cc")
    assert [(t.exception, t.line) for t in found] == [("WARN", 2), ("INFO", 3)]
    assert found[1].message == "NET/IB : Using interface %s for sideband communication"
    assert re2.search(
        found[0].pattern, "node1:123:456 [0] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory"
    )


def test_a_library_assertion_loses_the_build_machines_path() -> None:
    blob = b'\x00inputs.size() == 3 INTERNAL ASSERT FAILED at "/Users/runner/work/pytorch/torch/csrc/x.cpp":120, please report a bug to PyTorch. \x00'
    [found] = native_strings(blob, "torch/lib/libtorch_cpu.dylib")
    assert found.message == "inputs.size() == 3 INTERNAL ASSERT FAILED"
    linux = 'RuntimeError: inputs.size() == 3 INTERNAL ASSERT FAILED at "/var/lib/jenkins/pytorch/torch/csrc/x.cpp":118, please report a bug'
    assert re2.search(found.pattern, linux)


def test_generic_templates_are_left_out() -> None:
    from rootcause.core.atlas.prune import is_generic

    source = """
def f(filename, lineno, name, module_name, repo_id):
    raise RuntimeError('  File "{}", line {}, in {}'.format(filename, lineno, name))
    raise ImportError(f"No module named {module_name}")
    raise KeyError(f"'{repo_id}' not found.")
    raise NameError(f"name '{name}' is not defined")
    raise ValueError(f"Expected all tensors to be on the same device, got {name}")
"""
    kept = [t.message for t in extract_python(source) if not is_generic(t)]
    assert kept == ["Expected all tensors to be on the same device, got {name}"]
    strerror = native_strings(b"\x00connection timed out while waiting\x00", "lib/libc10.so")
    assert strerror and is_generic(strerror[0])


def test_a_head_cut_at_a_run_of_spaces_still_reaches_its_length() -> None:
    """Found by the property above: the head was cut at the second of two spaces, so it held one literal character
    too few and took in the next literal, which a line cut after the first one lacks."""
    parts = merge_parts(
        [Part("Something failed at :::  :", True), Part("{x}", False), Part("Something failed at :", True)]
    )
    built = build_pattern(parts)
    assert built is not None
    assert re2.search(built[0], "Something failed at :::  :")


def test_strings_of_a_bundled_toolchain_are_not_the_package_s_own() -> None:
    # libtriton links LLVM and MLIR: their strings are printed by rustc and clang as well
    from rootcause.core.atlas.prune import is_not_own

    [llvm] = native_strings(b"\x00internal compiler error: %s while compiling\x00", "triton/_C/libtriton.so")
    assert is_not_own("triton", llvm)
    assert not is_not_own("torch", llvm)
    [raised] = extract_python("def f(n):\n    raise ValueError(f'num_warps must be a power of 2, got {n}')\n")
    assert not is_not_own("triton", raised)
    # sglang's Rust extension modules link hyper and tonic: their strings are any Rust HTTP/gRPC program's
    [hyper] = native_strings(b"\x00error sending request for url\x00", "sglang/srt/rust_extensions/_server.so")
    assert is_not_own("sglang", hyper)
    assert not is_not_own("sglang", raised)


def test_rust_runtime_strings_are_no_package_s_own() -> None:
    # Rust's standard library is linked into every Rust extension: its panic strings are any Rust program's
    from rootcause.core.atlas.prune import is_not_own

    [panic] = native_strings(b"\x00fatal runtime error: failed to initiate panic, error 5\x00", "pkg/_rust.so")
    assert is_not_own("torch", panic) and is_not_own("tokenizers", panic)
    [own] = native_strings(b"\x00Error while deserializing header: invalid header\x00", "safetensors/_rust.so")
    assert is_not_own("safetensors", own), "safetensors' Rust .rodata is read as glued runs: none is kept"
    assert not is_not_own("tokenizers", own)


def test_a_message_copied_from_torch_is_left_to_torch() -> None:
    from rootcause.core.atlas.prune import is_not_own

    source = (
        "import warnings\n"
        "def f(n):\n"
        "    warnings.warn('Setting OMP_NUM_THREADS environment variable for each process '\n"
        "                  f'to be {n} in default, to avoid your system being overloaded')\n"
    )
    [copied] = extract_python(source)
    assert is_not_own("mmengine", copied) and is_not_own("mmdet", copied)
    assert not is_not_own("torch", copied)
    [own] = extract_python("def f(n):\n    raise KeyError(f'{n} is not in the registry of mmengine models')\n")
    assert not is_not_own("mmengine", own)


def test_a_message_held_in_a_name_is_read_through_it() -> None:
    """`msg = f"..."; raise ValueError(msg)` (ruff's EM rules ask for it) and a module constant formatted later
    (torch's `CUDA_MISMATCH_WARN.format(...)` in cpp_extension) are messages too; a name bound otherwise is not."""
    source = """
WARN = "The detected CUDA version ({0}) has a minor version mismatch with the version used ({1})."
REBOUND = "a constant bound twice, the second time to a call"
REBOUND = make()

def f(x):
    msg = f"Expected the tensor to be contiguous along its last dimension, got {x}"
    raise ValueError(msg)

def g(v):
    warnings.warn(WARN.format(v, torch.version.cuda))

def h(WARN):
    raise ValueError(WARN)  # a parameter hides the module's constant

def k(a):
    if a:
        message = "The first branch of the message that is long enough"
    else:
        message = "The second branch of the message that is long enough"
    raise RuntimeError(message)

def loop(messages):
    for msg in messages:
        raise RuntimeError(msg)

def m():
    raise RuntimeError(REBOUND)

def aug(names):
    err = "Some parameters were not initialised from the checkpoint: "
    err += ", ".join(names)
    raise KeyError(err)
"""
    found = {(t.function, t.message) for t in extract_python(source)}
    assert found == {
        ("f", "Expected the tensor to be contiguous along its last dimension, got {x}"),
        ("g", "The detected CUDA version ({0}) has a minor version mismatch with the version used ({1})."),
        ("k", "The first branch of the message that is long enough"),
        ("k", "The second branch of the message that is long enough"),
        ("aug", "Some parameters were not initialised from the checkpoint:"),
    }


def test_a_banner_line_before_the_message_is_skipped() -> None:
    """torch.distributed.run logs its OMP_NUM_THREADS note between two lines of asterisks: the message is the
    first line holding words."""
    source = """
def run(omp):
    log.warning(
        "\\n*****************************************\\n"
        "Setting OMP_NUM_THREADS environment variable for each process to be "
        "%s in default, to avoid your system being overloaded. \\n"
        "*****************************************",
        omp,
    )
"""
    [found] = extract_python(source)
    assert found.message.startswith("Setting OMP_NUM_THREADS environment variable for each process to be %s")
    assert re2.search(found.pattern, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in")
    assert [p.text for p in merge_parts([Part("Error: the first line\n*****", True)])] == ["Error: the first line"]


def test_transformers_warning_advice_is_a_warning_log() -> None:
    source = 'def pad(self):\n    logger.warning_advice(f"You are using a {name} tokenizer with a slow method")\n'
    [found] = extract_python(source)
    assert (found.kind.value, found.exception) == ("log", "warning")


def test_a_message_s_trailing_blank_is_not_required() -> None:
    """torch.distributed.run's OMP_NUM_THREADS note ends `as needed. ` before its banner's newline; the logged line
    loses the blank (a log handler or a paste strips it), and the tail with the parameter must still match."""
    source = 'def run(n):\n    log.warning("Setting the thread count of each process to be %s in default, as needed. \\n", n)\n'
    [found] = extract_python(source)
    assert found.message.endswith("as needed.")
    m = re2.search(
        found.pattern, "W0621 run.py:757] Setting the thread count of each process to be 1 in default, as needed."
    )
    assert m and m.group(0).endswith("as needed.")
