"""Rules that shape the findings after the scan (docs/ranking.md): truncated patterns that name no single entry
are dropped, an AI-generated entry never ranks above a grounded entry it is linked to, and the catch-all's hits
become facts about unclassified exceptions rather than findings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Protocol, TypeVar

from rootcause.core.matching.index import INNER_ERROR_NEXT, CompiledIndex
from rootcause.core.matching.scan import Hit
from rootcause.core.model import Entry, Verification
from rootcause.core.unclassified import UnclassifiedException, unclassified


class _HasEntry(Protocol):
    entry: Entry


class _HasHits(Protocol):
    hits: list[tuple[str, Hit]]


class _Claim(Protocol):
    entry: Entry
    matched_by: str
    hits: list[tuple[str, Hit]]
    count: int
    literal: bool  # a lexical claim of a cut line that runs on in the entry's own message only (claims.cut_owners)


G = TypeVar("G", bound=_HasEntry)
C = TypeVar("C", bound=_Claim)


def without_ambiguous_truncations(
    hits: list[Hit], index: CompiledIndex, ambiguous: set[int] | None = None
) -> list[Hit]:
    """A truncated pattern's hit counts only when no full pattern matched the same line (the line is complete, and
    that entry's) and no other entry's truncated pattern did: a line cut before the words that tell two entries
    apart names neither (a family entry is no rival of its members: ``_ambiguous``). A family entry's full match does
    not hide another entry's cut form: the family names only the class (``CUDA error: ...``) in which the cut words
    still place a member. ``ambiguous`` collects the lines whose cut forms named no single answer: the lexical
    stage must not pick one of those entries either."""
    full = {
        h.line
        for h in hits
        if not index.patterns[h.pattern].truncated and not index.entries[index.patterns[h.pattern].entry_id].family
    }
    cut_owners: dict[int, set[str]] = {}
    for h in hits:
        if index.patterns[h.pattern].truncated:
            cut_owners.setdefault(h.line, set()).add(index.patterns[h.pattern].entry_id)
    if not cut_owners:
        return hits
    kept = []
    for h in hits:
        p = index.patterns[h.pattern]
        if p.truncated and h.line in full:
            continue
        if p.truncated and _ambiguous(cut_owners[h.line], index):
            if ambiguous is not None:
                ambiguous.add(h.line)
            continue
        kept.append(h)
    return kept


def _ambiguous(owners: set[str], index: CompiledIndex) -> bool:
    """Whether the entries whose cut forms matched one line name no single answer. A family entry is not a rival
    of its members: cut where a family and one member still agree, the member answers (the family ranks below
    it), and cut before any member's words, the family alone does."""
    members = {e for e in owners if not index.entries[e].family}
    return len(members) > 1 or (not members and len(owners) > 1)


def linked(a: Entry, b: Entry) -> bool:
    return any(r.id == b.id for r in a.related) or any(r.id == a.id for r in b.related)


def grounded_first(ordered: Sequence[G]) -> list[G]:
    """An AI-generated entry never ranks above a grounded entry it is linked to: it moves just below the last one."""
    out = list(ordered)
    for group in ordered:
        if group.entry.verification is Verification.AI_GENERATED:
            grounded = (g for g in ordered if g.entry.verification is not Verification.AI_GENERATED)
            _below_the_last(out, group, {id(g) for g in grounded if linked(group.entry, g.entry)})
    return out


def _below_the_last(out: list[G], group: G, rivals: set[int]) -> None:
    """Move ``group`` just below the last of its ``rivals`` (ids of findings) that ranks after it, in place."""
    here = out.index(group)
    below = [i for i, g in enumerate(out) if i > here and id(g) in rivals]
    if below:
        out.insert(below[-1], out.pop(here))


def tier(entry: Entry) -> int:
    """0 specific, 1 generic, 2 family (a generic entry for a whole family of messages), 3 catch-all."""
    return 3 if entry.catch_all else 2 if entry.family else int(entry.generic)


def drop_redundant_generics(ordered: Sequence[C]) -> list[C]:
    """A generic finding says nothing new when every line it matched is explained by a specific one's pattern, and
    a family finding nothing new when a specific or another generic entry's pattern explains every line it matched
    (a lexical claim is a guess from shared words: it never hides a pattern's finding on the same line, unless the
    line is that entry's own message cut short)."""
    explained = {(src, hit.line) for g in ordered if not g.entry.generic and _exact(g) for src, hit in g.hits}
    below_family = explained | {(src, hit.line) for g in ordered if tier(g.entry) == 1 for src, hit in g.hits}
    kept = []
    for group in ordered:
        redundant = group.entry.generic and group.count == len(group.hits)
        lines = below_family if group.entry.family else explained
        if redundant and all((src, hit.line) in lines for src, hit in group.hits):
            continue
        kept.append(group)
    return kept


