"""Issues 32's and 43's hostile inputs, each run by the code before the issue and by this one,
every run under a memory limit and a time limit: `python benchmarks/hostile_inputs.py --old DIR
[--limit-gb 4] [--timeout 60] [--cases NAME ...]`.

Issue 43's cases live in `hostile_43_*.py` beside this file, one module per class of attack
(each a CASES dict of the same shape, and HOOKS: a flag of the command that installs a failure
in the process before the CLI runs).

DIR holds the old code: `git archive main expert_gui resources | tar -x -C DIR`. Each case's
input is generated once, small (tests/hostile_files.py: compressed as it is written, so a 4 GB
sheet is never on disk or in memory); then each side runs it through the CLI in a process of
its own under `prlimit --as` (a regression cannot take the machine down) and is killed at the
timeout. The table gives each side's outcome (the exit status and the last line it printed, or
the exception that escaped), wall time and peak resident memory (the process's VmHWM: read by
the process at its end, and by this script while it runs, so a run killed has one too;
ru_maxrss would count the memory of the process that started it).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

GB = 1 << 30
MB = 1 << 20
DEMO = REPO / "resources" / "demo"


# -- the inputs ---------------------------------------------------------------------------------
def _demo_copy(data: Path, name: str) -> Path:
    folder = data / name
    folder.mkdir()
    for f in ("documents.tsv", "associations.tsv", "people.tsv", "topics.tsv"):
        shutil.copy(DEMO / f, folder / f)
    return folder


def make_empty_rows(data: Path) -> Path:
    from hostile_files import header_and_rows, repeated, workbook

    return workbook(data / "rows.xlsx", [*header_and_rows(1), *repeated(b"<row/>", 4 * GB)])


def make_huge_string(data: Path) -> Path:
    from hostile_files import header_and_rows, repeated, workbook

    cell = b'<row r="3"><c r="A3" t="s"><v>0</v></c><c r="B3" t="s"><v>0</v></c></row>'
    return workbook(data / "string.xlsx", [*header_and_rows(1), cell],
                    [b"<si><t>", *repeated(b"ring ", 2 * GB), b"</t></si>"])


def make_sparse(data: Path) -> Path:
    from hostile_files import row, workbook

    return workbook(data / "sparse.xlsx", [
        row(1, ("A1", "title"), ("B1", "authors"), ("XFD1", "far")),
        row(1_048_576, ("A1048576", "Ring buffers"), ("B1048576", "Ann Archer"))],
        dimension="A1:XFD1048576")


def make_blank_lines(data: Path) -> Path:
    from hostile_files import gzipped, repeated

    folder = data / "blank"
    folder.mkdir()
    gzipped(folder / "documents.tsv.gz", [b"doc_id\ttext\nd1\tring buffer\n",
                                          *repeated(b"\n", 10**9), b"d2\tmempool cache\n"], 9)
    (folder / "associations.tsv").write_text("d1\tp\nd2\tp\n", encoding="utf-8")
    return folder


def make_plain_blank_lines(data: Path) -> Path:
    from hostile_files import repeated

    folder = data / "plain-blank"
    folder.mkdir()
    with open(folder / "documents.tsv", "wb") as f:
        f.write(b"doc_id\ttext\nd1\tring buffer\n")
        for piece in repeated(b"\n", 10**8):
            f.write(piece)
        f.write(b"d2\tmempool cache\n")
    (folder / "associations.tsv").write_text("d1\tp\nd2\tp\n", encoding="utf-8")
    return folder


def make_far_cells(data: Path) -> Path:
    from hostile_files import row, workbook

    return workbook(data / "far.xlsx", [row(1, ("A1", "title"), ("XFD1", "authors")), *(
        row(i, (f"A{i}", f"ring buffer {i}"), (f"XFD{i}", f"Author {i % 50}"))
        for i in range(2, 200_002))])


def make_big_cell(data: Path) -> Path:
    from hostile_files import header_and_rows, repeated, workbook

    cell = b'<row r="3"><c r="A3" t="s"><v>0</v></c><c r="B3" t="inlineStr"><is><t>Ann</t>' \
           b"</is></c></row>"
    return workbook(data / "cell.xlsx", [*header_and_rows(1), cell],
                    [b"<si><t>", *repeated(b"ring buffer ", 100 * MB), b"</t></si>"])


def make_quoted_field(data: Path) -> Path:
    folder = data / "quoted"
    folder.mkdir()
    line = (", ring buffer mempool cache" * 3_900)[:99_990] + "\n"
    with open(folder / "documents.csv", "w", encoding="utf-8") as f:
        f.write('id,text\nd1,"')
        for i in range(1_000):
            f.write(f"part{i:05d}{line}")  # read alone, each line is a document
        f.write('"\nd2,the record after it\n')
    (folder / "associations.tsv").write_text("d1\tp\nd2\tp\n", encoding="utf-8")
    return folder


def make_deep_settings(data: Path) -> Path:
    folder = _demo_copy(data, "deep")
    (folder / "train_settings.json").write_text(
        '{"dim": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    return folder


def make_latin1_folder(data: Path) -> Path:
    return _demo_copy(data, os.fsdecode(b"caf\xe9"))


def make_model(data: Path) -> Path:
    """A small model of the demo (trained by this code), for the cases that open one."""
    from expert_gui.cli import main

    model = data / "model"
    if (model / "manifest.json").exists():
        return model
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["train", str(DEMO), "--out", str(model), "--dim", "16", "--epochs", "1",
                     "--threads", "1"]) == 0
    return model


def make_huge_int(data: Path) -> Path:
    model = data / "model-int"
    shutil.copytree(make_model(data), model)
    manifest = model / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace(
        '"format_version": 2', '"format_version": ' + "9" * 5_000, 1), encoding="utf-8")
    return model


def make_quote_swallow(data: Path) -> Path:
    path = data / "swallow.csv"
    path.write_text('id,text,people\nd1,"Quoted title, first,Ann Archer\nd2,second doc,Bob Baker\n'
                    'd3,ends with a quote",Cid Cole\nd4,fourth,Dan Dale\n', encoding="utf-8")
    return path


# -- the cases: (item, what, make, command) -------------------------------------------------------
# A command is the CLI's arguments, {input} the input; "home" runs it with EXPERT_GUI_HOME a file.
CASES = {
    "xlsx-empty-rows": ("1", "8 MB .xlsx: 4 GB of empty <row/>", make_empty_rows,
                        ["stats", "--no-cache", "{input}"]),
    "xlsx-huge-string": ("1", ".xlsx: one shared string of 2 GB", make_huge_string,
                         ["stats", "--no-cache", "{input}"]),
    "xlsx-sparse": ("2", ".xlsx: cells in XFD1 and A1048576", make_sparse,
                    ["stats", "--no-cache", "{input}"]),
    "xlsx-far-cells": ("2", ".xlsx: 200,000 rows, each with a cell in XFD", make_far_cells,
                       ["stats", "--no-cache", "{input}"]),
    "gz-blank-lines": ("3", "documents.tsv.gz: 10^9 empty lines", make_blank_lines,
                       ["stats", "--no-cache", "{input}"]),
    "tsv-blank-lines": ("3", "documents.tsv: 10^8 empty lines (100 MB)", make_plain_blank_lines,
                        ["stats", "--no-cache", "{input}"]),
    "xlsx-big-cell": ("4", ".xlsx: one 100 MB cell", make_big_cell,
                      ["stats", "--no-cache", "{input}"]),
    "csv-quoted-field": ("4", "CSV: a 100 MB quoted field over 1,000 lines", make_quoted_field,
                         ["stats", "--no-cache", "{input}"]),
    "train-dim": ("5", "train --dim 1000000000", lambda data: DEMO,
                  ["train", "{input}", "--out", "{tmp}/m", "--epochs", "1", "--dim",
                   "1000000000"]),
    "train-window": ("5", "train --window 100000000", lambda data: DEMO,
                     ["train", "{input}", "--out", "{tmp}/m", "--epochs", "1", "--window",
                      "100000000"]),
    "settings-deep": ("5", "train_settings.json 100,000 deep", make_deep_settings,
                      ["train", "{input}", "--out", "{tmp}/m", "--epochs", "1", "--dim", "16",
                       "--threads", "1"]),
    "path-latin1": ("6", "a Latin-1 folder name", make_latin1_folder,
                    ["stats", "--no-cache", "{input}"]),
    "manifest-int": ("7", "manifest: a 5,000-digit integer", make_huge_int,
                     ["query", "{input}", "solar cells"]),
    "rename-eio": ("8", "EIO renaming manifest.json", lambda data: DEMO,
                   ["train", "{input}", "--out", "{tmp}/m", "--epochs", "1", "--dim", "16",
                    "--threads", "1", "--fail-rename"]),
    "screenshot-home": ("9", "--screenshot, EXPERT_GUI_HOME a file", lambda data: DEMO,
                        ["--screenshot", "{tmp}/shots", "home"]),
    "rank-missing-folder": ("10", "rank --run into a missing folder", make_model,
                            ["rank", "{input}", "--topics", str(DEMO / "topics.tsv"), "--run",
                             "{tmp}/missing/out.run"]),
    "csv-quote": ("11", "CSV: a title opening with a quote", make_quote_swallow,
                  ["stats", "--no-cache", "{input}"]),
}


sys.path.insert(0, str(Path(__file__).resolve().parent))
HOOKS = {}
for _module in ("hostile_43_store", "hostile_43_records", "hostile_43_text"):
    _cases = __import__(_module)
    CASES.update(_cases.CASES)
    HOOKS.update(_cases.HOOKS)


# -- one side's run, in its own process ------------------------------------------------------------
def run_case(tree: Path, args: list[str]) -> None:
    """Run the CLI of the code in `tree`; print one JSON line: what it said."""
    sys.path.insert(0, str(tree))
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    if "--fail-rename" in args:
        args = [a for a in args if a != "--fail-rename"]
        real = os.replace

        def replace(src, dst):  # the kernel's EIO, for the swap of a model's manifest
            if Path(dst).name == "manifest.json":
                raise OSError(5, os.strerror(5), str(src))
            return real(src, dst)

        os.replace = replace
    for flag, install in HOOKS.items():
        if flag in args:
            args = [a for a in args if a != flag]
            install()
    from expert_gui.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
        lines = [x.strip() for x in (err.getvalue() + out.getvalue()).splitlines()
                 if x.strip() and "propagateSizeHints" not in x and " ERROR " not in x]
        read = [x for x in lines if x.startswith("documents:")][:1]  # what stats read
        problems = lines[lines.index("Problems") + 1:][:1] if "Problems" in lines else []
        said = f"exit {code}: " + "; ".join(read + (problems or lines[-1:]))
    except BaseException as exc:  # what the issue saw: a traceback
        said = f"traceback: {type(exc).__name__}: {exc}"
    print(json.dumps({"said": said[:300], "peak_mb": peak_mb(os.getpid())}),
          file=sys.__stdout__, flush=True)


def peak_mb(pid: int) -> float:
    """A process's peak resident memory so far (Linux's VmHWM), in MB; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            return next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration, ValueError):
        return 0.0


