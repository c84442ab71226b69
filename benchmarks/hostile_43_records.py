"""Issue 43's hostile inputs: records: streaming, the record cap, RefWorks, byte-order marks (items 5, 6, 8, 9, 13).

Run by hostile_inputs.py: CASES as its own (item, what, make, command); HOOKS maps a flag of
the command to a function that installs a failure in the process before the CLI runs.
"""

from __future__ import annotations

import codecs
import json
import os
import textwrap
from pathlib import Path

MB = 1 << 20
_WORDS = "ring buffer lockless queue mempool cache "


def _text(size: int) -> str:
    return (_WORDS * (size // len(_WORDS) + 1))[:size]


def _write_big(path: Path, head: str, size: int, tail: str, unit: str = _WORDS) -> Path:
    """`head`, `unit` repeated to about `size` characters, then `tail`, a megabyte at a time."""
    block = unit * (MB // len(unit))
    with open(path, "w", encoding="utf-8") as f:
        f.write(head)
        for _ in range(size // len(block)):
            f.write(block)
        f.write(tail)
    return path


def _works(n: int, bad: dict[int, str]) -> list[str]:
    return [f'{{"DOI":"10.1234/w{i}","title":["Work {i} on ring buffers"],"author":[{{"given":'
            f'"Ann","family":"Archer{i}"}}]' + ("," + bad[i] if i in bad else "") + "}"
            for i in range(n)]


def make_minified_first(data: Path) -> Path:
    path = data / "crossref-first.json"
    items = _works(1_000, {0: '"volume":1234567890123456789012345'})
    path.write_text('{"message-type":"work-list","message":{"items":[' + ",".join(items)
                    + "]}}", encoding="utf-8")
    return path


def make_minified_middle(data: Path) -> Path:
    path = data / "openalex-middle.json"
    works = [{"id": f"https://openalex.org/W{i}", "title": f"Work {i} on ring buffers",
              "authorships": [{"author": {"display_name": f"Ann Archer{i}"}}]}
             for i in range(1_000)]
    text = json.dumps({"meta": {"count": 1_000}, "results": works}, separators=(",", ":"))
    path.write_text(text.replace('"title":"Work 500 on', '"x":NaN,"title":"Work 500 on')
                    .replace('"title":"Work 700 on', '"id":"dup","title":"Work 700 on'),
                    encoding="utf-8")
    return path


def make_refworks_lower(data: Path) -> Path:
    path = data / "CNKI.txt"
    path.write_text("RT Journal Article\nA1 Archer, Ann\nT1 Ring buffers\nvo 7\n\n"
                    "rt Journal Article\nA1 Baker, Bob\nT1 Lockless queues\nvo 8\n",
                    encoding="utf-8")
    return path


def make_ris_continued(data: Path) -> Path:
    path = data / "continued.ris"
    lines = "\n".join(textwrap.wrap(_text(4 * MB), 86, break_on_hyphens=False))
    path.write_text(f"TY  - JOUR\nTI  - Ring buffers\nAU  - Archer, Ann\nAB  - {lines}\n"
                    "ER  - \n", encoding="utf-8")
    return path


def make_medline_continued(data: Path) -> Path:
    path = data / "continued.nbib"
    line = "      " + _WORDS * 2 + "\n"
    return _write_big(path, "PMID- 1\nTI  - Ring buffers\nFAU - Archer, Ann\nAB  - first line\n",
                      40 * MB, "\nPMID- 2\nTI  - Lockless queues\nFAU - Baker, Bob\n", line)


def make_xml_token(data: Path) -> Path:
    path = data / "token.xml"
    return _write_big(path, '<?xml version="1.0"?>\n<PubmedArticleSet>\n<PubmedArticle><Medline'
                      "Citation><PMID>1</PMID><Article><ArticleTitle>Ring buffers</ArticleTitle>"
                      "<AuthorList><Author><LastName>Archer</LastName><ForeName>Ann</ForeName>"
                      "</Author></AuthorList></Article></MedlineCitation></PubmedArticle>\n"
                      '<PubmedArticle x="', 100 * MB, '"></PubmedArticle></PubmedArticleSet>\n',
                      "a" * 1024)


def make_json_abstract(data: Path) -> Path:
    path = data / "crossref-big.json"
    items = _works(3, {})
    return _write_big(path, '{"message-type":"work-list","message":{"items":[' + items[0] + ","
                      + items[1][:-1] + ',"abstract":"', 40 * MB, '"},' + items[2] + "]}}")


def make_bibtex_field(data: Path) -> Path:
    path = data / "big.bib"
    return _write_big(path, "@article{a, title={Ring buffers}, author={Archer, Ann}}\n"
                      "@article{b, title={Lockless queues}, author={Baker, Bob},\nabstract={",
                      40 * MB, "}}\n@article{c, title={Mempool caches}, author={Cole, Cid}}\n",
                      _WORDS * 2 + "\n")


def make_zotero_title(data: Path) -> Path:
    path = data / "library.rdf"
    item = ('<bib:Article rdf:about="#item_{0}"><z:itemType>journalArticle</z:itemType>'
            "<bib:authors><rdf:Seq><rdf:li><foaf:Person><foaf:surname>Archer</foaf:surname>"
            "<foaf:givenName>Ann</foaf:givenName></foaf:Person></rdf:li></rdf:Seq></bib:authors>"
            "<dc:title>{1}</dc:title></bib:Article>\n")
    return _write_big(path, '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                      'xmlns:z="http://www.zotero.org/namespaces/export#" '
                      'xmlns:bib="http://purl.org/net/biblio#" '
                      'xmlns:foaf="http://xmlns.com/foaf/0.1/" '
                      'xmlns:dc="http://purl.org/dc/elements/1.1/">\n'
                      + item.format(1, "Ring buffers")
                      + item.format(2, "").removesuffix("</dc:title></bib:Article>\n"),
                      300 * MB, "</dc:title></bib:Article>\n" + item.format(3, "Lockless queues")
                      + "</rdf:RDF>\n")


def make_two_boms(data: Path) -> Path:
    path = data / "twice.ris"
    path.write_bytes(codecs.BOM_UTF8 * 2 + b"TY  - JOUR\nTI  - Ring buffers\nAU  - Archer, Ann\n"
                     b"ER  - \n")
    return path


def make_unreadable(data: Path) -> Path:
    folder = data / "unreadable"
    folder.mkdir()
    (folder / "refs.ris").write_text("TY  - JOUR\nTI  - Ring buffers\nAU  - Archer, Ann\n"
                                     "ER  - \n", encoding="utf-8")
    (folder / "savedrecs.txt").write_text("PT J\nAU Baker, B\nTI Lockless queues\nER\n",
                                          encoding="utf-8")
    return folder


def make_external_entity(data: Path) -> Path:
    path = data / "entity.xml"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE PubmedArticleSet [<!ENTITY e SYSTEM '
                    '"file:///etc/hostname">]>\n<PubmedArticleSet>\n<PubmedArticle>'
                    "<MedlineCitation><PMID>1</PMID><Article><ArticleTitle>Ring &e; buffers"
                    "</ArticleTitle><AuthorList><Author><LastName>Archer</LastName><ForeName>Ann"
                    "</ForeName></Author></AuthorList></Article></MedlineCitation></PubmedArticle>"
                    "\n</PubmedArticleSet>\n", encoding="utf-8")
    return path


def _deny_savedrecs() -> None:
    """Opening a file named savedrecs.txt fails as a file without read permission does (the
    runs may be root's, whom permissions do not stop)."""
    real = os.open

    def refuse(path, flags, *args, **kwargs):
        if os.fspath(path).endswith("savedrecs.txt"):
            raise PermissionError(13, os.strerror(13), os.fspath(path))
        return real(path, flags, *args, **kwargs)

    os.open = refuse


_STATS = ["stats", "--no-cache", "{input}"]
CASES: dict = {
    "json-minified-first": ("5", "minified Crossref: a 25-digit integer in item 1 of 1,000",
                            make_minified_first, _STATS),
    "json-minified-middle": ("5", "minified OpenAlex: NaN in item 501, a repeated key in 701 "
                             "of 1,000", make_minified_middle, _STATS),
    "refworks-lower-rt": ("6", "RefWorks: the second record starts 'rt'", make_refworks_lower,
                          _STATS),
    "ris-continued": ("8", "RIS: a 4 MB abstract in 86-character lines", make_ris_continued,
                      _STATS),
    "medline-continued": ("8, 9", "MEDLINE: a 40 MB abstract continued over lines",
                          make_medline_continued, _STATS),
    "xml-long-token": ("8", "PubMed XML: a 100 MB attribute (one token)", make_xml_token,
                       _STATS),
    "json-big-abstract": ("9", "Crossref: a 40 MB abstract in item 2 of 3", make_json_abstract,
                          _STATS),
    "bibtex-big-field": ("9", "BibTeX: a 40 MB abstract over lines in entry 2 of 3",
                         make_bibtex_field, _STATS),
    "zotero-big-title": ("9", "Zotero RDF: a 300 MB title in item 2 of 3", make_zotero_title,
                         _STATS),
    "two-boms": ("13", ".ris opening with two UTF-8 byte-order marks", make_two_boms, _STATS),
    "unreadable-file": ("13", "a folder of exports, one not readable", make_unreadable,
                        [*_STATS, "--deny-savedrecs"]),
    "external-entity": ("13", "PubMed XML: an external entity in a title",
                        make_external_entity, _STATS),
}
HOOKS: dict = {"--deny-savedrecs": _deny_savedrecs}
