#!/bin/bash
# usage: baseline.sh BIN OUTDIR
set -e
BIN=$1; OUT=$2; rm -rf $OUT; mkdir -p $OUT
cd /work/main
$BIN sweep configs/ablation.yaml --parallel 1 --out $OUT/r >/dev/null 2>&1
ALL=base,c1,c2,c3,c4,c5,c6,c7,full
$BIN run --dataset ../shared/datasets/medqa/phrases_no_exclude_test.jsonl --limit 150 --config $ALL --model sim/misled --text --seed 7 --parallel 1 --out $OUT/r >/dev/null 2>&1
$BIN run --dataset ../shared/datasets/medqa/phrases_no_exclude_test.jsonl --limit 100 --config $ALL --model sim/noisy --discussion parallel --turns 3 --agents 4 --seed 3 --shuffle-options --parallel 1 --out $OUT/r >/dev/null 2>&1
for d in $(ls $OUT/r | sort); do echo "## $d"; go run ./scripts/rowdump $OUT/r/$d; done > $OUT/dump.txt
wc -l $OUT/dump.txt; sha256sum $OUT/dump.txt
