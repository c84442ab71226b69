#!/usr/bin/env bash
# Issue 14's checks on a machine with an NVIDIA GPU, in one run: the trainer's tests on the GPU
# (with its CUDA-graph test, which is skipped elsewhere), then the training benchmark on DPDK
# (ours, ours replayed from a CUDA graph and the straightforward model on the same batches, the
# step-time split, and one epoch of `train` with and without CUDA graphs).
#
#   benchmarks/gpu_check.sh [DPDK folder] [...more bench_train options]
#
# PYTHON picks the interpreter (default .venv/bin/python; it needs a CUDA build of torch).
set -euo pipefail
PY=${PYTHON:-.venv/bin/python}
DATA=${1:-../shared/data/dpdk-maintainers}
shift || true
"$PY" -c 'import sys, torch; sys.exit(None if torch.cuda.is_available() else
          f"no CUDA GPU is visible to torch {torch.__version__}")'
"$PY" -c 'import torch; print(torch.__version__, torch.cuda.get_device_name(0))'
"$PY" -m pytest -q -p no:cacheprovider -rs tests/test_training_step.py tests/test_training.py \
    tests/test_crash_points.py
"$PY" benchmarks/bench_train.py "$DATA" --device cuda --parts dpdk --epoch "$@"
