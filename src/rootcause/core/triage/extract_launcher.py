"""torchrun's own lines (§4.4): the agent's "failed (exitcode: …)", the closing and death signals, and the fields
of its ChildFailedError report."""

from __future__ import annotations

import re

from rootcause.core.triage.facts import (
    AgentExit,
    AgentSignal,
    BlockField,
    BlockHeading,
    Fact,
)

# §4.4 torchrun: agent lines (elastic/multiprocessing/api.py) and the ChildFailedError block (errors/__init__.py).
_AGENT_FAILED = re.compile(r"failed \(exitcode: (?P<code>-?\d+)\) local_rank: (?P<lr>\d+) \(pid: (?P<pid>\d+)\)")

_AGENT_SIGTERM = re.compile(r"Sending process (?P<pid>\d+) closing signal (?P<sig>SIG\w+)")

_AGENT_DEATH = re.compile(r"Received (?:Signals\.)?(?P<sig>SIG\w+|\d+) death signal")

_BLOCK_FIELD = re.compile(r"^(?P<name>time|host|rank|exitcode|error_file|traceback) *: ?(?P<value>.*)$")


def _launcher(text: str, facts: list[Fact]) -> None:
    if "exitcode" in text and "local_rank:" in text and "failed (" in text:
        m = _AGENT_FAILED.search(text)
        if m is not None:
            facts.append(AgentExit(int(m["code"]), int(m["lr"]), int(m["pid"])))
            return
    if "closing signal" in text:
        m = _AGENT_SIGTERM.search(text)
        if m is not None:
            facts.append(AgentSignal(int(m["pid"]), m["sig"], death=False))
            return
    if "death signal" in text:
        m = _AGENT_DEATH.search(text)
        if m is not None:
            sig = m["sig"]
            facts.append(AgentSignal(None, sig if not sig.isdigit() else f"signal {sig}", death=True))
            return
    if text.startswith("Root Cause (first observed failure)"):
        facts.append(BlockHeading(root=True))
    elif text.startswith("Failures:"):
        facts.append(BlockHeading(root=False))
    stripped = text.strip()
    if " : " in stripped[:12] or stripped.startswith("error_file:"):
        m = _BLOCK_FIELD.match(stripped)
        if m is not None:
            facts.append(BlockField(m["name"], m["value"].strip()))
