"""Cold load and tokenization of a collection next to scikit-learn's CountVectorizer, and the
cached reload: `python benchmarks/bench_load.py [DATA] [--repeat N]`.

Both sides run in the same process, alternating, so the ratio holds on a busy machine. The cold
load reads the files, tokenizes and builds the collection without the cache; CountVectorizer
(English stop words, its default token pattern) is fitted on the same texts, already in memory.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=REPO.parent / "shared/data/dpdk-maintainers",
                        type=Path, help="a collection (default: ../shared/data/dpdk-maintainers)")
    parser.add_argument("--repeat", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument("--scale", type=int, default=1,
                        help="for the folder format: load K copies of the documents (new ids), "
                             "to see how time and memory grow (default 1)")
    args = parser.parse_args()
    os.environ["EXPERT_GUI_HOME"] = tempfile.mkdtemp(prefix="bench-load-")
    if args.scale > 1:
        args.data = scaled_copy(args.data, args.scale, Path(os.environ["EXPERT_GUI_HOME"]))

    from sklearn.feature_extraction.text import CountVectorizer

    from expert_gui.core.data.loading import collection_cache, load_collection
    from expert_gui.core.data.text import TextSettings, load_stopwords

    load_stopwords(TextSettings())  # imports scikit-learn's list once, outside the timings
    first = load_collection(args.data, use_cache=False)
    texts = [first.text(i) for i in range(first.n_documents)]
    n_tokens = int(len(first.tokens))
    fingerprint = first.fingerprint
    del first

    ours, theirs, first_opens, reloads = [], [], [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        load_collection(args.data, use_cache=False)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        CountVectorizer(stop_words="english").fit(texts)
        theirs.append(time.perf_counter() - t)
        shutil.rmtree(collection_cache(fingerprint), ignore_errors=True)
        t = time.perf_counter()
        load_collection(args.data)  # reads the files and writes the cache
        first_opens.append(time.perf_counter() - t)
    for _ in range(args.repeat):
        t = time.perf_counter()
        load_collection(args.data)
        reloads.append(time.perf_counter() - t)

    # Memory: what Python and numpy hold at the peak of a first open (raw text goes to a file).
    shutil.rmtree(collection_cache(fingerprint), ignore_errors=True)
    tracemalloc.start()
    load_collection(args.data)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    input_bytes = sum(f.stat().st_size for f in Path(args.data).iterdir() if f.is_file())

    cold, cv, first_open, reload = (statistics.median(x)
                                    for x in (ours, theirs, first_opens, reloads))
    print(f"collection: {args.data} ({len(texts):,} documents, {n_tokens:,} tokens kept)")
    print(f"repetitions: {args.repeat} (medians below)")
    print(f"cold load (read + tokenize + build, no cache): {cold:.3f} s, "
          f"{n_tokens / cold:,.0f} tokens/s")
    print(f"CountVectorizer.fit on the same texts:         {cv:.3f} s")
    print(f"ratio cold load / CountVectorizer:             {cold / cv:.2f}")
    print(f"first open (cold load + writing the cache):    {first_open:.3f} s")
    print(f"cached reload:                                 {reload:.3f} s")
    print(f"peak traced memory, first open:                {peak / 2**20:.1f} MiB "
          f"(files in the folder: {input_bytes / 2**20:.1f} MiB)")
    shutil.rmtree(os.environ["EXPERT_GUI_HOME"], ignore_errors=True)
    return 0


def scaled_copy(folder: Path, k: int, where: Path) -> Path:
    """documents.tsv and associations.tsv repeated k times, ids suffixed with the copy number."""
    csv.field_size_limit(2**31 - 1)
    out = where / f"{folder.name}-x{k}"
    out.mkdir()
    for name in ("documents.tsv", "associations.tsv"):
        with open(folder / name, encoding="utf-8", newline="") as f:
            header, *rows = list(csv.reader(f, delimiter="\t"))
        with open(out / name, "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, delimiter="\t", lineterminator="\n")
            writer.writerow(header)
            for copy in range(k):
                writer.writerows([f"{r[0]}-{copy}", *r[1:]] for r in rows)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
