#!/usr/bin/env bash
# Runs every benchmark; figures go to bench/out/ (gitignored) and are copied into bench/README.md by hand.
#   bash bench/run.sh            # full: 1 GiB log, canons up to 100k entries
#   SIZE_MB=64 bash bench/run.sh # quicker
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
OUT=bench/out; mkdir -p "$OUT"
command -v rg >/dev/null || echo "ripgrep missing: apt-get install ripgrep (its column will be absent)"
SIZE_MB=${SIZE_MB:-1024}
$PY bench/gen_log.py "$OUT/big.log" --size-mb "$SIZE_MB"
$PY bench/gen_log.py "$OUT/big-ranks.log" --size-mb "$SIZE_MB" --error-ranks 64
echo "## CLI against grep, rg, raw hyperscan, cat (CPU, interleaved)"; $PY bench/cli_ratios.py "$OUT/big.log" --json "$OUT/cli.json"
echo "## throughput and memory, multi-rank"; $PY bench/throughput.py "$OUT/big.log" --multi-rank-log "$OUT/big-ranks.log" --json "$OUT/throughput.json"
DEADENDS=${DEADENDS:-$OUT/deadends}
[ -d "$DEADENDS" ] || $PY -m pip install -q --no-deps --target "$DEADENDS" deadends-dev==0.9.0 || true
if [ -d "$DEADENDS/generator" ]; then
  echo "## API against deadends-dev (interleaved pairs, then turns of 50)"
  $PY bench/api_vs_peer.py --peer "$DEADENDS" --json "$OUT/api.json"
  $PY bench/api_vs_peer.py --peer "$DEADENDS" --block 50 --json "$OUT/api-turns.json"
fi
echo "## latency"; $PY bench/latency.py --sizes ${SIZES:-1000 10000 100000} --json "$OUT/latency.json"
echo "## cold start"; $PY bench/coldstart.py --json "$OUT/coldstart.json"
if [ -f bench/triage_bench.py ]; then echo "## triage"; $PY bench/triage_bench.py --json "$OUT/triage.json"; fi
if [ -f bench/service_bench.py ]; then echo "## service"; $PY bench/service_bench.py; fi
echo "## fleet engines"; $PY bench/fleet_bench.py --jobs 460 --noise-lines 3000 --engines local,dask,dask-spawn,spark,ray,local --workers 1,2
if [ -f bench/hostile_upload.py ]; then echo "## hostile uploads"; $PY bench/hostile_upload.py --json "$OUT/hostile.json"; fi
if [ -f bench/fuzz_long.py ]; then echo "## fuzz, long run"; $PY bench/fuzz_long.py --json "$OUT/fuzz.json"; fi
echo "## coverage on the corpus of real pastes"; $PY bench/coverage.py corpus --json > "$OUT/coverage.json"; $PY bench/coverage.py corpus --lexical-curve