def _exact(group: _Claim) -> bool:
    """A pattern's finding, or a lexical claim of a line cut from the entry's own message (no other entry's message
    holds the cut: ``cannot import name 'Dataset' from 'datasets' (/tmp/ray/.../runtime_resources/working_dir_fi``)."""
    return group.matched_by == "pattern" or group.literal


def patterns_first_on_their_lines(ordered: Sequence[C]) -> list[C]:
    """A lexical finding never ranks above a finding whose own pattern matched one of the lines it claims: on the
    same line, an exact match outranks a guess from shared words, whatever their tiers (a family's ``CUDA error: OS
    call failed or operation not supported on this OS`` is not ``CUDA error: operation not supported``, though the
    two share their words). It moves just below the last such pattern finding. A line cut short that runs on in
    the lexical entry's own message only is that entry's message, not a guess (``_exact``): it keeps its rank."""
    found_on: dict[tuple[str, int], list[int]] = {}  # each line -> the pattern findings (by id) that matched it
    for g in ordered:
        if g.matched_by == "pattern" and not g.entry.catch_all:
            for src, hit in g.hits:
                found_on.setdefault((src, hit.line), []).append(id(g))
    out = list(ordered)
    for group in ordered:
        if not _exact(group):
            _below_the_last(out, group, {g for src, hit in group.hits for g in found_on.get((src, hit.line), ())})
    return out


# Roles that do not answer an input which also shows an exception no finding explains.
NOT_AN_ANSWER_BESIDE_AN_EXCEPTION = frozenset({"wrapper", "notice"})
TRACEBACK_HEADER = "Traceback (most recent call last)"  # plain Python and IPython alike


def _all_in_roles(findings: Sequence[object], roles: Iterable[str]) -> bool:
    """Whether there are findings and each one's role is one of ``roles`` (none of them a cause or symptom)."""
    allowed = set(roles)
    return bool(findings) and all(getattr(f, "role", "cause") in allowed for f in findings)


def _wrapped_only(findings: Sequence[object]) -> bool:
    """Whether every finding is a wrapper or a notice, and one is a wrapper: neither kind names the error inside."""
    return _all_in_roles(findings, NOT_AN_ANSWER_BESIDE_AN_EXCEPTION) and any(
        getattr(f, "role", "cause") == "wrapper" for f in findings
    )


def wraps_an_unknown_error(
    findings: Sequence[object], catch_alls: Sequence[_HasHits], explained: set[tuple[str, int]]
) -> str | None:
    """When every finding is a wrapper (torchrun's ChildFailedError, pip's failed build) or a notice (a warning the
    library printed while the job went on) and the input also shows a Python exception that no finding explains,
    neither is the answer: the error the job died of is unknown. Gives that exception's first line, or None."""
    if not _all_in_roles(findings, NOT_AN_ANSWER_BESIDE_AN_EXCEPTION):
        return None
    for group in catch_alls:
        for src, hit in group.hits:
            if (src, hit.line) not in explained:
                return f"{hit.params.get('exc', '')}: {hit.params.get('message', '')}"[:200]
    return None


# A C, C++ or CUDA compiler's error line (gcc, clang, nvcc, MSVC): the cause inside a failed extension build.
_COMPILER_ERROR = re.compile(
    r"\.(?:c|cc|cpp|cxx|cu|cuh|h|hh|hpp|hxx|inl)(?::\d+(?::\d+)?|\(\d+\)):\s+(?:fatal )?error(?: C\d+)?:\s*\S"
)


# An exception line with its message (``ZeroDivisionError: division by zero``), with or without a traceback above it;
# a subprocess's exit status is another wrapper, not a cause
_EXCEPTION_LINE = re.compile(r"^\W*(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception)\b: +\S")
_WRAPPING_EXCEPTIONS = (
    "CalledProcessError",
    "ChildFailedError",
    "RayTaskError",
    "SubprocessError",
    "CompileError",  # setuptools' and distutils' compiler and linker failures wrap the compiler's own lines
    "LinkError",
    "DistutilsExecError",
)
# pip's own ``ERROR:`` lines that name why it stopped (old pips also prefix a build's output and their summaries
# with ``ERROR:``, so only these count)
_PIP_CAUSES = (
    "ERROR: Could not find a version that satisfies",
    "ERROR: Could not install packages due to",
    "ERROR: Cannot install ",
    "ERROR: ResolutionImpossible",
    "ERROR: Could not open requirements file",
    "ERROR: Invalid requirement",
    "ERROR: Package '",
    "ERROR: Exception:",
)


