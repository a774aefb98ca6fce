#!/bin/bash
# throughput.sh [SPEC...] — how close `medteam run` with its default flags
# gets to an endpoint's capacity. For each SPEC (C, or 429:C) it starts the
# loopback latency server (scripts/latencyserver: 20 ms per request, at most
# C at once, the rest queued — or answered 429 with Retry-After: 1 for
# 429:C), runs the full preset on N MedQA questions (default 200) against it
# with default flags (a fresh response cache in rw mode, as a real run has;
# CACHE=off turns it off), and prints the server's view: requests, wall
# time from the first request to the last answer, the achieved rate, its
# ratio to the bound C / 20 ms, peak concurrency, new TCP connections and
# 429s. Default SPECs: 4 16 64 256 429:16.
#
#   scripts/throughput.sh            # all
#   N=400 scripts/throughput.sh 64   # one
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
CACHE=${CACHE:-rw}
DELAY=${DELAY:-20ms}
DATA=../shared/datasets/medqa/phrases_no_exclude_test.jsonl
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
go build -o "$T/medteam" ./cmd/medteam
go build -o "$T/latencyserver" ./scripts/latencyserver
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(4 16 64 256 429:16)
printf '%-8s %9s %8s %9s %9s %9s %7s %10s %7s %9s\n' spec requests wall_s req/s bound of_bound peak conns/1k 429s 429_late%
for spec in "${specs[@]}"; do
  c=$spec; reject=""
  if [[ $spec == 429:* ]]; then c=${spec#429:}; reject="-reject"; fi
  "$T/latencyserver" -cap "$c" -delay "$DELAY" $reject > "$T/url" &
  srv=$!
  for _ in $(seq 50); do [ -s "$T/url" ] && break; sleep 0.1; done
  url=$(head -1 "$T/url")
  rm -rf "$T/out" "$T/cache.db"
  OPENAI_API_KEY=bench "$T/medteam" run --model openai/bench --base-url "$url" --dataset "$DATA" --limit "$N" \
    --config full --cache "$CACHE" --cache-path "$T/cache.db" --out "$T/out" > "$T/run.log" 2>&1 || { cat "$T/run.log"; exit 1; }
  stats=$(curl -s "${url%/v1}/stats")
  kill $srv; wait $srv 2>/dev/null || true
  python3 - "$spec" "$stats" <<'PY'
import json, sys
spec, s = sys.argv[1], json.loads(sys.argv[2])
bound = s["cap"] / (s["delay_ms"] / 1000)
late = 100 * s["late_rejected"] / s["late_all"] if s["late_all"] else 0
conns = 1000 * s["conns"] / max(1, s["requests"] + s["rejected"])
print(f'{spec:<8} {s["requests"]:9d} {s["wall_s"]:8.2f} {s["rate"]:9.1f} {bound:9.1f} {s["of_bound"]:9.3f} {s["peak"]:7d} {conns:10.1f} {s["rejected"]:7d} {late:9.2f}')
PY
  grep '^endpoint ' "$T/run.log" | sed 's/^/         /' || true
done
