#!/usr/bin/env bash
# Runs the tests that execute the DuckDB query printed under report.md's
# headline table and compare its output with the table. DuckDB comes from the
# npm registry (@duckdb/node-api ships the engine for linux-x64), installed
# once into a cache folder; a duckdb command on PATH is used instead when
# there is one. Without either, those tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${MEDTEAM_DUCKDB_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/medteam/duckdb-node}
if ! command -v duckdb >/dev/null && [ ! -d "$dir/node_modules/@duckdb/node-api" ]; then
	mkdir -p "$dir"
	(cd "$dir" && npm install --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1)
fi
MEDTEAM_DUCKDB_NODE=$dir go test -count=1 -run 'DuckDB' -v ./report ./cli
