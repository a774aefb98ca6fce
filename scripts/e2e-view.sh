#!/usr/bin/env bash
# e2e-view.sh — `medteam view` end to end in headless Chromium.
#
#   bash scripts/e2e-view.sh
#
# Makes two simulated runs with --transcripts: a small one (3 arms, 20
# questions) and a 10,000-row one (5,000 synthetic questions × base,full);
# then scripts/e2e-view (Go, DevTools over --remote-debugging-pipe) starts
# `medteam view`, loads the page, filters (status, arms disagree, phase),
# opens a question, compares two arms, does the same on the static copy
# (`view --export`), and fails on a console error or any request that leaves
# loopback. On the 10,000-row run it prints the time from starting
# `medteam view` to the first rows (Chromium already running; limit 2 s) and
# the server's peak RSS (limit 200 MB). The figures are SIMULATED runs.
#
# Chromium: /usr/bin/chromium, installed with apt-get (sudo when not root)
# if missing. Environment: MEDTEAM_VIEW_N (questions of the large run,
# default 5000; two arms make 10,000 rows); MEDTEAM_VIEW_SHOTS=DIR saves
# screenshots of a question page and of the folder list there.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${MEDTEAM_VIEW_N:-5000}

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "e2e-view: installing chromium (apt-get)" >&2
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2; then
    $sudo apt-get update >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
  fi
fi

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/medteam" ./cmd/medteam
go build -o "$T/gendata" ./scripts/gendata
go build -o "$T/e2e-view" ./scripts/e2e-view

echo "e2e-view: small run (base,full,vote × 20 questions, --transcripts)" >&2
"$T/medteam" run --config base,full,vote --limit 20 --transcripts --out "$T/runs" --run-name small --no-report \
  > "$T/small.log" 2>&1 || { cat "$T/small.log"; exit 1; }
echo "e2e-view: large run ($N synthetic questions × base,full, --transcripts)" >&2
"$T/gendata" -n "$N" -seed 1 -out "$T/q.jsonl"
"$T/medteam" run --dataset "$T/q.jsonl" --config base,full --transcripts --out "$T/runs" --run-name big --no-report \
  > "$T/big.log" 2>&1 || { tail -20 "$T/big.log"; exit 1; }
tail -n 1 "$T/big.log" >&2

# The target is 2 s to the first rows (measured ~0.6–1.6 s on a 2-core
# machine shared with other builds); MEDTEAM_VIEW_MAX_FIRST widens the bound a
# run fails on, for a runner busier than that (the time is printed either way).
"$T/e2e-view" -chromium "$chromium" -medteam "$T/medteam" -run "$T/runs/small" -big "$T/runs/big" \
  -max-first "${MEDTEAM_VIEW_MAX_FIRST:-2s}" ${MEDTEAM_VIEW_SHOTS:+-shots "$MEDTEAM_VIEW_SHOTS"} 2>"$T/e2e.err" ||
  { echo "e2e-view: stderr (tail):" >&2; tail -c 4000 "$T/e2e.err" >&2; exit 1; }
