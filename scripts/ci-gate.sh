#!/usr/bin/env bash
# The CI gate on sim runs of the embedded sample (issue 13): the example thresholds pass on the
# default profile and on the shipped sweep's output (configs/ablation.yaml, arms labelled full/n3 …:
# issue 24) (exit 0); a degraded profile (sim/weak) against the default run as baseline exits with
# the gate's code (7) and writes a JUnit file with the failing case; then the simulation of the
# baseline gate's false-alarm and detection rates.
#
#   bash scripts/ci-gate.sh [WORKDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
work="${1:-$(mktemp -d)}"
go build -o "$work/medteam" ./cmd/medteam
m="$work/medteam"

"$m" run --config base,full --out "$work" --run-name default --no-report >/dev/null 2>&1
"$m" run --config base,full --model sim/weak --out "$work" --run-name weak --no-report >/dev/null 2>&1

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
if command -v xmllint >/dev/null; then
	xmllint --noout --schema check/testdata/junit.xsd "$work/pass.xml" "$work/fail.xml"
fi
echo "-- false-alarm and detection rates of --baseline (simulation; skipped by make test's -race)"
go test -count=1 -run TestBaselineFalseAlarmAndDetection -v ./check/ | grep -E 'rate|^(ok|FAIL|---)'

echo "ci-gate: ok (passing case exit 0; degraded profile exit $code with a failing JUnit case)"
