"""Loading real bibliographic exports (issues 20 and 30): every file of ../shared/realfiles, the
whole of it as one folder of folders (a sub-folder per vendor), and a folder of 11 Web of
Science downloads of about 5,000 records made from the real ones.
`python benchmarks/bench_exports.py [REALFILES] [--repeat N] [--fresh]`.

For each input: its records (and the README's), documents (records less the merged duplicates),
people, the README's authors, and the load time without the cache (median of N, in this
process, imports done); the baseline, measured in the same run, is the builder alone fed the same documents and
people (tokenizing, vocabulary, associations), so the ratio is what reading, merging and
resolving names cost on top of building. `--fresh` also times one load in a new process from
the first import on (Python's own start excluded): what `expert-gui stats` pays, scikit-learn's
stop-word list included.

The folder: the 1,102 records of wos-plain and wos-plain-folder, copied with new UT, DOI and
title words until there are 5,005, written as 11 files of 455 records (one search's downloads;
the copies are distinct papers, so nothing merges and every record is built).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

FOLDER_FILES = 11
FOLDER_RECORDS = 5_005


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("realfiles", nargs="?", type=Path,
                        default=REPO.parent / "shared" / "realfiles")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (default 3)")
    parser.add_argument("--fresh", action="store_true",
                        help="also time one load in a new process (imports included)")
    args = parser.parse_args()
    home = tempfile.mkdtemp(prefix="bench-exports-")
    os.environ["EXPERT_GUI_HOME"] = home

    from expert_gui.core.data.text import TextSettings, load_stopwords

    load_stopwords(TextSettings())  # scikit-learn's list, imported once outside the timings
    readme = _readme_counts(args.realfiles / "README.md")
    inputs = []
    for entry in sorted(args.realfiles.iterdir()):
        if entry.is_dir():
            inputs += [entry] if entry.name.endswith("folder") else sorted(entry.iterdir())
    inputs.append(args.realfiles)  # every file at once: a folder of folders
    folder = make_wos_folder(args.realfiles, Path(home) / "wos-11-downloads")
    inputs.append(folder)

    print(f"repetitions: {args.repeat} (medians); baseline: the builder alone, same documents")
    head = f"{'input':<48} {'format':<11} {'records':>7} {'README':>6} {'docs':>6} " \
           f"{'people':>6} {'README':>6} {'load s':>7} {'build s':>7} {'ratio':>5}" \
           + (f" {'fresh s':>7}" if args.fresh else "")
    print(head)
    for path in inputs:
        name = str(path.relative_to(args.realfiles)) if path.is_relative_to(args.realfiles) \
            else path.name
        loads, builds, c = [], [], None
        for _ in range(args.repeat):
            took, c = _timed_load(path)
            loads.append(took)
            builds.append(_timed_build(c))
        load, build = statistics.median(loads), statistics.median(builds)
        records, authors = readme.get(name, readme.get(name.split("/")[0], ("–", "–")))
        line = (f"{name if name != '.' else '(all of them, one folder)':<48} "
                f"{c.report.format:<11} {c.report.counts['records']:>7,} {records:>6} "
                f"{c.n_documents:>6,} {c.n_people:>6,} {authors:>6} {load:>7.2f} "
                f"{build:>7.2f} {load / build:>5.1f}")
        if args.fresh:
            line += f" {_fresh_load(path, home):>7.2f}"
        print(line)
    return 0


def _timed_load(path: Path):
    from expert_gui.core.data.loading import load_collection

    start = time.perf_counter()
    c = load_collection(path, use_cache=False)
    return time.perf_counter() - start, c


def _timed_build(c) -> float:
    """The builder alone, fed the loaded collection's documents and people."""
    from expert_gui.core.data.collection import CollectionBuilder

    docs = [(c.doc_ids[i], c.text(i), [c.person_ids[p] for p in c.people_of(i)])
            for i in range(c.n_documents)]
    start = time.perf_counter()
    builder = CollectionBuilder(c.settings)
    for pid, name in zip(c.person_ids, c.person_names, strict=True):
        builder.add_person(pid, name, "f", None)
    for doc_id, text, people in docs:
        builder.add_document(doc_id, text, "f", None, people=people)
    builder.build()
    return time.perf_counter() - start


def _fresh_load(path: Path, home: str) -> float:
    """One load in a new process, timed from before the first import of the app."""
    code = ("import time; t = time.perf_counter()\n"
            "from expert_gui.core.data.loading import load_collection\n"
            f"load_collection({str(path)!r}, use_cache=False)\n"
            "print(time.perf_counter() - t)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=REPO, env=dict(os.environ, EXPERT_GUI_HOME=home,
                                                         PYTHONPATH=str(REPO)))
    return float(done.stdout.strip().splitlines()[-1])


def make_wos_folder(realfiles: Path, folder: Path) -> Path:
    """11 plain-text downloads of 455 records each, from the real Web of Science exports."""
    sources = [realfiles / "wos-plain" / "savedrecs.txt",
               *sorted((realfiles / "wos-plain-folder").iterdir())]
    records = []
    for source in sources:
        text = source.read_text(encoding="utf-8-sig")
        records += [r.split("\nER\n")[0] for r in text.split("\nPT ")[1:]]
    copies = []
    for k in range(FOLDER_RECORDS):
        record, copy = records[k % len(records)], k // len(records)
        if copy:
            record = re.sub(r"^UT (\S+)", rf"UT \1-{copy}", record, flags=re.M)
            record = re.sub(r"^DI (\S+)", rf"DI \1-{copy}", record, flags=re.M)
            record = re.sub(r"^PM .*\n", "", record, flags=re.M)
            record = re.sub(r"^TI ", f"TI Copy {copy} of ", record, flags=re.M)
        copies.append(record)
    folder.mkdir(parents=True, exist_ok=True)
    per_file = -(-FOLDER_RECORDS // FOLDER_FILES)
    for f in range(FOLDER_FILES):
        part = copies[f * per_file:(f + 1) * per_file]
        body = "".join(f"PT {r}\nER\n\n" for r in part)
        name = "savedrecs.txt" if f == 0 else f"savedrecs({f}).txt"
        (folder / name).write_text("\ufeffFN Clarivate Analytics Web of Science\nVR 1.0\n"
                                   + body + "EF\n", encoding="utf-8")
    return folder


def _readme_counts(readme: Path) -> dict[str, tuple[str, str]]:
    """The README's records and authors, by the entry's path (several paths in one row take
    their counts in order: "acm-csv/acm.csv, acm-csv/ACMDL...csv | 104, 82 | 324, 238") and by
    its first part."""
    found = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) > 4 and "/" in cells[1]:
            paths = [p.strip().rstrip("/") for p in cells[1].split(",")]
            records = [r.strip() for r in cells[2].split(",")]
            authors = [a.strip().split(" ")[0] for a in cells[3].split(",")]
            for k, path in enumerate(paths):
                counts = (records[min(k, len(records) - 1)], authors[min(k, len(authors) - 1)])
                found[path] = counts
                found.setdefault(path.split("/")[0], counts)
    return found


if __name__ == "__main__":
    sys.exit(main())