# a program's own error line, argparse's ``%(prog)s: error: %(message)s`` or a compiler driver's
# (``model_service_worker.py: error: unrecognized arguments: ...``, ``gcc: error: unrecognized option``, ``gcc: fatal
# error: Killed signal terminated program cc1plus``)
_PROGRAM_ERROR = re.compile(r"(?:^|\s)[\w.\-]+: (?:fatal )?error: \S")
# a build step's own ``error: <message>`` (setuptools' and distutils' errors, a setup.py's SystemExit, git's), indented
# in pip's output: ``error: Remote end closed connection without response``. Not pip's kebab-case codes
# (``error: subprocess-exited-with-error``), a command's exit (``error: command 'gcc' failed ...``) or cargo's
# ``could not compile``, which only wrap the lines above them
_STEP_ERROR = re.compile(
    r"error: (?:Setup script exited with error: )?(?![a-z]+(?:-[a-z]+)+\s*$|command\b|could not compile\b)\S"
)


# the process died: a shell's or launcher's report of a fatal signal (``Killed``, ``Aborted (core dumped)``, zsh's
# ``[1]  4242 killed  python x.py``, PyCharm's ``exit code 137 (interrupted by signal 9: SIGKILL)``), CPython's
# ``Fatal Python error:``, glibc's heap checks (``free(): invalid pointer``, ``double free or corruption (!prev)``)
_PROCESS_DEATH = re.compile(
    r"^\W*(?:\[\d+\][+-]?\s+(?:\d+\s+)?)?(?:zsh: )?(?i:killed|aborted|segmentation fault|bus error|illegal instruction"
    r"|illegal hardware instruction|floating point exception)\b"
    r"|^\W*Fatal Python error: "
    r"|^\W*(?:free|malloc|realloc|munmap_chunk|malloc_consolidate)\(\): \S"
    r"|^\W*(?:double free or corruption|corrupted size vs\. prev_size)\b"
    r"|exit code 1(?:3[2-9]|4[0-3]) \(interrupted by signal \d+: SIG[A-Z]+\)"
)


def _cause_beside_a_wrapper(line: str) -> bool:
    """Whether a line no finding explains reports the error a wrapped step died of: a compiler's error, an
    exception with its message, a program's own ``PROG: error:`` line, or pip's own reason for stopping."""
    if _COMPILER_ERROR.search(line[:2000]):
        return True
    head = line.lstrip()[:200]
    if _EXCEPTION_LINE.match(head):
        return not any(name in head.split(":", 1)[0] for name in _WRAPPING_EXCEPTIONS)
    if _PROGRAM_ERROR.search(head) or _STEP_ERROR.match(head) or _PROCESS_DEATH.search(head):
        return True
    return head.startswith(_PIP_CAUSES) or (head.startswith("ERROR: ") and "is not a supported wheel" in head)


def wrapper_beside_an_unexplained_error(
    findings: Sequence[object], unexplained_lines: Iterable[str], inner_errors: Sequence[str] = ()
) -> str | None:
    """When every finding is a wrapper (pip's failed wheel build, a failed ninja or setup.py build, Ray's task error)
    or a notice beside one (a notice alone is `notices_beside_a_crash`'s) and the input shows an error line that no
    finding explains (``functor.h:203:37: error: static assertion
    failed``, ``ZeroDivisionError: division by zero`` without a traceback, pip's ``ERROR: Could not find a version
    ...``, argparse's ``worker.py: error: ...``), the wrapped step died of that error, which no entry knows: the
    wrapper is no answer. Gives the line, or None. (Only the lines the scan found error-looking are read: an
    ``OSError``/``IOError`` line is not one of them.) ``inner_errors``: the unexplained lines a wrapper's own line
    says hold the inner error's message without its class (the line after a lazy module's ``(look up to see its
    traceback):``, such as ``'_OpNamespace' object has no attribute 'lift_fresh'``), each a cause whatever its shape."""
    if not _wrapped_only(findings):
        return None
    found = next((line.strip()[:200] for line in unexplained_lines if _cause_beside_a_wrapper(line)), None)
    return found or next((line.strip()[:200] for line in inner_errors if line.strip()), None)


