#!/usr/bin/env bash
# Installs everything the tests need on a fresh machine, then runs lint and the tests.
# Used by the README's test command and by CI (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi; }

# Debian's Chromium (page tests) and CJK fonts (Chinese pages, screenshots).
if ! command -v chromium >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null
fi

# Java for Spark (the fleet engine tests run Spark in local mode).
if ! command -v java >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
fi

# PostgreSQL at 127.0.0.1:5432 (trust auth, database "test"): start it if it is down.
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -p 5432 -q; then
  if [ -d /etc/postgresql ]; then
    as_root pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
fi

# The project and its test dependencies (torch==2.13.0 is the CPU build on this disk).
if [ ! -x .venv/bin/python ]; then python3 -m venv .venv; fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test,reproduce]'

.venv/bin/ruff check src tests bench scripts corpus
.venv/bin/ruff format --check  # formatted as ruff formats (pyproject.toml excludes the capture scripts)
.venv/bin/mypy src/rootcause  # the types the code declares hold ([tool.mypy] in pyproject.toml)
.venv/bin/rootcause lint
# Every CPU reproducer, in parallel: the failing program must still be diagnosed as its entry
# and each fix must still fix it (a changed wording fails here with the diff). docs/reproducers.md
.venv/bin/rootcause verify --cpu-only --strict
# The README's first command as written (plain `pip install .`, no extras, its own venv), then that
# install serves a page of every kind: what the editable install with every extra cannot show.
bash scripts/smoke_plain_install.sh
exec .venv/bin/python -m pytest "$@"
