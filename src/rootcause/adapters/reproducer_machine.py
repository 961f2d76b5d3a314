"""What the machine that runs reproducers has: its GPU, the installed versions a spec requires, the
tools on PATH, a free port."""

from __future__ import annotations

import importlib.metadata as md
import os
import platform
import shutil
import socket
import subprocess
import sys

from packaging.requirements import Requirement

from rootcause.core.reproducers import Spec


def gpu_name() -> str | None:
    """The first GPU's name, or None when there is none (nvidia-smi absent or failing)."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [n.strip() for n in out.stdout.splitlines() if n.strip()]
    return names[0] if out.returncode == 0 and names else None


def machine(gpu: str | None) -> str:
    what = f"GPU {gpu}" if gpu else "CPU only"
    return f"{what}, {platform.system()} {platform.machine()}, {os.cpu_count()} cores"


def installed(requirement: str) -> str | None:
    req = Requirement(requirement)
    try:
        version = md.version(req.name)
    except md.PackageNotFoundError:
        return None
    return version if req.specifier.contains(version, prereleases=True) else None


def missing_environment(spec: Spec) -> list[str]:
    out = []
    for r in spec.requires:
        if installed(r) is None:
            name = Requirement(r).name
            try:
                have = md.version(name)
                out.append(f"{r} (installed {have})")
            except md.PackageNotFoundError:
                out.append(f"{r} (not installed)")
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")  # as the runs see it
    out += [f"{t} (not on PATH)" for t in spec.tools if shutil.which(t, path=path) is None]
    return out


def versions_of(spec: Spec) -> dict[str, str]:
    out = {}
    for r in spec.requires:
        name = Requirement(r).name
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            continue
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
