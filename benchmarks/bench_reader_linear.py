"""Is every reader linear in the length of one field? Each reader (every tagged, JSON, XML,
BibTeX and table kind) is fed one record whose field (an abstract, or the field a reader once
took quadratic time over: ADS's affiliations, OpenAlex's PMID, SpringerLink's run-together
authors) holds 1 MB, then 16 MB (just under the record cap of 16 MiB, so it is read), and the
ratio of the two load times is printed: linear is about 16, at most ~20; quadratic is about 256.
`python benchmarks/bench_reader_linear.py [--kinds K ...] [--small MB] [--big MB] [--repeat N]
[--timeout S]`

Each load runs in a process of its own (`load_collection`, no cache), after a load of the same
kind with a field of 100 characters (so imports and first calls are not timed), the fastest of
`--repeat` loads, in CPU seconds of the process (`time.process_time`: on a busy machine wall
time measures the other processes too), killed at the timeout: a quadratic reader shows as "> timeout". Fields that a
tagged format continues over lines are written in 86-character lines, as exporters wrap them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MB = 1_000_000
WORDS = "ring buffer lockless queue mempool cache "


def _text(size: int) -> str:
    return (WORDS * (size // len(WORDS) + 1))[:size].strip()


def _wrapped(size: int, indent: str = "") -> str:
    """A field of `size` characters in lines of 86, each after the first starting with
    `indent` (MEDLINE's six spaces, Web of Science's three)."""
    return ("\n" + indent).join(textwrap.wrap(_text(size), 86, break_on_hyphens=False))


def _json(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _xml(size: int) -> str:
    return _text(size)  # words and spaces: nothing to escape


# name: (file name, the file's text given the field's size)
KINDS = {
    "ris": ("refs.ris", lambda n: "TY  - JOUR\nTI  - Ring buffers\nAU  - Archer, Ann\nAB  - "
            + _wrapped(n) + "\nER  - \n"),
    "medline": ("pubmed.nbib", lambda n: "PMID- 1\nTI  - Ring buffers\nAB  - "
                + _wrapped(n, "      ") + "\nFAU - Archer, Ann\nAU  - Archer A\n\n"),
    "wos": ("savedrecs.txt", lambda n: "FN Clarivate Analytics Web of Science\nVR 1.0\nPT J\n"
            "AU Archer, A\nAF Archer, Ann\nTI Ring buffers\nAB " + _wrapped(n, "   ")
            + "\nUT WOS:1\nER\n\nEF\n"),
    "endnote-tagged": ("refs.enw", lambda n: "%0 Journal Article\n%T Ring buffers\n"
                       "%A Archer, Ann\n%X " + _wrapped(n) + "\n"),
    "ads-abstract": ("ads.txt", lambda n: "%R 2019ApJ...875...75T\n%T Ring buffers\n"
                     "%A Archer, A.\n%B " + _wrapped(n) + "\n"),
    "ads-affiliation": ("ads.txt", lambda n: "%R 2019ApJ...875...75T\n%T Ring buffers\n"
                        "%A Archer, A.\n%F AA(" + _wrapped(n) + ")\n%B Ring buffers\n"),
    "refworks": ("refworks.txt", lambda n: "RT Journal Article\nT1 Ring buffers\n"
                 "A1 Archer, Ann\nAB " + _wrapped(n) + "\n"),
    "cnki": ("cnki.txt", lambda n: "SrcDatabase-来源库: 期刊\nTitle-题名: 环形缓冲\n"
             "Author-作者: 王娜;\nSummary-摘要: " + _wrapped(n) + "\n"),
    "noteexpress": ("noteexpress.txt", lambda n: "{Reference Type}: Journal Article\n"
                    "{Title}: Ring buffers\n{Author}: Archer, Ann\n{Abstract}: "
                    + _wrapped(n) + "\n"),
    "bibtex": ("refs.bib", lambda n: "@article{a, title={Ring buffers}, author={Archer, Ann},\n"
               "abstract={" + _wrapped(n) + "}}\n"),
    "csl-json": ("library.json", lambda n: _json([{
        "type": "article-journal", "title": "Ring buffers", "abstract": _text(n),
        "author": [{"family": "Archer", "given": "Ann"}]}])),
    "crossref": ("crossref.json", lambda n: _json({
        "message-type": "work-list", "message": {"items": [{
            "DOI": "10.1234/x", "title": ["Ring buffers"], "abstract": _text(n),
            "author": [{"given": "Ann", "family": "Archer"}]}]}})),
    "openalex": ("openalex.json", lambda n: _json({"results": [{
        "id": "https://openalex.org/W1", "title": _text(n),
        "authorships": [{"author": {"display_name": "Ann Archer"}}]}]})),
    "openalex-pmid": ("openalex.json", lambda n: _json({"results": [{
        "id": "https://openalex.org/W1", "title": "Ring buffers", "ids": {"pmid": "1" * n + "x"},
        "authorships": [{"author": {"display_name": "Ann Archer"}}]}]})),
    "pubmed-xml": ("pubmed.xml", lambda n: "<PubmedArticleSet><PubmedArticle><MedlineCitation>"
                   "<PMID>1</PMID><Article><ArticleTitle>Ring buffers</ArticleTitle><Abstract>"
                   f"<AbstractText>{_xml(n)}</AbstractText></Abstract><AuthorList><Author>"
                   "<LastName>Archer</LastName><ForeName>Ann</ForeName></Author></AuthorList>"
                   "</Article></MedlineCitation></PubmedArticle></PubmedArticleSet>\n"),
    "endnote-xml": ("endnote.xml", lambda n: "<xml><records><record><contributors><authors>"
                    "<author><style>Archer, Ann</style></author></authors></contributors>"
                    "<titles><title><style>Ring buffers</style></title></titles><abstract>"
                    f"<style>{_xml(n)}</style></abstract></record></records></xml>\n"),
    "zotero-rdf": ("library.rdf", lambda n: (
        '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        'xmlns:z="http://www.zotero.org/namespaces/export#" '
        'xmlns:bib="http://purl.org/net/biblio#" xmlns:foaf="http://xmlns.com/foaf/0.1/" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/">\n<bib:Article rdf:about="#item_1">'
        "<z:itemType>journalArticle</z:itemType><bib:authors><rdf:Seq><rdf:li><foaf:Person>"
        "<foaf:surname>Archer</foaf:surname><foaf:givenName>Ann</foaf:givenName>"
        f"</foaf:Person></rdf:li></rdf:Seq></bib:authors><dc:title>{_xml(n)}</dc:title>"
        "</bib:Article>\n</rdf:RDF>\n")),
    "table-csv": ("documents.csv", lambda n: "title,abstract,authors\nRing buffers,"
                  f'"{_wrapped(n)}",Ann Archer\n'),
    "springerlink-csv": ("SearchResults.csv", lambda n: "Item Title,Publication Title,Item DOI,"
                         "Authors,Publication Year,Content Type\nRing buffers,Journal,"
                         '10.1234/x,"' + ("Justice Opara-MartinsReza Sahandi" * (n // 34 + 1))[:n]
                         + '",2016,Article\n'),
    "tsv-folder": ("folder", None),
    "jsonl-folder": ("folder-jsonl", None),
}


def make(kind: str, size: int, folder: Path) -> Path:
    name, text = KINDS[kind]
    if kind == "tsv-folder":
        path = folder / name
        path.mkdir()
        (path / "documents.tsv").write_text(f"d1\t{_text(size)}\n", encoding="utf-8")
        (path / "associations.tsv").write_text("d1\tann\n", encoding="utf-8")
        return path
    if kind == "jsonl-folder":
        path = folder / name
        path.mkdir()
        (path / "documents.jsonl").write_text(
            _json({"id": "d1", "text": _text(size), "people": ["ann"]}) + "\n", encoding="utf-8")
        return path
    path = folder / name
    path.write_text(text(size), encoding="utf-8")
    return path


def timed(warm: Path, path: Path, repeat: int, timeout: float) -> str:
    """CPU seconds the fastest of `repeat` loads of `path` takes in a process of its own after
    a load of `warm`, or "> timeout" (wall seconds)."""
    code = ("import sys, time, json\nfrom expert_gui.core.data.loading import load_collection\n"
            "load_collection(sys.argv[2], use_cache=False)\nbest = float('inf')\n"
            "for _ in range(int(sys.argv[3])):\n    t = time.process_time()\n"
            "    c = load_collection(sys.argv[1], use_cache=False)\n"
            "    best = min(best, time.process_time() - t)\n"
            "print(json.dumps([best, c.n_documents, "
            "sorted({p.kind for p in c.report.problems})]))\n")
    env = dict(os.environ, PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen")
    try:
        out = subprocess.run([sys.executable, "-c", code, str(path), str(warm), str(repeat)],
                             capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return f"> {timeout:g}"
    if out.returncode != 0:
        return "error: " + (out.stderr.strip().splitlines() or ["?"])[-1][:80]
    seconds, documents, problems = json.loads(out.stdout.strip().splitlines()[-1])
    note = f" ({documents} doc{'s' * (documents != 1)}" + (
        f"; {', '.join(problems)})" if problems else ")")
    return f"{seconds:.2f}{note}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="*", choices=list(KINDS), default=list(KINDS))
    parser.add_argument("--small", type=float, default=1.0, help="the small field, MB")
    parser.add_argument("--big", type=float, default=16.0, help="the big field, MB (default "
                        "16: under the cap of 16 MiB)")
    parser.add_argument("--repeat", type=int, default=3, help="loads of each, the fastest "
                        "taken (default 3)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per process")
    args = parser.parse_args()
    sizes = (int(args.small * MB), int(args.big * MB))
    print(f"load average {os.getloadavg()[0]:.2f}; fields of {sizes[0]:,} and {sizes[1]:,} "
          f"characters; the fastest of {args.repeat} loads in a process of its own, killed after "
          f"{args.timeout:g} s\n")
    print(f"| reader | {args.small:g} MB: CPU s | {args.big:g} MB: CPU s | ratio |")
    print("|---|---|---|---|")
    for kind in args.kinds:
        times = []
        for size in sizes:
            with tempfile.TemporaryDirectory(prefix="linear-") as folder:
                (Path(folder) / "warm").mkdir()
                warm = make(kind, 100, Path(folder) / "warm")
                started = time.monotonic()
                times.append(timed(warm, make(kind, size, Path(folder)), args.repeat,
                                   args.timeout))
                print(f"{kind} {size:,}: {times[-1]} ({time.monotonic() - started:.0f} s in all)",
                      file=sys.stderr)
        try:
            ratio = f"{float(times[1].split()[0]) / float(times[0].split()[0]):.1f}"
        except ValueError:
            ratio = "-"
        print(f"| {kind} | {times[0]} | {times[1]} | {ratio} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