def inner_error_lines(
    findings: Sequence[object], groups: Iterable[_HasHits], unexplained: Iterable[tuple[str, int, str]]
) -> list[str]:
    """The unexplained lines (input, line number, cleaned text) right after a wrapper's line that ends where the
    inner error's message starts on the next line (INNER_ERROR_NEXT, a lazy module's); none unless every finding is
    a wrapper or a notice beside one, the only case `wrapper_beside_an_unexplained_error` reads them."""
    if not _wrapped_only(findings):
        return []
    after = {
        (src, hit.line + 1) for g in groups for src, hit in g.hits if hit.clean.rstrip().endswith(INNER_ERROR_NEXT)
    }
    return [clean for src, line_no, clean in unexplained if (src, line_no) in after]


# A line that reports a failure of its own: an exception (``ValueError: ...``) or a log record at error level
# (``[ERROR:modelscope] ...``, ``ERROR 02-20 09:04:16 registry.py:306] ...``, ``E1202 ...`` is framing, stripped).
# A bare ``Error:`` or ``ERROR:`` with nothing after it is a paster's label over the block (``**Error:**``), not one.
_ERROR_OF_ITS_OWN = re.compile(
    r"^\W*(?:\w[\w.]*(?:Error|Exception)\b:|(?:Error|Exception):\W*\w|(?:ERROR|FATAL|CRITICAL)\b(?!\W*$))"
)


# the level a log header gives, which cleaning strips with the header: DeepSpeed's and loguru-style ``[ERROR]`` fields
# after a timestamp, and glog's ``E1202 13:13:37.486`` / ``F...`` (c10's own errors and fatal checks)
_ERROR_LEVEL_HEADER = re.compile(
    r"^\W*(?:\[?[\d:\-.,T /]+\]?\s*)?\[(?:ERROR|FATAL|CRITICAL)\]|^\W*\[?[EF]\d{4} \d\d:\d\d:\d\d"
)


# a C++ exception that no handler caught: libstdc++'s verbose terminate handler (``terminate called after throwing an
# instance of 'tensorrt_llm::common::TllmException'`` then ``  what():  ...``); the process aborts
_CXX_TERMINATE = re.compile(
    r"^\W*(?:terminate called (?:after throwing an instance of|without an active exception)|what\(\): +\S)"
)


# NCCL reports its failures at WARN level (``host:pid:tid [0] NCCL WARN Failed to find CUDA library libcuda.so``);
# its notices are INFO lines
_NCCL_WARN = re.compile(r"\bNCCL WARN\b")


# a build tool's or compiler driver's own error line (``ninja: error: ...``, ``error: command 'cl.exe' failed``): an
# extension build that died while notices were printed (the lines read are those the scan found errorish)
_BUILD_TOOL_ERROR = re.compile(
    r"^\W*(?:(?:ninja|nvcc|gcc|g\+\+|c\+\+|clang(?:\+\+)?|cl|ld|collect2)(?:\.exe)?: (?:fatal )?error\b|error: )"
)


def notices_beside_a_crash(findings: Sequence[object], unexplained_lines: Iterable[tuple[str, str]]) -> str | None:
    """When every finding is a notice (a warning printed while the job went on) and the input shows a Python
    traceback, an exception line, an error-level log line, or a compiler's or build tool's error line that no finding
    explains (a traceback even cut before its exception line), the job died of something else: no known error matched.
    ``unexplained_lines`` are (raw, cleaned) pairs: a log header's level is read from the raw line. Gives that line,
    or None."""
    if not _all_in_roles(findings, ("notice",)):
        return None
    for raw, clean in unexplained_lines:
        line = clean.strip()
        if (
            TRACEBACK_HEADER in clean
            or _ERROR_OF_ITS_OWN.match(line)
            or _BUILD_TOOL_ERROR.match(line)
            or _COMPILER_ERROR.search(line[:2000])
            or _CXX_TERMINATE.match(line)
            or _PROCESS_DEATH.search(line[:300])
        ):
            return line[:200]
        if _ERROR_LEVEL_HEADER.match(raw[:80]) or _NCCL_WARN.search(raw[:200]):  # a header is short
            return raw.strip()[:200]  # the level is in the header the cleaned line lost
    return None


def unclassified_of(
    groups: Sequence[_HasHits], explained: set[tuple[str, int]], limit: int
) -> list[UnclassifiedException]:
    """The catch-all's hits as facts: exceptions in the ML stack whose line no finding explains."""
    out: list[UnclassifiedException] = []
    seen: set[tuple[str, str]] = set()
    for group in groups:
        for src, hit in group.hits:
            exc, message = hit.params.get("exc", ""), hit.params.get("message", "")
            if (src, hit.line) in explained or (exc, message) in seen:
                continue
            seen.add((exc, message))
            item = unclassified(exc, message, src, hit.line, hit.raw, hit.context)
            if item is not None and len(out) < limit:
                out.append(item)
    return out
