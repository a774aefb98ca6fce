#!/usr/bin/env bash
# e2e-slurm.sh [WORKDIR] — 'medteam slurm' against a real single-node Slurm.
#
# Installs Debian's slurmctld, slurmd, slurm-client and munge when missing
# (plus sqlite3, to count the response cache), writes a slurm.conf under
# WORKDIR (no systemd, no cgroups: ../shared/REFERENCE.md "Running on
# clusters"), starts munged, slurmctld and slurmd, and waits for the node to
# be idle. Then, twice — on the simulator and against the fake
# OpenAI-compatible server (scripts/latencyserver) with the response cache
# on a shared path — it submits a 4-task array over 200 questions × 3 arms,
# cancels one task while it runs, checks that the merge job refused the
# incomplete run, resubmits the unfinished shards, waits, and compares the
# merged rows with an unsharded run of the same plan via DuckDB (every column
# but the timing ones and the in-process request-sharing counters). Against
# the fake server it also checks requests answered == unique requests (rows
# of the response cache): no shard re-sent finished work. The EXIT trap
# cancels the jobs and stops the daemons it started by their pids.
# Needs root (or sudo) for the packages and the daemons. Prints timings.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
W=$(realpath -m "${1:-$(mktemp -d)}")
mkdir -p "$W"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.1f", b-a}'; }
say() { echo "== e2e-slurm: $*"; }
fail() {
	echo "e2e-slurm: FAIL: $*" >&2
	exit 1
}
T0=$(now)

# --- packages -------------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null ||
	! command -v munged >/dev/null || ! command -v sqlite3 >/dev/null; then
	t=$(now)
	pkgs="slurmctld slurmd slurm-client munge sqlite3"
	{ $SUDO apt-get install -y -qq $pkgs || { $SUDO apt-get update -qq && $SUDO apt-get install -y -qq $pkgs; }; } >"$W/apt.log" 2>&1 ||
		{ tail -n 20 "$W/apt.log"; fail "installing $pkgs"; }
	say "installed $pkgs in $(since "$t") s"
fi

# --- tools: medteam, the fake server, data, DuckDB -------------------------
t=$(now)
mkdir -p "$W/bin"
go build -o "$W/bin/medteam" ./cmd/medteam
go build -o "$W/bin/latencyserver" ./scripts/latencyserver
go run ./scripts/gendata -n 200 -out "$W/q200.jsonl"
DUCK=${MEDTEAM_DUCKDB_NODE:-${XDG_CACHE_HOME:-$HOME/.cache}/medteam/duckdb-node}
if [ ! -d "$DUCK/node_modules/@duckdb/node-api" ]; then
	mkdir -p "$DUCK"
	(cd "$DUCK" && npm install --no-audit --no-fund --silent @duckdb/node-api@1.5.6-r.1)
fi
BIN=$W/bin/medteam
say "built medteam and the fake server, 200 questions, DuckDB in $(since "$t") s"

# --- the cluster -------------------------------------------------------------
S=$W/slurm
mkdir -p "$S/etc" "$S/state" "$S/spool" "$S/log"
HOST=$(hostname -s)
MEM=$(free -m | awk '/^Mem:/{print int($4*0.9)}')
cat >"$S/etc/slurm.conf" <<EOF
ClusterName=medteam
SlurmctldHost=$HOST
SlurmctldPort=${MEDTEAM_SLURMCTLD_PORT:-6817}
SlurmdPort=${MEDTEAM_SLURMD_PORT:-6818}
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$S/log/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
MinJobAge=600
NodeName=$HOST CPUs=$(nproc) RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
echo "CgroupPlugin=cgroup/v1" >"$S/etc/cgroup.conf"
export SLURM_CONF=$S/etc/slurm.conf
MUNGE_PID=""
LAT_PID=""
JOBS=""
cleanup() {
	rc=$?
	set +e
	[ -n "$JOBS" ] && scancel $JOBS >/dev/null 2>&1
	[ -n "$LAT_PID" ] && kill "$LAT_PID" 2>/dev/null
	for f in "$S/slurmd.pid" "$S/slurmctld.pid"; do
		[ -s "$f" ] && $SUDO kill "$(cat "$f")" 2>/dev/null
	done
	[ -n "$MUNGE_PID" ] && $SUDO kill "$MUNGE_PID" 2>/dev/null
	if [ "$rc" -ne 0 ]; then
		for f in "$S/log/slurmctld.log" "$S/log/slurmd.log"; do
			[ -f "$f" ] && { echo "--- tail $f"; tail -n 15 "$f"; }
		done
	fi
	exit "$rc"
}
trap cleanup EXIT
t=$(now)
$SUDO install -d -o munge -g munge /run/munge
if ! munge -n </dev/null >/dev/null 2>&1; then
	$SUDO runuser -u munge -- /usr/sbin/munged
	for _ in $(seq 50); do [ -s /run/munge/munged.pid ] && break; sleep 0.1; done
	MUNGE_PID=$(cat /run/munge/munged.pid)
