#!/usr/bin/env bash
# The CI gate on sim runs of the embedded sample (issue 13): the example thresholds pass on the
# default profile and on the shipped sweep's output (configs/ablation.yaml, arms labelled full/n3 …:
# issue 24) (exit 0); a degraded profile (sim/weak) against the default run as baseline exits with
# the gate's code (7) and writes a JUnit file with the failing case; an unchanged candidate on 50
# questions is inconclusive: exit 0 with a warning and a skipped JUnit case, exit 8 with
# --require-evidence (issue 34); a pinned --anchor fails a candidate its chained baseline passes;
# then the simulation of the baseline gate's false-alarm (CI red) and detection rates.
#
#   bash scripts/ci-gate.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
go build -o "$work/medteam" ./cmd/medteam
m="$work/medteam"

"$m" run --config base,full --out "$work" --run-name default --no-report >/dev/null 2>&1
"$m" run --config base,full --model sim/weak --out "$work" --run-name weak --no-report >/dev/null 2>&1
"$m" run --config base,full --seed 2 --out "$work" --run-name again --no-report >/dev/null 2>&1
"$m" run --config base,full --model sim/weak --seed 2 --out "$work" --run-name weak2 --no-report >/dev/null 2>&1

echo "-- passing: configs/thresholds.yaml on sim/default"
"$m" check --thresholds configs/thresholds.yaml --junit "$work/pass.xml" "$work/default"

echo "-- passing: configs/thresholds.yaml on configs/ablation.yaml's output"
"$m" sweep configs/ablation.yaml --out "$work" --run-name ablation --no-report >/dev/null 2>&1
"$m" check --thresholds configs/thresholds.yaml "$work/ablation"

echo "-- failing: sim/weak against the sim/default baseline (50 questions: --margin 0.15)"
set +e
"$m" check --baseline "$work/default" --margin 0.15 --junit "$work/fail.xml" "$work/weak"
code=$?
set -e
if [ "$code" -ne 7 ]; then
	echo "ci-gate: the degraded profile exited $code, want 7 (gate failed)" >&2
	exit 1
fi
if ! grep -q '<failure' "$work/fail.xml"; then
	echo "ci-gate: $work/fail.xml has no failing test case" >&2
	exit 1
fi

echo "-- inconclusive: an unchanged candidate (seed 2) on 50 questions at the default margin"
"$m" check --baseline "$work/default" --junit "$work/warn.xml" --markdown "$work/warn.md" "$work/again" | tee "$work/warn.txt"
if ! grep -q 'gate passed with a WARNING' "$work/warn.txt" || ! grep -q '<skipped message="inconclusive, not gated' "$work/warn.xml" ||
	! grep -q 'questions needed for 80% power' "$work/warn.xml" || ! grep -q '\[!WARNING\]' "$work/warn.md"; then
	echo "ci-gate: the inconclusive gate did not warn in the table, the JUnit file and the Markdown" >&2
	exit 1
fi
set +e
"$m" check --baseline "$work/default" --require-evidence "$work/again" >/dev/null
strict=$?
"$m" check --baseline "$work/weak2" --anchor "$work/default" --margin 0.15 "$work/weak" >/dev/null
anchored=$?
set -e
if [ "$strict" -ne 8 ] || [ "$anchored" -ne 7 ]; then
	echo "ci-gate: --require-evidence exited $strict (want 8), --anchor exited $anchored (want 7)" >&2
	exit 1
fi
if command -v xmllint >/dev/null; then
	xmllint --noout --schema check/testdata/junit.xsd "$work/pass.xml" "$work/fail.xml" "$work/warn.xml"
fi
echo "-- false-alarm and detection rates of --baseline (simulation; skipped by make test's -race)"
go test -count=1 -run TestBaselineFalseAlarmAndDetection -v ./check/ | grep -E 'rate|^(ok|FAIL|---)'

echo "ci-gate: ok (passing case exit 0; degraded profile exit $code with a failing JUnit case; inconclusive exit 0 with a warning, 8 with --require-evidence; --anchor exit 7)"
