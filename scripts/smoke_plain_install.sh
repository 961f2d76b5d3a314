#!/usr/bin/env bash
# The README's first command, exactly as written (a plain, non-editable `pip install .` without
# extras, into its own .venv), run in a copy of this tree; then that install serves one page of
# each kind. Catches what an editable install with every extra hides: a page that imports an
# optional extra (pyarrow served 500 on every entry page once), a file missing from the wheel.
# Called by scripts/test.sh; pip reuses its wheel cache, so a warm run takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="$(mktemp -d "${TMPDIR:-/tmp}/rootcause-smoke-XXXXXX")"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

# A clean copy of the tree (tracked and new files, nothing ignored: no .venv, no build/).
# One tar reads the whole list from stdin (xargs would split a long list into several archives, and the
# reading tar stops at the first one's end).
mkdir -p "$work/tree"
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work/tree"
cd "$work/tree"

# The command from the README's Quick start, as written there.
command="$(awk '/^## Quick start/{q=1} q && /^```sh$/{f=1; next} f && /^```$/{exit} f' "$root/README.md")"
case "$command" in
  *"pip install -q ."*) ;;
  *) echo "smoke: the README's first command is not a plain install: $command" >&2; exit 1 ;;
esac
echo "smoke: $command" >&2
bash -c "$command" >"$work/diagnose.out"
grep -q "gloo" "$work/diagnose.out" || { echo "smoke: the example log was not diagnosed" >&2; cat "$work/diagnose.out" >&2; exit 1; }

# No extra came with it.
if .venv/bin/python -c "import pyarrow" 2>/dev/null; then echo "smoke: pyarrow is installed: not a plain install" >&2; exit 1; fi

port="$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ROOTCAUSE_DATA_DIR="$work/data" ROOTCAUSE_CACHE_DIR="$work/cache" \
  .venv/bin/rootcause serve --port "$port" --log-level warning >"$work/serve.log" 2>&1 &
server_pid=$!

.venv/bin/python - "http://127.0.0.1:$port" "$work/serve.log" <<'PY'
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

base, log = sys.argv[1], sys.argv[2]
SEED = "pytorch/nccl-timeout-allreduce"
ERROR = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. "
    "Original reason for failure was: AllReduce timed out after 600000 ms"
)


def fetch(path: str, data: bytes | None = None, content_type: str | None = None) -> tuple[int, str]:
    request = urllib.request.Request(base + path, data=data)
    if content_type:
        request.add_header("content-type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8", "replace")


deadline = time.monotonic() + 90
while True:
    try:
        if fetch("/-/health")[0] == 200:
            break
    except OSError:
        pass
    if time.monotonic() > deadline:
        sys.exit(f"smoke: the server did not start:\n{open(log).read()}")
    time.sleep(0.3)

pages = {
    "health": ("/-/health", '"status":"ok"'),
    "home": ("/", "<h1"),
    "entry html": (f"/errors/{SEED}/", "NCCL"),
    "entry html zh": (f"/errors/{SEED}/zh.html", "lang=\"zh"),
    "entry json": (f"/errors/{SEED}/index.json", f'"id":"{SEED}"'),
    "entry md": (f"/errors/{SEED}/index.md", "# "),
    "entry md zh": (f"/errors/{SEED}/zh.md", "# "),
    "search": ("/search/?q=nccl+timeout", SEED),
    "search api": ("/api/v1/search?" + urllib.parse.urlencode({"q": ERROR}), SEED),
    "browse": ("/errors/", "pytorch"),
    "browse domain": ("/errors/pytorch/", "errors/pytorch/"),  # a link to one of its entries
    "unknown": ("/-/unknown", "<h1>"),
    "llms.txt": ("/llms.txt", SEED),
}
failed = []
for kind, (path, needle) in pages.items():
    status, body = fetch(path)
    if status != 200 or needle not in body.replace(": ", ":"):
        failed.append(f"{kind} {path}: {status} {body[:200]!r}")
form = urllib.parse.urlencode({"text": ERROR}).encode()
for kind, (path, data, ctype, needle) in {
    "diagnose page": ("/diagnose", form, "application/x-www-form-urlencoded", SEED),
    "diagnose api": ("/api/v1/diagnose", ERROR.encode(), "text/plain", SEED),
}.items():
    status, body = fetch(path, data, ctype)
    if status != 200 or needle not in body:
        failed.append(f"{kind} {path}: {status} {body[:200]!r}")
if failed:
    sys.exit("smoke: a plain install failed to serve:\n  " + "\n  ".join(failed) + f"\n{open(log).read()[-3000:]}")
print(f"smoke: a plain install served {len(pages) + 2} pages of every kind", file=sys.stderr)
PY