def measured(tree: Path, args: list[str], home: str, limit: int, timeout: float) -> dict:
    """Run one side under `prlimit --as` and the timeout: what it said, its wall time and its
    peak resident memory."""
    env = dict(os.environ, EXPERT_GUI_HOME=home, PYTHONHASHSEED="0")
    command = ["prlimit", f"--as={limit}", sys.executable, __file__, "--run", str(tree), "--",
               *args]
    start = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    killed, peak = False, 0.0
    while proc.poll() is None:
        peak = max(peak, peak_mb(proc.pid))
        if time.monotonic() - start > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            killed = True
            proc.wait()
            break
        time.sleep(0.05)
    wall = time.monotonic() - start
    said = ""
    for line in proc.stdout.read().decode(errors="replace").splitlines():
        with contextlib.suppress(ValueError, KeyError):
            result = json.loads(line)
            said, peak = result["said"], max(peak, result["peak_mb"])
    if killed:
        said = f"killed after {timeout:g} s (not finished)"
    elif not said:
        said = f"died (status {proc.returncode}; the memory limit?)"
    return {"said": said, "wall_s": wall, "peak_mb": peak}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, required=True,
                        help="the code before the issue (git archive main expert_gui resources)")
    parser.add_argument("--limit-gb", type=float, default=4.0,
                        help="address-space limit of each run, GiB (default 4)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds before a run is killed (default 60)")
    parser.add_argument("--cases", nargs="*", choices=sorted(CASES), default=list(CASES))
    args = parser.parse_args()
    os.environ["EXPERT_GUI_HOME"] = tempfile.mkdtemp(prefix="hostile-home-")
    data = Path(tempfile.mkdtemp(prefix="hostile-inputs-"))
    limit = int(args.limit_gb * GB)
    rows = []
    try:
        for name in args.cases:
            item, what, make, command = CASES[name]
            started = time.monotonic()
            path = make(data)
            size = sum(f.stat().st_size for f in ([path] if path.is_file() else path.rglob("*"))
                       if f.is_file())
            print(f"{name}: input {size / MB:.2f} MB, made in {time.monotonic() - started:.0f} s",
                  file=sys.stderr)
            sides = {}
            for side, tree in (("old", args.old.resolve()), ("new", REPO)):
                tmp = Path(tempfile.mkdtemp(prefix=f"hostile-{side}-"))
                home = str(tmp / "home")
                if "home" in command:
                    Path(home).write_text("a file where the home folder should be")
                argv = [a.format(input=path, tmp=tmp) for a in command if a != "home"]
                sides[side] = measured(tree, argv, home, limit, args.timeout)
                print(f"  {side}: {sides[side]}", file=sys.stderr)
                shutil.rmtree(tmp, ignore_errors=True)
            rows.append((item, what, size, sides))
    finally:
        shutil.rmtree(data, ignore_errors=True)
    print(f"\nEach run under prlimit --as={args.limit_gb:g}G, killed after {args.timeout:g} s; "
          "peak = the process's VmHWM\n")
    print("| item | input | size | before: outcome | time | peak | now: outcome | time | peak |")
    print("|---|---|---|---|---|---|---|---|---|")
    for item, what, size, sides in rows:
        cells = []
        for side in ("old", "new"):
            r = sides[side]
            cells += [r["said"].replace("|", "/")[:140], f"{r['wall_s']:.1f} s",
                      f"{r['peak_mb']:,.0f} MB"]
        print(f"| {item} | {what} | {size / MB:,.2f} MB | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--run":
        run_case(Path(sys.argv[2]), sys.argv[4:])
    else:
        sys.exit(main())
