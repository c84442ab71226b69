"""Issue 43's hostile inputs: names, dates, paths, marks and the cache (items 7, 8, 11, 12, 13).

Run by hostile_inputs.py: CASES as its own (item, what, make, command); HOOKS maps a flag of
the command to a function that installs a failure in the process before the CLI runs. The
inputs are made by tests/hostile_text_files.py (the tests read the same ones). The cache's
hooks run their loads (other processes, killed or at once) before the command, and the command
then says what the cache's folder holds besides the caches.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "resources" / "demo"
EXPORTS = REPO / "tests" / "fixtures" / "collections" / "exports"
sys.path.insert(0, str(REPO / "tests"))
# The harness sizes and removes each input with Python's recursive walks, which a folder nested
# 1,000 deep takes past the default limit; each side's own run is given the default back
# (`_python_defaults`), the limit the app runs under.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))


def _made(name: str, **kwargs):
    """The generator `name` of hostile_text_files, writing into a folder of its own."""
    def make(data: Path) -> Path:
        import hostile_text_files

        folder = data / f"text-{name}"
        folder.mkdir(exist_ok=True)
        return getattr(hostile_text_files, f"make_{name}")(folder, **kwargs)
    return make


def _copy(source: Path, name: str):
    def make(data: Path) -> Path:
        target = data / name
        if not target.exists():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("topics.tsv"))
        return target
    return make


# -- hooks: run in the side's own process, with its own code, before the CLI --------------------
def _input() -> str:
    return sys.argv[-1]  # every case's command ends with its input


def _load_code() -> str:
    return ("import sys, time\nfrom expert_gui.core.data.loading import load_collection\n"
            "def progress(event):\n    if sys.argv[2] == 'hold':\n"
            "        print('reading', flush=True)\n        time.sleep(600)\n"
            "load_collection(sys.argv[1], progress=progress)\nprint('loaded', flush=True)\n")


def _children(mode: str, n: int) -> list[subprocess.Popen]:
    env = dict(os.environ, PYTHONPATH=sys.path[0])  # this side's tree
    return [subprocess.Popen([sys.executable, "-c", _load_code(), _input(), mode],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                             cwd=Path(os.environ["EXPERT_GUI_HOME"]).parent) for _ in range(n)]


def _say_leftovers(before: str = "") -> None:
    """After the command: what the caches' folder holds besides the caches themselves."""
    import expert_gui.cli

    real = expert_gui.cli.main

    def main(args):
        code = real(args)
        from expert_gui.core.paths import cache_dir

        root = cache_dir() / "collections"
        left = [p for p in os.listdir(root) if len(p) != 24] if root.exists() else []
        print(f"{before}beside the caches after it: {len(left)} "
              f"({', '.join(sorted(left)[:3])})")
        return code

    expert_gui.cli.main = main


def _left_old() -> None:
    """A first load, then its cache damaged and a `.old` beside it (a race lost before)."""
    from expert_gui.core.data.loading import collection_cache, load_collection

    cached = collection_cache(load_collection(_input()).fingerprint)
    (cached / "xxh3").write_text("0" * 32, encoding="ascii")
    aside = cached.with_name(cached.name + ".old")
    aside.mkdir()
    (aside / "collection.json").write_text("{}", encoding="utf-8")
    _say_leftovers()


def _killed() -> None:
    """Five loads killed (SIGKILL) while reading, before the command's."""
    for child in _children("hold", 5):
        child.stdout.readline()
        child.send_signal(signal.SIGKILL)
        child.wait()
    _say_leftovers("5 loads killed while reading; ")


def _at_once() -> None:
    """Eight first loads of one collection at once, before the command's."""
    children = _children("go", 8)
    failed = sum(child.wait() != 0 for child in children)
    _say_leftovers(f"{failed} of 8 loads at once failed; ")


def _python_defaults() -> None:
    """Python's own recursion limit for the side's run (this module raised it)."""
    sys.setrecursionlimit(1_000)


def _deleted() -> None:
    """The exports reader lists its folder, then a file is deleted before it is read."""
    from expert_gui.core.data.formats import exports

    real, calls = exports.exports, []

    def listed(path, skipped=None):
        files = real(path, skipped)
        calls.append(1)
        if len(calls) == 2:  # the reader's listing, not the cache key's
            files[0][0].unlink()
        return files

    exports.exports = listed


CASES = {
    "43-openalex-pmid": ("8", "OpenAlex: a PMID of 1 MB of digits", _made("openalex_pmid"),
                         ["stats", "--no-cache", "{input}"]),
    "43-ads-affiliation": ("8", "ADS: 1 MB of affiliations never closed",
                           _made("ads_affiliation"), ["stats", "--no-cache", "{input}"]),
    "43-springer-names": ("8", "SpringerLink: 1 MB of names run together",
                          _made("springer_authors"), ["stats", "--no-cache", "{input}"]),
    "43-initials": ("8", ".enw: one family, 8,192 spellings of initials", _made("initials"),
                    ["stats", "--no-cache", "{input}"]),
    "43-long-family": ("8", ".enw: a family name of 60,000 letters", _made("long_family"),
                       ["stats", "--no-cache", "{input}"]),
    "43-deep-folder": ("11", "a folder nested 1,000 deep", _made("deep_folder"),
                       ["stats", "--no-cache", "--text-python-defaults", "{input}"]),
    "43-link-loop": ("11", "two links leading to each other", _made("link_loop"),
                     ["stats", "--no-cache", "{input}"]),
    "43-loop-named": ("11", "a link that loops, opened", _made("loop_named"),
                      ["stats", "--no-cache", "{input}"]),
    "43-deleted": ("11", "an export deleted while its folder loads", _copy(EXPORTS, "exports"),
                   ["stats", "--no-cache", "--text-deleted", "{input}"]),
    "43-long-date": ("11", ".enw: a date of 5,000 digits after the year", _made("long_date"),
                     ["stats", "--no-cache", "{input}"]),
    "43-marks": ("12", "NFD, Devanagari, Thai, a ligature", _made("nfd_text"),
                 ["stats", "--no-cache", "{input}"]),
    "43-nameless": ("13", ".enw: authors '?', '--', '*, *'", _made("nameless"),
                    ["stats", "--no-cache", "{input}"]),
    "43-cache-old": ("7", "a damaged cache and a .old beside it", _copy(DEMO, "demo-old"),
                     ["stats", "--text-left-old", "{input}"]),
    "43-cache-killed": ("7", "5 loads killed while reading, then one", _copy(DEMO, "demo-kill"),
                        ["stats", "--text-killed", "{input}"]),
    "43-cache-at-once": ("7", "8 first loads at once, then one", _copy(DEMO, "demo-race"),
                         ["stats", "--text-at-once", "{input}"]),
}
HOOKS = {"--text-left-old": _left_old, "--text-killed": _killed, "--text-at-once": _at_once,
         "--text-deleted": _deleted, "--text-python-defaults": _python_defaults}
