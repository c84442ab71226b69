"""LSI's SVD and a QR factorisation with one BLAS thread against two, each in a process of its
own (OpenBLAS reads its thread count at start), interleaved, medians: what a busy machine does
to the calibration's and LSI's factorisations (docs/results/calibration-speed.md).

    .venv/bin/python benchmarks/bench_blas_threads.py ../shared/data/dpdk-maintainers --repeats 3

Run it while the machine is busy and while it is idle: the load is printed with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

THREADS = (1, 2)


def timings(collection_path: str) -> dict[str, float]:
    """Seconds of each factorisation, in this process."""
    import numpy as np
    import scipy.linalg
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfTransformer

    from expert_gui.core.data.loading import load_collection
    from expert_gui.core.rankers.common import term_document_matrix

    tfidf = TfidfTransformer(norm=None, smooth_idf=True).fit_transform(
        term_document_matrix(load_collection(collection_path))).tocsr()
    square = np.random.default_rng(0).random((tfidf.shape[0], 310))
    out = {}
    for dtype in (np.float32, np.float64):
        name = np.dtype(dtype).name
        start = time.perf_counter()
        TruncatedSVD(300, random_state=0).fit(tfidf.astype(dtype))
        out[f"LSI's SVD, {name}"] = time.perf_counter() - start
        start = time.perf_counter()
        scipy.linalg.qr(square.astype(dtype), mode="economic")
        out[f"QR of {square.shape[0]:,} x 310, {name}"] = time.perf_counter() - start
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("collection")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(timings(args.collection)))
        return 0
    runs: dict[int, list[dict[str, float]]] = {n: [] for n in THREADS}
    for _ in range(args.repeats):
        for n in THREADS:
            env = {**os.environ, "OPENBLAS_NUM_THREADS": str(n), "OMP_NUM_THREADS": str(n)}
            done = subprocess.run([sys.executable, __file__, args.collection, "--child"],
                                  env=env, check=True, capture_output=True, text=True)
            runs[n].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"  {n} thread(s), load {os.getloadavg()[0]:.1f}: " + ", ".join(
                f"{k} {v:.2f} s" for k, v in runs[n][-1].items()), flush=True)
    print(f"| medians of {args.repeats} | " + " | ".join(f"{n} thread(s)" for n in THREADS)
          + " |\n|---|" + "---|" * len(THREADS))
    for key in runs[THREADS[0]][0]:
        print(f"| {key} | " + " | ".join(
            f"{statistics.median(r[key] for r in runs[n]):.2f} s" for n in THREADS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
