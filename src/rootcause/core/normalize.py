"""Strip the framing around log lines, keeping what the framing told us.

Framing is everything a logger or launcher adds in front of the message:
timestamps, ANSI colour codes, c10/glog headers such as
``[E1202 13:13:37.486000 11617 file.py:1002]``, torchrun's ``[rank3]:`` and
``[default3]:`` prefixes, and Slurm's ``srun --label`` prefixes. Matching runs on
the cleaned text; the rank found in the framing is kept beside it.

Formats: /work/shared/reference/nccl-message-formats.md §1 (c10 logger prefix
``c10/util/Logging.cpp``, torchrun prefixes).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import re2

ANSI_RE = re2.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*\x07")

# the info strings users open a fenced log or traceback with (GitHub's language names and aliases)
_FENCE_LANGUAGES = (
    r"python3?|py|pytb|pycon|ipython|bash|sh|zsh|shell|console|shell-session|sh-session|terminal|text|txt|plaintext"
    r"|plain|log|logs|output|cmd|bat|batch|powershell|ps1|pwsh|json|ya?ml|toml|ini|c|cpp|c\+\+|cuda|diff|none|java"
)

# One framing element at the start of a line; stripped repeatedly.
_FRAMING = [
    # torchrun --tee / local_ranks_filter: "[rank3]:" (global) and "[default3]:" (local)
    ("rank", re.compile(r"^\[rank(?P<rank>\d+)\]:\s?")),
    ("local_rank", re.compile(r"^\[default(?P<local_rank>\d+)\]:\s?")),
    # c10 logger: "[E ProcessGroupNCCL.cpp:737] " and "[E1206 18:44:16.994932383 file.cpp:1709] "
    ("c10", re.compile(r"^\[[IWEF](?:\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)?)?(?: +\d++)? ?[\w.\-/]+:\d+\]\s?")),
    # glog: "E1202 13:13:37.486000 11617 file.py:1002] "
    ("glog", re.compile(r"^[IWEF]\d{3,4} \d\d:\d\d:\d\d(?:\.\d+)? +\d+ [\w.\-/]+:\d+\]\s?")),
    # ISO-ish timestamps, optionally bracketed, optionally followed by a separator
    (
        "time",
        re.compile(
            r"^\[?\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\]?"
            r"(?:\s*[|:-]\s*|\s+)"
        ),
    ),
    ("time", re.compile(r"^\[?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?\s+")),
    # Python logging level after a timestamp: "ERROR:root:" / "- ERROR - "
    (
        "level",
        re.compile(r"^(?:\[(?:INFO|WARNING|ERROR|CRITICAL|DEBUG)\]|(?:INFO|WARNING|ERROR|CRITICAL|DEBUG):[\w.]*:)\s?"),
    ),
    # Python logging's "%(asctime)s - %(name)s - %(levelname)s - %(message)s" after its time: "root - ERROR - "
    ("level", re.compile(r"^(?:[\w.\-]+ - )?(?:INFO|WARNING|ERROR|CRITICAL|DEBUG) - ")),
    # Slurm "srun --label": "3: message"
    ("slurm", re.compile(r"^\s{0,3}(?P<slurm_rank>\d{1,5}): ")),
    # Ray's worker prefix "(RayWorkerWrapper pid=37007, ip=10.0.0.1) " and vLLM's "ERROR 06-12 15:44:15 file.py:148] "
    # vLLM's process prefixes name one or two words: "(VllmWorker TP1 pid=437) ", "(EngineCore_DP0 pid=697344) ",
    # and in vLLM 0.7-0.8 a rank: "(VllmWorker rank=1 pid=12231) ";
    # its logger writes "ERROR 01-08 17:16:15 [core.py:844] " (older releases: without the bracket)
    ("ray", re.compile(r"^\((?:\w+ )?(?:\w+(?:=\d+)? )?pid=\d+(?:, ip=[\d.]+)?\)\s")),
    (
        "vllm",
        re.compile(r"^(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[?[\w.]+:\d+\]\s"),
    ),
    # DeepSpeed's logger site after its time and level: "[launch.py:434:sigkill_handler] "
    ("site", re.compile(r"^\[[\w.]+\.py:\d+:\w+\]\s")),
    # What users add around a paste: "> " quotes, markdown fences and emphasis, list bullets, shell prompts
    ("quote", re.compile(r"^\s{0,3}>(?: |$)")),
    # a log viewer's or a table's gutter (Buildkite, GitHub Actions tables): "  | Traceback ..."
    ("gutter", re.compile(r"^\s{0,3}\|\s(?=\s*\S)")),
    # a fence line alone with its language tag (```python) is framing whole: the tag is no word of the log; before
    # text on the same line, only a language's name is a tag ("```Duplicate GPU detected" opens on the message)
    ("fence", re.compile(rf"^\s{{0,3}}(?:```+|~~~+)(?:[\w+.-]*\s*$|(?:(?i:{_FENCE_LANGUAGES})\s+)?(?=\S))")),
    ("emphasis", re.compile(r"^(?:\*\*|__)(?=\S)")),  # only when the line also ends with it (below)
    ("bullet", re.compile(r"^\s{0,3}(?:[-+]|\*(?!\*)|\d{1,2}\.)\s+(?=\S)")),
    ("prompt", re.compile(r"^(?:\([\w.-]+\)\s+)?(?:[\w.-]+@[\w.-]+:[^\s$#]*\s?)?[$#]\s+(?=\S)")),
    ("repl", re.compile(r"^(?:>>>|\.\.\.|In \[\d+\]:)\s")),
    # an inline code span: "`message", or a whole line "`    from torch._C import *`" (a traceback pasted one
    # code span per line keeps its indentation: frame lines and their source lines stay apart)
    ("backtick", re.compile(r"^`(?=[^`\s]|[ \t]+\S[^\n]*`[ \t]*$)")),
]


def _strip_closing(line: str, marks: str) -> str:
    """The line without the closing markup users leave at its end (a fence or backtick, emphasis)."""
    body = line.rstrip()
    if body.endswith(marks) and body[: -len(marks)].strip():
        return body[: -len(marks)].rstrip()
    return line


@dataclass(frozen=True, slots=True)
class CleanLine:
    text: str
    rank: int | None = None
    local_rank: int | None = None


_JSON_CLOSE = re2.compile(r'\s*"\s*[}\],]*\s*$')


def json_escaped(line: str) -> bool:
    """Whether a line is (or holds) a JSON string with escaped line breaks: two of them, or one beside an escaped
    quote or at the end of a quoted value (``"error": "...\\n"``)."""
    count = line.count("\\n")
    return count >= 2 or (count == 1 and ('\\"' in line or '\\n"' in line))


# Any framing element at all: most lines have none, and one match of the union tells so (the loop below tries each
# element in turn, up to eight times, which made the wrap repair of a 1 MiB log cost seconds).
_ANY_FRAMING = re.compile("^(?:" + "|".join(f"(?:{rx.pattern})" for _, rx in _FRAMING) + ")")  # anchored, as each is


@functools.lru_cache(maxsize=1024)  # the wrap repair cleans each line as a head, as a continuation and alone
def strip_framing(line: str) -> CleanLine:
    """Remove ANSI codes, CR and any framing prefixes; keep the ranks they named."""
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    line = line.rstrip()  # the line's end and any blanks before it: a pattern's `$` ends at the message
    rank: int | None = None
    local_rank: int | None = None
    emphasised = False
    for _ in range(8 if _ANY_FRAMING.match(line) else 0):
        for kind, rx in _FRAMING:
            m = rx.match(line)
            if m is None or m.end() == 0 or (kind == "emphasis" and not line.rstrip().endswith(m.group(0))):
                continue
            groups = m.groupdict()
            if kind == "rank":
                rank = int(groups["rank"])
            elif kind == "local_rank":
                local_rank = int(groups["local_rank"])
            elif kind == "slurm" and rank is None:
                rank = int(groups["slurm_rank"])
            elif kind == "emphasis":
                emphasised = True
            line = line[m.end() :]
            break
        else:
            break
    if json_escaped(line):  # a traceback pasted inside a JSON string: its escapes are not the message
        line = line.replace("\\n", " ").replace("\\t", " ").replace('\\"', '"').replace("\\\\", "\\")
        line = _JSON_CLOSE.sub("", line)  # the string's closing quote and the object's brace: not the message
    if emphasised:
        line = _strip_closing(_strip_closing(line, "**"), "__")
    if "`" in line[-4:] and line.count("`") % 2:  # an unbalanced closing backtick or fence, not `code` in a message
        line = _strip_closing(_strip_closing(_strip_closing(line, "```"), "``"), "`")
    return CleanLine(line, rank, local_rank)


# Sentry-style parameterisation, in priority order, for grouping and lexical match. RE2 (linear
# time): on Python's re the path pattern rescans the rest of a long word from each of its letters.
_WORD = r"\p{L}\p{N}_"  # what Python's \w matches; RE2's \w is ASCII only
_PARAMS = [
    (re2.compile(r"0x[0-9a-fA-F]+"), " <hex> "),
    (re2.compile(rf"(?:[A-Za-z]:)?(?:[{_WORD}.\-~]*/)+[{_WORD}.\-]+"), " <path> "),
    (re2.compile(r"\bv?\d+(?:\.\d+)+\b"), " <num> "),
    (re2.compile(r"\b\d+\b"), " <num> "),
]


# what each of _PARAMS needs in a text to match at all: RE2's substitution is Python code of the wrapper's, so a
# text without it skips the call (the same result; a lexical build tokenises every entry's examples)
_NEEDS = ("0x", "/", None, None)
_DIGIT = re.compile(r"\d")  # Python's \d: every digit RE2's ASCII \d matches, and more


def parameterise(text: str) -> str:
    digits = _DIGIT.search(text) is not None
    for (rx, repl), needs in zip(_PARAMS, _NEEDS, strict=True):
        if (needs in text) if needs is not None else digits:
            text = rx.sub(repl, text)
    return " ".join(text.split())


# Python's re, not RE2: its findall is about 50x faster from Python (RE2's wrapper builds a match object
# per token). Linear all the same: a token scanner in the sense of lint RC108 (a placeholder is a bounded
# repeat, only a branch's last repeat is unbounded). ASCII classes, as RE2's \w is.
_TOKEN_RE = re.compile(r"<[A-Za-z0-9_]{1,32}>|[A-Za-z_][A-Za-z0-9_]*")
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "by",
        "with",
        "as",
        "it",
        "this",
        "that",
        "from",
        "not",
        "no",
        "your",
        "you",
        "please",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "should",
    ]
)


# torch's sentence after a TORCH_CHECK that has no message of its own (c10/util/Exception.h): any such check prints
# it, so its words say nothing of the cause (dinov2#160's xformers check was claimed for a flash-attn entry whose
# example carried it)
_TORCH_CHECK_SUFFIX = re2.compile(
    r"\(?\s*Could this error message be improved\?\s*If so, please report an enhancement request to PyTorch\.?\s*\)?"
)


def tokens(text: str) -> list[str]:
    """Lower-case word tokens of a parameterised text, for the lexical stage (torch's generic suffix left out)."""
    if "message be improved" in text:
        text = _TORCH_CHECK_SUFFIX.sub(" ", text)
    out: list[str] = []
    for tok in _TOKEN_RE.findall(parameterise(text)):
        low = tok.lower()
        if low in STOPWORDS or len(low) < 2:
            continue
        out.append(low)
        if "_" in low and not low.startswith("<"):
            out.extend(p for p in low.split("_") if len(p) > 1)
    return out
