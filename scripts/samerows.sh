#!/bin/bash
# samerows.sh BIN OUTDIR — runs a fixed-seed nine-preset sweep and two
# nine-arm runs on the simulator with one unit in flight (so attempts and
# cached flags are deterministic too), and dumps every row of every run
# without its timing columns to OUTDIR/dump.txt. Two binaries behave the same
# when their dumps are identical: the check that a refactor changed nothing.
#
#   go build -o /tmp/before ./cmd/medteam && scripts/samerows.sh /tmp/before /tmp/before.d
#   (change the code)
#   go build -o /tmp/after ./cmd/medteam && scripts/samerows.sh /tmp/after /tmp/after.d
#   cmp /tmp/before.d/dump.txt /tmp/after.d/dump.txt
set -euo pipefail
BIN=$(realpath "$1"); OUT=$(realpath -m "$2")
cd "$(dirname "$0")/.."
DATA=../shared/datasets/medqa/phrases_no_exclude_test.jsonl
rm -rf "$OUT"; mkdir -p "$OUT"
ALL=base,c1,c2,c3,c4,c5,c6,c7,full
"$BIN" sweep configs/ablation.yaml --parallel 1 --out "$OUT/r" >/dev/null 2>&1
"$BIN" run --dataset $DATA --limit 150 --config $ALL --model sim/misled --text --seed 7 --parallel 1 --out "$OUT/r" >/dev/null 2>&1
"$BIN" run --dataset $DATA --limit 100 --config $ALL --model sim/noisy --discussion parallel --turns 3 --agents 4 --seed 3 --shuffle-options --parallel 1 --out "$OUT/r" >/dev/null 2>&1
go build -o "$OUT/rowdump" ./scripts/rowdump
for d in $(ls "$OUT/r" | sort); do echo "## $d"; "$OUT/rowdump" "$OUT/r/$d"; done > "$OUT/dump.txt"
wc -l "$OUT/dump.txt"; sha256sum "$OUT/dump.txt"
