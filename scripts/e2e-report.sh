#!/usr/bin/env bash
# e2e-report.sh — open a medteam report.html in headless Chromium, as a
# reader would, and fail unless it is a working offline page.
#
#   bash scripts/e2e-report.sh REPORT.html OUT.png [KINDS] [FIGURES]
#
#   KINDS    comma-separated plot kinds that must each have a non-empty
#            <figure data-plot=KIND> (default: all seven; "" for none)
#   FIGURES  exact number of figures expected (default: any)
#   E2E_REPORT_PDF=FILE  also print the page to FILE (PDF)
#
# Fails (exit 1) on: any request other than the page itself (data: URLs
# aside), a console error, an uncaught exception or an error in the browser's
# log (a Content-Security-Policy violation is one), a missing or "no data"
# figure of a kind asked for, a wrong figure count, the figures' font not
# loading, a <script>, a page wider than the window (1,400 px); at that
# width a Markdown escape in the text (first\_prompt), a table wider than
# its wrapper without a sticky first column, a tall row whose tallest cell
# is out of view; in print (print media, an A4 page's width) a code block
# cut at the edge or an arm name or number (span.k) broken over two lines.
# Exit 2: usage.
#
# Chromium: /usr/bin/chromium, installed with apt-get (sudo when not root) if
# missing. The checks run in scripts/e2e-report (Go, standard library only),
# which drives Chromium over --remote-debugging-pipe.
#
# Try it on the sample page (every figure):
#   go test ./report/htmlpage -run TestGenerateSample -gen /tmp/report.html
#   bash scripts/e2e-report.sh /tmp/report.html /tmp/report.png
set -euo pipefail

usage() { echo "usage: $0 REPORT.html OUT.png [KINDS] [FIGURES]" >&2; exit 2; }
[ $# -ge 2 ] && [ $# -le 4 ] || usage
page=$1
png=$2
kinds=${3-forest,frontier,reliability,agreement,risk-coverage,subjects,confusion}
figures=${4:--1}
[ -f "$page" ] || { echo "e2e-report: no such file: $page" >&2; exit 2; }
case $figures in ''|*[!0-9-]*) usage ;; esac

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "e2e-report: installing chromium (apt-get)" >&2
  if ! $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2; then
    $sudo apt-get update >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium >&2
  fi
fi
"$chromium" --version >&2 || true

# Absolute paths: the checker runs from the repository root.
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$PWD" "$1" ;; esac; }
page=$(abspath "$page")
png=$(abspath "$png")
pdf=()
if [ -n "${E2E_REPORT_PDF:-}" ]; then pdf=(-pdf "$(abspath "$E2E_REPORT_PDF")"); fi

cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/e2e-report" ./scripts/e2e-report
"$bin/e2e-report" -chromium "$chromium" -page "$page" -png "$png" \
  -kinds "$kinds" -figures "$figures" ${pdf[@]+"${pdf[@]}"}
