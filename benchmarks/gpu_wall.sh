#!/usr/bin/env bash
# Issue 28's GPU figures in one run: what a user who clicks Train waits for on a GPU machine.
#  1. the tests of the rankers' torch path on the GPU (the training step's and progress's last),
#     then benchmarks/first_run_timeline.py;
#  2. `expert-gui train DPDK` with defaults, twice (the first builds the collection's cache),
#     then with a checkpoint at the end only, then without the second run on every document;
#  3. DPDK copied 20 times (904,100 documents): the first load, then `train --epochs 1` with the
#     default held-out documents (given 300 s at most), then `rank --topics` with five methods.
# Each command's wall time, its process's start included, is printed as "WALL <seconds> <label>";
# `train` also prints its own split ("wall time ... load, setting up, steps, held-out MAP,
# calibration, saving").
#
#   benchmarks/gpu_wall.sh DPDK_FOLDER WORK_DIR [--device cuda] [--copies 20] [--skip-tests]
#
# PYTHON picks the interpreter (default .venv/bin/python); ../shared/GPU.md says how to bring the
# packages a GPU machine lacks. Rehearse on the CPU with `--device cpu --copies 2`.
set -euo pipefail
PY=${PYTHON:-.venv/bin/python}
DATA=$1 WORK=$2
shift 2
DEVICE=cuda COPIES=20 TESTS=1
while [ $# -gt 0 ]; do
    case $1 in
        --device) DEVICE=$2; shift 2 ;;
        --copies) COPIES=$2; shift 2 ;;
        --skip-tests) TESTS=0; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$WORK"
# A machine whose packages hold no bytecode (the H200s: every process compiled 1,819 files again,
# 6.7 s) would time that, which no user's install does: bytecode is cached under WORK, and
# written even where PYTHONDONTWRITEBYTECODE is set (as on this project's machines).
env | grep '^PYTHON' || true
unset PYTHONDONTWRITEBYTECODE
export EXPERT_GUI_HOME=${EXPERT_GUI_HOME:-$WORK/home} PYTHONUNBUFFERED=1 \
    PYTHONPYCACHEPREFIX=${PYTHONPYCACHEPREFIX:-$WORK/pycache}

timed() {  # timed LABEL COMMAND...: runs it, the end of its output (progress lines as lines)
    local label=$1 start end rc=0
    shift
    start=$(date +%s.%N)
    "$@" > "$WORK/out.txt" 2>&1 || rc=$?
    end=$(date +%s.%N)
    tr '\r' '\n' < "$WORK/out.txt" | grep -av '^\s*$' | tail -n 40
    awk -v s="$start" -v e="$end" -v l="$label (exit status $rc)" 'BEGIN { printf "WALL %.2f %s\n", e - s, l }'
}

"$PY" -c 'import torch; print("torch", torch.__version__,
          torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no CUDA")'
nproc
if [ "$TESTS" = 1 ]; then  # the rankers' torch path first: calibration in `train` takes it
    EXPERT_GUI_TEST_TORCH_DEVICE=$DEVICE timed "tests of ranking on $DEVICE" "$PY" -m pytest -q \
        -p no:cacheprovider -rs tests/test_rank_batch.py tests/test_calibration.py \
        tests/test_rankers_sharing.py -k "device or $DEVICE"
fi
# what a process's first run adds before its steps, against the same run again; the first
# process fills the bytecode cache (and the collection's), so it is run once before, untimed
"$PY" benchmarks/first_run_timeline.py "$DATA" --device "$DEVICE" > /dev/null 2>&1 || true
timed "first run's timeline" "$PY" benchmarks/first_run_timeline.py "$DATA" --device "$DEVICE"
for run in first second; do
    timed "train DPDK ($run run, defaults)" "$PY" -m expert_gui train "$DATA" \
        --device "$DEVICE" --out "$WORK/dpdk-$run"
done
# the shares of the checkpoints (only the last one kept) and of the second run on every document
timed "train DPDK, checkpoint at the end only" "$PY" -m expert_gui train "$DATA" \
    --device "$DEVICE" --out "$WORK/dpdk-last-checkpoint" --checkpoint-every 0 \
    --checkpoint-minutes 0
timed "train DPDK, not trained again on all" "$PY" -m expert_gui train "$DATA" \
    --device "$DEVICE" --out "$WORK/dpdk-once" --no-retrain-on-all
timed "write DPDK x$COPIES" "$PY" benchmarks/dpdk_copies.py "$DATA" "$WORK/copies" -k "$COPIES"
timed "stats (first load)" "$PY" -m expert_gui stats "$WORK/copies"
timed "train DPDK x$COPIES --epochs 1" timeout 300 "$PY" -m expert_gui train "$WORK/copies" \
    --device "$DEVICE" --epochs 1 --out "$WORK/copies-model"
for method in auto loglinear model2-jm model1-d ensemble; do
    timed "rank --topics $method (DPDK x$COPIES)" "$PY" -m expert_gui rank "$WORK/copies-model" \
        --method "$method" --topics "$DATA/topics.dev.tsv" --run "$WORK/run-$method.txt"
done
if [ "$TESTS" = 1 ]; then
    timed "tests of the training step and its progress" "$PY" -m pytest -q -p no:cacheprovider \
        -rs tests/test_training_step.py tests/test_training_progress.py
fi
