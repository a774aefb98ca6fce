#!/usr/bin/env bash
# example-report.sh OUTDIR — a medteam run on the simulator with its report
# page, checked in headless Chromium (scripts/e2e-report.sh) and
# screenshotted: OUTDIR/report.html, OUTDIR/report.md, OUTDIR/report.png.
# The page is also printed to PDF (A4) in Chromium and the PDF's text
# (pdftotext, from poppler-utils, installed with apt-get when missing) must
# hold every column header of every table (scripts/pdfheaders): no table
# loses its right-hand columns in print. e2e-report also fails when two
# texts of a figure overlap (their rendered boxes intersect).
# CI runs it into a temporary directory; `bash scripts/example-report.sh
# docs/example` regenerates the example the README and docs/commands.md
# link to. The figures are
# SIMULATED: they show what the report looks like, not a model's accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?usage: example-report.sh OUTDIR}
mkdir -p "$OUT"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/medteam" ./cmd/medteam
"$T/medteam" run --config base,c5,c7,full,zeroshot,sc:5,vote,judge,council:risk-averse --agents 3 \
	--out "$T/runs" --run-name example --html > "$T/run.log" 2>&1 || { cat "$T/run.log"; exit 1; }
cp "$T/runs/example/report.html" "$T/runs/example/report.md" "$OUT/"
E2E_REPORT_PDF="$T/report.pdf" bash scripts/e2e-report.sh "$OUT/report.html" "$OUT/report.png" forest,frontier,reliability,risk-coverage,agreement,subjects,position 7
if ! command -v pdftotext >/dev/null; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
	echo "example-report: installing poppler-utils (apt-get) for pdftotext" >&2
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y poppler-utils >&2 ||
		{ $sudo apt-get update >&2 && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y poppler-utils >&2; }
fi
pdftotext "$T/report.pdf" "$T/report.txt"
go run ./scripts/pdfheaders -html "$OUT/report.html" -text "$T/report.txt"
