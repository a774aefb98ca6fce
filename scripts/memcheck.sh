#!/usr/bin/env bash
# memcheck.sh — peak memory of a large simulated run.
#
# From the repo root:  bash scripts/memcheck.sh
#
# Builds bin/medteam, generates a synthetic 20,000-question MedQA JSONL
# (scripts/gendata) in a temp dir, runs
#
#   bin/medteam run --dataset $TMP/q20k.jsonl --config base --agents 3 \
#       --model sim/default --parallel 8 --out $TMP/runs
#
# under scripts/peakrss, and prints the child's peak RSS (ru_maxrss) and wall
# time. Exits non-zero when the run fails or its peak RSS exceeds the limit.
#
# Environment: MEDTEAM_MEMCHECK_MAX_MB (default 300), MEDTEAM_MEMCHECK_N
# (questions, default 20000), MEDTEAM_MEMCHECK_KEEP=1 keeps the temp dir.
set -euo pipefail

MAX_MB=${MEDTEAM_MEMCHECK_MAX_MB:-300}
N=${MEDTEAM_MEMCHECK_N:-20000}

if [[ ! -f go.mod || ! -d cmd/medteam ]]; then
	echo "memcheck: run from the repo root (bash scripts/memcheck.sh)" >&2
	exit 2
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/medteam-memcheck.XXXXXX")
cleanup() {
	if [[ ${MEDTEAM_MEMCHECK_KEEP:-} == 1 ]]; then
		echo "memcheck: kept $TMP" >&2
	else
		rm -rf "$TMP"
	fi
}
trap cleanup EXIT

echo "memcheck: building bin/medteam, peakrss, gendata" >&2
go build -o bin/medteam ./cmd/medteam
go build -o "$TMP/peakrss" ./scripts/peakrss
go build -o "$TMP/gendata" ./scripts/gendata

DATA=$TMP/q20k.jsonl
"$TMP/gendata" -n "$N" -seed 1 -out "$DATA"
echo "memcheck: $N questions, $(wc -c <"$DATA") bytes in $DATA" >&2

# peakrss writes its report to stderr after the run; stderr goes through tee
# (stdout stays on fd 3) to quote it below. With pipefail the pipeline's status
# is peakrss's.
rc=0
{
	"$TMP/peakrss" -max-mb "$MAX_MB" -- bin/medteam run --dataset "$DATA" --config base --agents 3 \
		--model sim/default --parallel 8 --out "$TMP/runs" 2>&1 1>&3 |
		tee "$TMP/stderr.log" >&2
} 3>&1 || rc=$?

peak=$(grep -E '^peak RSS: [0-9]+ MB$' "$TMP/stderr.log" | tail -n 1 || true)
times=$(grep -E '^wall [0-9.]+ s, user ' "$TMP/stderr.log" | tail -n 1 || true)
echo
echo "memcheck: ${peak:-peak RSS: unknown} (limit $MAX_MB MB); ${times:-wall: unknown}"
if ((rc != 0)); then
	echo "memcheck: FAIL (exit $rc)" >&2
	exit "$rc"
fi
echo "memcheck: OK"
