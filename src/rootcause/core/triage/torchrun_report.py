"""torchrun's ChildFailedError report (§4.4): one record per failed worker, and its exit codes and signals."""

from __future__ import annotations

from dataclasses import dataclass

from rootcause.core.triage.clock import line_time
from rootcause.core.triage.events import Ev

SIGNALS = {
    1: "SIGHUP",
    2: "SIGINT",
    3: "SIGQUIT",
    4: "SIGILL",
    6: "SIGABRT",
    7: "SIGBUS",
    8: "SIGFPE",
    9: "SIGKILL",
    11: "SIGSEGV",
    13: "SIGPIPE",
    15: "SIGTERM",
}


@dataclass
class FailureRecord:
    """One entry of torchrun's ChildFailedError block (§4.4)."""

    rank: int
    local_rank: int | None
    host: str | None
    exit_code: int | None
    pid: int | None
    signal: str | None
    time: tuple[float, str] | None
    root: bool
    ev: Ev
    attempt: int = 0


def failure_record(block: dict[str, tuple[str, Ev]], root: bool, attempt: int) -> FailureRecord | None:
    """One entry of the report, from its fields (`time`, `host`, `rank`, `exitcode`, `error_file`, `traceback`)."""
    if "rank" not in block:
        return None
    rank_text = block["rank"][0]
    head = rank_text.split(" ", 1)[0]
    if not head.isdigit():
        return None
    local = None
    if "local_rank:" in rank_text:
        tail = rank_text.split("local_rank:", 1)[1].strip().rstrip(")")
        local = int(tail) if tail.isdigit() else None
    ev = block.get("exitcode", block["rank"])[1]
    when = line_time(block["time"][0].replace("_", " ")) if "time" in block else None
    t = when[0] if when else ev.t
    ev = Ev(
        ev.src,
        ev.line,
        ev.text,
        t,
        when[0] if when else ev.lo,
        when[1] if when else ev.shown,
        "exit",
        ("g", int(head)),
    )
    code, pid, sig = parse_exit(
        block["exitcode"][0] if "exitcode" in block else "", block["traceback"][0] if "traceback" in block else ""
    )
    host = block["host"][0] if "host" in block else None
    return FailureRecord(int(head), local, host, code, pid, sig, when, root, ev, attempt)


def exit_summary(code: int | None, sig: str | None) -> str:
    if code is None:
        return "exited"
    return f"exited with code {code}" + (f" ({sig})" if sig else "")


def parse_exit(value: str, traceback: str) -> tuple[int | None, int | None, str | None]:
    """'-15 (pid: 24539)  (SIGTERM)' / '1 (pid: 24538)' / '-6 (pid: 1)'; or 'Signal 6 (SIGABRT) received …'."""
    head = value.split(" ", 1)[0] if value else ""
    code = int(head) if head.lstrip("-").isdigit() else None
    pid = None
    if "pid:" in value:
        tail = value.split("pid:", 1)[1].strip().split(")", 1)[0]
        pid = int(tail) if tail.isdigit() else None
    sig = None
    if "(SIG" in value:
        sig = value.split("(SIG", 1)[1].split(")", 1)[0]
        sig = f"SIG{sig}"
    elif traceback.startswith("Signal ") and "(SIG" in traceback:
        sig = "SIG" + traceback.split("(SIG", 1)[1].split(")", 1)[0]
    elif code is not None and code < 0:
        sig = SIGNALS.get(-code)
    return code, pid, sig
