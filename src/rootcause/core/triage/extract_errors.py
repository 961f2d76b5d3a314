"""Errors and stacks: Python exceptions (classified by whose failure they are), std::terminate, NCCL async errors,
the tear-down lines, and traceback / py-spy frames."""

from __future__ import annotations

import re

from rootcause.core.triage.facts import (
    Fact,
    Frame,
    Raised,
    TraceStart,
)

_GLOO_PEER = re.compile(
    r"(?:Connection closed by peer|Read error|Socket closed|Write timeout|Read timeout) \[(?P<ip>[^\]]+)\]"
)

# Python exception lines "pkg.module.SomeError: message"; C++ "terminate called after throwing an instance of 'T'"
# and "  what():  message".
_EXCEPTION = re.compile(r"^(?P<type>[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit))(?:: ?(?P<msg>.*))?$")

_TERMINATE = re.compile(r"terminate called after throwing an instance of '(?P<type>[^']+)'")

_WHAT = re.compile(r"^\s*what\(\): +(?P<msg>.*)$")

_ASYNC = re.compile(r"raised the following async exception: (?P<msg>.*)$")

_TIMEOUT_WORDS = (
    "collective operation timeout",
    "Timed out waiting",
    "timed out in blocking wait",
    "timed out in call to wait",
    "failed to pass monitoredBarrier",
    "wait timeout after",
    "Socket Timeout",
    "detected a collective timeout",
    "Timeout at NCCL work",
)

_PEER_WORDS = (
    # ProcessGroupWrapper (TORCH_DISTRIBUTED_DEBUG=DETAIL): the monitored barrier it runs before each collective
    # failed because another rank had gone (ProcessGroupWrapper.cpp runCollectiveChecks)
    "Monitored Barrier encountered error",
    "closed by peer",
    "closed by remote peer",
    "Connection reset by peer",
    "Read error",
    "Socket closed",
    "Broken pipe",
    "caused pair closure",
    "remote process exited",
    "ncclRemoteError",
    "unhandled system error",
    "ncclSystemError",
    "received errors while waiting for send/recv",
    "DistNetworkError",
)

_DESYNC_WORDS = ("Detected mismatch between collectives", "doesn't match expected size", "collective mismatch")

_ABORT_WORDS = (
    "communicator was aborted",
    "watchdog thread terminated",
    "Some NCCL operations have failed",
    "Terminating the process after attempting to dump",
    "watchdog got stuck",
    "Heartbeat monitor timed out",
    "dump signal",
    "Process Group destroyed",
    "Process Group shutdown",
)

_TEARDOWN_WORDS = (
    "Terminating the process after attempting to dump",
    "watchdog got stuck",
    "Some NCCL operations have failed",
    "watchdog thread terminated with exception",
)


def classify(type_: str, message: str) -> str:
    """Whose failure is this? own, or a consequence of another rank's (timeout, peer, desync, abort)."""
    text = f"{type_}: {message}"
    if "ChildFailedError" in type_:
        return "wrapper"
    if type_.endswith("KeyboardInterrupt") or "SignalException" in type_:
        return "signal"
    if any(w in text for w in _DESYNC_WORDS):
        return "desync"
    if any(w in text for w in _TIMEOUT_WORDS):
        return "timeout"
    if any(w in text for w in _PEER_WORDS):
        return "peer"
    if any(w in text for w in _ABORT_WORDS):
        return "abort"
    return "own"


# CPython's traceback.py: '  File "{filename}", line {lineno}, in {name}'; in error.json (torch.distributed.
# elastic's @record) the same text sits in a JSON string, quotes escaped as \\".
_FRAME = re.compile(r'File \\?"(?P<file>[^"\\]{1,400})\\?", line (?P<line>\d{1,9}), in (?P<func>[\w<>.]{1,200})')

# py-spy dump (src/dump.rs): '    {name} ({short_filename}:{line})', innermost frame first.
_PYSPY_FRAME = re.compile(r"^\s+(?P<func>[\w<>.]{1,200}) \((?P<file>[^()\s]{1,400}\.py):(?P<line>\d{1,9})\)\s*$")


def _frames(text: str, facts: list[Fact]) -> bool:
    """Traceback starts and frames on this line, in order; True when the line is (only) a stack line."""
    found = False
    if "Traceback (most recent call last)" in text:
        for i, part in enumerate(text.split("Traceback (most recent call last)")):
            if i:
                facts.append(TraceStart())
            for m in _FRAME.finditer(part):
                facts.append(Frame(m["file"], int(m["line"]), m["func"]))
        return '"message"' not in text  # error.json: its message is read as well
    if 'File "' in text or 'File \\"' in text:
        for m in _FRAME.finditer(text):
            facts.append(Frame(m["file"], int(m["line"]), m["func"]))
            found = True
        return found and '"message"' not in text
    if "distributed_c10d.py:" in text:
        spy = _PYSPY_FRAME.match(text)
        if spy is not None:
            facts.append(Frame(spy["file"], int(spy["line"]), spy["func"], True))
            return True
    return False


def _exception(text: str, facts: list[Fact]) -> None:
    if "terminate called" in text:
        m = _TERMINATE.search(text)
        if m is not None:
            facts.append(Raised(m["type"], "", "pending"))
        return
    if "what():" in text:
        m = _WHAT.match(text)
        if m is not None:
            msg = m["msg"].strip()
            facts.append(Raised("C++ exception", msg, classify("", msg), _peer_of(msg)))
        return
    if "async exception" in text:
        m = _ASYNC.search(text)
        if m is not None:
            msg = m["msg"].strip()
            facts.append(Raised("NCCL async error", msg, classify("NCCL", msg), _peer_of(msg)))
        return
    if "Error" in text or "Exception" in text or "Interrupt" in text or "Exit" in text:
        m = _EXCEPTION.match(text.strip())
        if m is not None:
            type_, msg = m["type"], (m["msg"] or "").strip()
            facts.append(Raised(type_, msg, classify(type_, msg), _peer_of(msg)))
            return
    # c10 ERROR/FATAL lines of the tear-down (§2.4, §2.5, §2.10, §2.11): consequences, never causes.
    if any(w in text for w in _TEARDOWN_WORDS):
        facts.append(Raised("ProcessGroupNCCL", text[text.rfind("] ") + 2 :][:300], "abort"))


def _peer_of(message: str) -> str | None:
    if "[" not in message:
        return None
    m = _GLOO_PEER.search(message)
    return m["ip"] if m else None
