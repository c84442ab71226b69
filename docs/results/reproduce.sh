#!/usr/bin/env bash
# Regenerates every folder of docs/results/ with the project's defaults (see README.md here).
# Usage: bash docs/results/reproduce.sh [DATA_DIR]   (default: ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/../.."
DATA=${1:-../shared/data}
X=".venv/bin/expert-gui experiment"
D=$DATA/dpdk-maintainers
A=$DATA/aminer-dblp
R=docs/results
$X "$A" --topics "$A/topics.tsv" --qrels "$A/qrels.txt" --out $R/aminer-areas --threads 1 \
   --overlapping --other-numbers any-digit --sweep --sweep-epochs 5
$X "$A" --topics "$A/topics.tsv" --qrels "$A/qrels.txt" --out $R/aminer-areas-defaults --threads 1
$X "$A" --topics "$A/topics-documents.tsv" --qrels "$A/qrels-documents.txt" \
   --out $R/aminer-documents --overlapping --threads 1 --other-numbers any-digit \
   --exclude-topic-documents
$X "$D" --topics "$D/topics.dev.tsv" --qrels "$D/qrels.dev.txt" --out $R/dpdk-dev --threads 1 \
   --other-numbers any-digit
$X "$D" --topics "$D/topics.dev.tsv" --qrels "$D/qrels.dev.txt" --out $R/dpdk-dev-window-sweep \
   --methods loglinear --model $R/dpdk-dev/model --sweep --sweep-epochs 2 --threads 1
# Expert profiling (issue 13): topics ranked per person against the inverted qrels.
P="env OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/profiles_map.py"
$P "$D" --model $R/dpdk-dev/model --out $R/profiles-dpdk
# (measured before the model kept was trained again on every document: issue 29, part 1)
.venv/bin/expert-gui train "$A" --out $R/profiles-aminer/model --threads 1 --no-retrain-on-all
$P "$A" --topics topics.tsv --qrels qrels.txt --model $R/profiles-aminer/model \
   --out $R/profiles-aminer --look c0172 c0182 c0129
