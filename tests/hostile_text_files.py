"""Issue 43's hostile names, fields, dates, paths and marks as files (items 8, 11, 12, 13): each
`make_*` writes one into `folder` and returns its path. Shared by the tests and by
benchmarks/hostile_43_text.py; `size` scales each (about that many bytes of the hostile part).
"""

from __future__ import annotations

import itertools
import json
import os
import string
import unicodedata
from pathlib import Path

MB = 1 << 20


def _enw(path: Path, records: list[list[str]]) -> Path:
    path.write_text("\n\n".join("\n".join(r) for r in records) + "\n", encoding="utf-8")
    return path


def make_openalex_pmid(folder: Path, size: int = MB) -> Path:
    """OpenAlex: a PMID of `size` digits that ends in a letter (quadratic `\\d+$` search)."""
    work = {"id": "https://openalex.org/W1", "title": "Ring buffers", "ids": {
        "pmid": "1" * size + "x"}, "authorships": [{"author": {
            "id": "https://openalex.org/A1", "display_name": "Ann Archer"}}]}
    path = folder / "works.json"
    path.write_text(json.dumps({"results": [work]}), encoding="utf-8")
    return path


def make_ads_affiliation(folder: Path, size: int = MB) -> Path:
    """ADS tagged: an affiliation field of `size` bytes of "AA(x, " never closed."""
    return _enw(folder / "ads.txt", [["%R 2019ApJ...875...75T", "%T Ring buffers",
                                      "%A Archer, Ann", "%F " + "AA(x, " * (size // 6)]])


def make_springer_authors(folder: Path, size: int = MB) -> Path:
    """SpringerLink's CSV: one authors cell of `size` characters run together, a capital
    after every lower-case letter (a cut and a guess every two characters)."""
    path = folder / "SearchResults.csv"
    cell = "Ann " + "aB" * (size // 2)
    path.write_text('"Item Title","Item DOI","Authors","Content Type"\n'
                    f'"Ring buffers","10.1/x","{cell}","Article"\n'
                    '"Mempool caches","10.1/y","Bo Li","Article"\n', encoding="utf-8")
    return path


def make_initials(folder: Path, size: int = MB) -> Path:
    """EndNote tagged: one family with as many spellings of initials as fit `size` (8,000 in
    a megabyte), each beside a full spelling of that family."""
    letters = string.ascii_uppercase
    records = []
    for n, (a, b, c) in enumerate(itertools.islice(itertools.product(letters, repeat=3),
                                                   max(1, size // 128))):
        records.append(["%0 Journal Article", f"%T Ring buffer {n}",
                        f"%A Smith, A. {a}. {b}. {c}.",
                        f"%A Smith, A{(a + b + c).lower()}x {a}. {b}."])
    return _enw(folder / "initials.enw", records)


def make_long_family(folder: Path, size: int = 60_000) -> Path:
    """EndNote tagged: a family name of `size` letters, and one a letter apart (a variant per
    letter left out, each a different string)."""
    family = (string.ascii_lowercase * (size // 26 + 1))[:size]
    return _enw(folder / "family.enw", [
        ["%0 Journal Article", "%T Ring buffers", f"%A {family}, Ann"],
        ["%0 Journal Article", "%T Mempool caches", f"%A {family[:-1]}x, Ann"]])


def make_nameless(folder: Path, size: int = 0) -> Path:
    """EndNote tagged: three papers by authors whose names hold no letter or digit."""
    return _enw(folder / "nameless.enw", [
        ["%0 Journal Article", f"%T Paper {n}", f"%A {name}"]
        for n, name in enumerate(("?", "--", "*, *"))])


def make_nfd_text(folder: Path, size: int = 0) -> Path:
    """A folder collection written as macOS writes names (NFD), and Devanagari and Thai."""
    folder = folder / "marks"
    folder.mkdir()
    text = unicodedata.normalize("NFD", "résumé naïve café") + " हिन्दी भाषा ภาษาไทย ﬁnance"
    (folder / "documents.tsv").write_text(f"doc_id\ttext\nd1\t{text}\nd2\tring buffer\n",
                                          encoding="utf-8")
    (folder / "associations.tsv").write_text("d1\tann\nd2\tbo\n", encoding="utf-8")
    return folder


def _plain_text(folder: Path, name: str) -> Path:
    """A plain-text collection: one paper and its associations file."""
    folder = folder / name
    folder.mkdir()
    (folder / "paper.txt").write_text("ring buffers and mempool caches\n", encoding="utf-8")
    (folder / "associations.tsv").write_text("paper.txt\tann\n", encoding="utf-8")
    return folder


def make_deep_folder(folder: Path, size: int = 1_000) -> Path:
    """A plain-text collection with a folder nested `size` deep (a path of 2 x `size`
    characters), made level by level so that no path this long is ever named."""
    top = _plain_text(folder, "deep")
    here = os.open(top, os.O_RDONLY)
    try:
        for _ in range(size):
            os.mkdir("d", dir_fd=here)
            inner = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = inner
        fd = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(fd, b"a paper at the bottom\n")
        os.close(fd)
    finally:
        os.close(here)
    return top


def make_link_loop(folder: Path, size: int = 0) -> Path:
    """A plain-text collection holding two links that lead to each other."""
    top = _plain_text(folder, "loop")
    os.symlink("b", top / "a")
    os.symlink("a", top / "b")
    return top


def make_loop_named(folder: Path, size: int = 0) -> Path:
    """A link that loops, named as the collection itself."""
    os.symlink("self", folder / "self")
    return folder / "self"


def make_long_date(folder: Path, size: int = 5_000) -> Path:
    """EndNote tagged: a date of a year and `size` digits after it (past Python's limit of
    4,300 digits for `int`)."""
    return _enw(folder / "dates.enw", [["%0 Journal Article", "%T Ring buffers",
                                        "%A Archer, Ann", f"%D 2019/{'1' * size}"]])


def remove_deep(top: Path) -> None:
    """Remove a folder however deep it is nested (shutil.rmtree recurses once per level),
    from the bottom up, by file descriptors relative to each level."""
    if not top.exists():
        return
    fds = [os.open(top, os.O_RDONLY)]
    try:
        while True:
            inner = next((e.name for e in os.scandir(fds[-1])
                          if e.is_dir(follow_symlinks=False)), None)
            if inner is not None:
                fds.append(os.open(inner, os.O_RDONLY, dir_fd=fds[-1]))
                continue
            for entry in os.scandir(fds[-1]):
                os.unlink(entry.name, dir_fd=fds[-1])
            if len(fds) == 1:
                break
            os.close(fds.pop())
            for entry in os.scandir(fds[-1]):
                if entry.is_dir(follow_symlinks=False):
                    os.rmdir(entry.name, dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)
    os.rmdir(top)
