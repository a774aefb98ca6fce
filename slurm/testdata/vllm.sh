#!/bin/bash
#SBATCH --job-name=medteam-run-abc
#SBATCH --output=/shared/results/run-abc/slurm/shard-%a.log
#SBATCH --open-mode=append
#SBATCH --signal=B:TERM@90
#SBATCH --requeue
#SBATCH --partition=gpu
#SBATCH --gres=gpu:1
# medteam array task on a GPU partition: starts a vLLM server beside the
# harness, waits for it, runs shard $((SLURM_ARRAY_TASK_ID+1)) of 4 against it, stops it.
# Submit with --slurm-opt=--partition=gpu --slurm-opt=--gres=gpu:1
#   --model openai/<served name> --base-url http://127.0.0.1:8000/v1 --template this-file
set -eu
cd '/home/u/it'\''s here'
MODEL=${MEDTEAM_VLLM_MODEL:-Qwen/Qwen2.5-7B-Instruct}
LOG=/shared/results/run-abc/slurm/vllm-$SLURM_ARRAY_TASK_ID.log
vllm serve "$MODEL" --served-model-name bench --host 127.0.0.1 --port 8000 --seed 0 >"$LOG" 2>&1 &
VLLM=$!
trap 'kill $VLLM 2>/dev/null' EXIT
for _ in $(seq 600); do
  curl -sf http://127.0.0.1:8000/v1/models >/dev/null && break
  kill -0 $VLLM 2>/dev/null || { echo "vLLM exited; see $LOG" >&2; exit 1; }
  sleep 1
done
# Slurm's SIGTERM (--signal=B:TERM@90) reaches this shell: pass it on to medteam.
/opt/medteam/bin/medteam run --dataset=medqa --config=base --config=full '--model=openai/gpt 4o' --base-url=http://127.0.0.1:8000/v1 --shard "$((SLURM_ARRAY_TASK_ID+1))/4" --out /shared/results/run-abc/shards --run-name "shard-$((SLURM_ARRAY_TASK_ID+1))-of-4" --no-report &
RUN=$!
trap 'kill -TERM $RUN 2>/dev/null' TERM
set +e
wait $RUN
rc=$?
if kill -0 $RUN 2>/dev/null; then # the wait was cut by the signal: wait for medteam's clean stop
  wait $RUN
  rc=$?
fi
exit $rc
