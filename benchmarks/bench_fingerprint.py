"""What identifying a collection's files by content costs: `python benchmarks/bench_fingerprint.py
[DATA] [--repeat N]`.

The cache key used to be each input file's path, size and modification time (one stat call);
it is now a hash of the content (XXH3, `inputs.content_hash`), so a file rewritten at the same
size and time is seen (issue 11). Both are measured in the same run, alternating, on the same
files (already in the page cache, as on a reopen), with the whole cached reload (fingerprint,
cache hash and checks, memory-mapping) for scale.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def stat_state(path: Path) -> str:
    """The old cache key of a file: path, size and modification time."""
    st = path.stat()
    return f"{path.resolve()}\t{st.st_size}\t{st.st_mtime_ns}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", default=REPO.parent / "shared/data/dpdk-maintainers",
                        type=Path, help="a collection folder (default: ../shared/data/dpdk-...)")
    parser.add_argument("--repeat", type=int, default=15, help="repetitions (default 15)")
    args = parser.parse_args()
    os.environ["EXPERT_GUI_HOME"] = tempfile.mkdtemp(prefix="bench-fingerprint-")

    from expert_gui.core.data.formats import FORMATS, detect_format
    from expert_gui.core.data.formats.reading import file_state
    from expert_gui.core.data.loading import load_collection

    path = args.data.resolve()
    module = FORMATS[detect_format(path)]
    files = [Path(s.split("\t")[0]) for s in module.sources(path, None, None)]
    size = sum(f.stat().st_size for f in files)
    load_collection(path)  # writes the cache
    old, new, reloads = [], [], []
    for _ in range(args.repeat):
        t = time.perf_counter()
        [stat_state(f) for f in files]
        old.append(time.perf_counter() - t)
        t = time.perf_counter()
        [file_state(f) for f in files]
        new.append(time.perf_counter() - t)
        t = time.perf_counter()
        load_collection(path)
        reloads.append(time.perf_counter() - t)
    old_s, new_s, reload_s = (statistics.median(x) for x in (old, new, reloads))
    print(f"collection: {path} ({len(files)} files, {size / 2**20:.1f} MiB)")
    print(f"repetitions: {args.repeat} (medians below)")
    print(f"key by path, size, mtime (stat):   {old_s * 1e3:8.3f} ms")
    print(f"key by content (XXH3 of the bytes): {new_s * 1e3:8.3f} ms "
          f"({size / new_s / 2**30:.1f} GiB/s)")
    print(f"difference per open:               {(new_s - old_s) * 1e3:8.3f} ms")
    print(f"whole cached reload (for scale):   {reload_s * 1e3:8.3f} ms")
    shutil.rmtree(os.environ["EXPERT_GUI_HOME"], ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