fi
$SUDO env SLURM_CONF="$SLURM_CONF" slurmctld
$SUDO env SLURM_CONF="$SLURM_CONF" slurmd
state=""
for _ in $(seq 300); do
	state=$(sinfo -h -o %T 2>/dev/null | head -n 1)
	[ "$state" = idle ] && break
	sleep 0.1
done
[ "$state" = idle ] || fail "the node is '$state', not idle, 30 s after the start"
T_CLUSTER=$(since "$t")
say "cluster up (munged, slurmctld, slurmd; node $HOST idle) in $T_CLUSTER s"

# wait_jobs ID... waits until Slurm runs none of the jobs (≤ 4 min).
wait_jobs() {
	local ids
	ids=$(echo "$*" | tr ' ' ',')
	for _ in $(seq 2400); do
		[ -z "$(squeue -h -j "$ids" 2>/dev/null)" ] && return 0
		sleep 0.1
	done
	squeue
	fail "jobs $ids still queued after 4 minutes"
}
# record KEY N: field KEY ("array" or "merge") of submission N of $RUN/slurm.json.
record() {
	node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1]+"/slurm.json"));console.log(r.jobs[+process.argv[3]][process.argv[2]])' "$RUN" "$1" "$2"
}
# duck SQL: runs SQL with DuckDB and prints the rows as JSON.
duck() {
	node -e 'const {createRequire}=require("module");const duck=createRequire(process.argv[1]+"/")("@duckdb/node-api");
(async()=>{const db=await duck.DuckDBInstance.create(":memory:");const con=await db.connect();
const r=await con.runAndReadAll(process.argv[2]);console.log(JSON.stringify(r.getRowObjectsJson()));})().catch(e=>{console.error(e.message);process.exit(1);});' "$DUCK" "$1"
}
# same A B: the rows of run dirs A and B agree in every column but the
# timing ones, the run id and the in-process request-sharing counters
# (which of two identical requests went out first is timing too, and so
# are the paid columns counted over the calls that went out).
same() {
	local a=$1 b=$2 out
	for tab in "questions call_latency_ms, wall_ms, attempts, cached_calls, paid_prompt_tokens, paid_completion_tokens, paid_cached_prompt_tokens, calls_cached_unreported" "calls latency_ms, attempts, cached"; do
		set -- $tab
		local f=$1
		shift
		local ex="run_id, $*"
		out=$(duck "SELECT (SELECT count(*) FROM '$a/$f.parquet') AS a, (SELECT count(*) FROM '$b/$f.parquet') AS b,
 (SELECT count(*) FROM (SELECT * EXCLUDE ($ex) FROM '$a/$f.parquet' EXCEPT ALL SELECT * EXCLUDE ($ex) FROM '$b/$f.parquet')) AS only_a,
 (SELECT count(*) FROM (SELECT * EXCLUDE ($ex) FROM '$b/$f.parquet' EXCEPT ALL SELECT * EXCLUDE ($ex) FROM '$a/$f.parquet')) AS only_b")
		echo "   $f.parquet: $out"
		echo "$out" | grep -q '"only_a":"0","only_b":"0"' || fail "$f rows differ between $a and $b: $out"
		echo "$out" | grep -q '"a":"0"' && fail "$f.parquet of $a is empty"
	done
	return 0
}

# scenario NAME CANCEL_TASK PLAN... : submit, cancel one task while it runs,
# check the refused merge, resubmit, wait, compare with an unsharded run.
scenario() {
	local name=$1 task=$2
	shift 2
	RUN=$W/runs/$name
	say "[$name] submit: 4 shards of 200 questions × 3 arms"
	local t
	t=$(now)
	"$BIN" slurm submit --shards 4 --throttle 4 "$@" --out "$W/runs" --run-name "$name" | sed 's/^/   /'
	local A M
	A=$(record array 0)
	M=$(record merge 0)
	JOBS="$JOBS $A $M"
	# Cancel the task once its journal holds finished units.
	local shard=$((task + 1)) done_units=""
	for _ in $(seq 1200); do
		done_units=$("$BIN" slurm status "$RUN" 2>/dev/null | awk -v s="$shard/4" -v j="${A}_$task" '$1==s && $3==j && $4=="RUNNING" {split($2,a,"/"); if (a[1] ~ /^[0-9]+$/) print a[1]}')
		[ -n "$done_units" ] && [ "$done_units" -gt 0 ] && break
		done_units=""
		sleep 0.05
	done
	[ -n "$done_units" ] || fail "[$name] task ${A}_$task never ran with finished units"
	scancel "${A}_$task"
	say "[$name] cancelled task ${A}_$task (shard $shard/4) at $done_units units done, $(since "$t") s after submit"
	wait_jobs "$A" "$M"
	T_ARRAY1=$(since "$t")
	"$BIN" slurm status "$RUN" | sed 's/^/   /'
	grep -q "stopping: no new questions" "$RUN/slurm/shard-$task.log" || fail "[$name] the cancelled task did not stop gracefully (see $RUN/slurm/shard-$task.log)"
	grep -q "not merged, the run is incomplete" "$RUN/slurm/merge.log" || fail "[$name] the merge job did not refuse the incomplete run (see $RUN/slurm/merge.log)"
	[ ! -e "$RUN/questions.parquet" ] || fail "[$name] an incomplete run was merged"
	say "[$name] first array ended in $T_ARRAY1 s; the merge job refused the incomplete run"
	t=$(now)
	"$BIN" slurm resubmit "$RUN" | sed 's/^/   /'
	A=$(record array 1)
	M=$(record merge 1)
	JOBS="$JOBS $A $M"
	wait_jobs "$A"
	T_ARRAY2=$(since "$t")
	local tm
	tm=$(now)
	wait_jobs "$M"
	T_MERGE=$(since "$tm")
	"$BIN" slurm status "$RUN" | sed 's/^/   /'
	grep -q "merged 4 shard(s)" "$RUN/slurm/merge.log" || { tail -n 20 "$RUN/slurm/merge.log"; fail "[$name] the re-armed merge job did not merge"; }
	[ -f "$RUN/report.md" ] || fail "[$name] no report.md in $RUN"
	grep -q '"shards": *4' "$RUN/slurm.json" || fail "[$name] slurm.json"
	say "[$name] resubmitted shard ran in $T_ARRAY2 s; merge job waited and ran in $T_MERGE s (after the array)"
	t=$(now)
	"$BIN" run "$@" --out "$W/runs" --run-name "$name-unsharded" --no-report >"$W/$name-unsharded.log" 2>&1 ||
		{ tail -n 20 "$W/$name-unsharded.log"; fail "[$name] unsharded run"; }
	say "[$name] unsharded run in $(since "$t") s; rows compared via DuckDB:"
	same "$RUN" "$W/runs/$name-unsharded"
}

PLAN=(--dataset "$W/q200.jsonl" --config base,c1,full --seed 3)
scenario sim 1 "${PLAN[@]}" --model sim/slow --parallel 8

# The fake OpenAI-compatible server, the cache on a shared path.
"$W/bin/latencyserver" -cap 16 -delay 15ms >"$W/latency.url" 2>"$W/latency.log" &
LAT_PID=$!
for _ in $(seq 50); do [ -s "$W/latency.url" ] && break; sleep 0.1; done
URL=$(head -n 1 "$W/latency.url")
[ -n "$URL" ] || fail "the fake server did not start"
export OPENAI_API_KEY=e2e-fake-server
CACHE=$W/shared-cache/responses.db
stats() { curl -s "${URL%/v1}/stats" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).requests))'; }
scenario fake 2 "${PLAN[@]}" --model openai/bench --base-url "$URL" --cache rw --cache-path "$CACHE" --parallel 4
REQ=$(stats)
UNIQ=$(sqlite3 "$CACHE" 'SELECT count(*) FROM responses')
say "[fake] requests answered by the fake server: $REQ; unique requests (response cache rows): $UNIQ (the unsharded rerun was served by the cache)"
[ "$REQ" = "$UNIQ" ] || fail "[fake] $REQ requests for $UNIQ unique ones: finished work was sent again"
say "PASS in $(since "$T0") s (cluster start $T_CLUSTER s)"
