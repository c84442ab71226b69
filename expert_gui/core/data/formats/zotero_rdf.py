"""Zotero RDF (File > Export Library > Zotero RDF, `.rdf`): RDF/XML whose top-level elements are
the library's items (`bib:Article`, `bib:BookSection`, `bib:Document`, a bare `rdf:Description`
for a preprint ...), each with its `z:itemType`. Notes (`bib:Memo`), attachments, collections and
the journals items point to (`bib:Journal`, no item type) are not documents. Read with the
standard library (xmlrecords.py, by namespace: the prefixes are the writer's choice).

Text: `dc:title`, `dcterms:abstract`, `dc:subject` (tags); people: `foaf:Person`s
(`foaf:surname`, `foaf:givenName`; a surname alone is an organisation) under `bib:authors`, or
under the role Zotero writes for the first creators of other item types (`z:presenters`,
`z:podcasters`, `z:directors`, `z:artists`, `z:performers`, ...); editors, contributors and the
book's authors of a section are not authors. Given names that hold several people ("Magdalena
J. Zaborowska, Sibelan Forrester, Elena") are split, and reported. Id: `z:key`, else the item's
`rdf:about`; date `dc:date`; DOI a `dc:identifier` "DOI 10..."; journal, volume and pages from
`dcterms:isPartOf` (inline or by its `rdf:resource`), `prism:volume`, `bib:pages`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import Name, name_from_parts, parse_name
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, normal_doi
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.formats.xmlrecords import text_of, xml_records

NAME = "zotero-rdf"
RDF = "{http://www.w3.org/1999/02/22-rdf-syntax-ns#}"
Z = "{http://www.zotero.org/namespaces/export#}"
DC = "{http://purl.org/dc/elements/1.1/}"
DCTERMS = "{http://purl.org/dc/terms/}"
BIB = "{http://purl.org/net/biblio#}"
FOAF = "{http://xmlns.com/foaf/0.1/}"
PRISM = "{http://prismstandard.org/namespaces/1.2/basic/}"
_NOT_DOCUMENTS = frozenset({"note", "attachment", "annotation"})
# The roles whose people wrote the item: Zotero's first creator type of each item type.
_AUTHOR_ROLES = (BIB + "authors", *(Z + r for r in (
    "presenters", "podcasters", "directors", "artists", "performers", "programmers", "sponsors",
    "inventors", "interviewees", "cartographers", "composers")))


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "Zotero RDF", "Zotero RDF (.rdf)")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "Zotero RDF")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    items: list[tuple[ET.Element, int]] = []
    titles: dict[str, str] = {}  # rdf:about of a journal, book ... -> its title
    for element, line, _ in xml_records(path, (RDF + "RDF",), None, bibliography.report,
                                        progress, namespaces=True):
        kind = element.findtext(Z + "itemType", "").strip()
        if kind and kind not in _NOT_DOCUMENTS:
            items.append((element, line))
        elif not kind and element.get(RDF + "about"):
            titles[element.get(RDF + "about")] = text_of(element.find(DC + "title"))
    stem = path.name.split(".")[0]
    for element, line in items:  # the journals an item points to may come after it
        bibliography.add(_record(element, line, path, stem, titles, bibliography))


def _record(item: ET.Element, line: int, path: Path, stem: str, titles: dict[str, str],
            bibliography: Bibliography) -> Record:
    clean = bibliography.cleaner(path)
    title = clean(text_of(item.find(DC + "title")))
    tags = "; ".join(text_of(s) for s in item.iterfind(DC + "subject"))
    about = item.get(RDF + "about", "")
    doc_id = text_of(item.find(Z + "key")) or (f"{stem}:{about[1:]}" if about.startswith("#")
                                               else about) or f"{stem}:{line}"
    container = item.find(DCTERMS + "isPartOf")
    journal = ""
    if container is not None:
        journal = titles.get(container.get(RDF + "resource", ""), "") or \
            text_of(container.find("*/" + DC + "title"))
    return Record(
        file=str(path), line=line, id=doc_id, title=title,
        text=[title, clean(text_of(item.find(DCTERMS + "abstract"))), clean(tags)],
        authors=_authors(item, path, line, bibliography),
        date=loose_date(text_of(item.find(DC + "date"))),
        doi=next((d for e in item.iter(DC + "identifier") if (d := normal_doi(text_of(e)))), ""),
        pages=text_of(item.find(BIB + "pages")),
        volume=text_of(item.find(f".//{PRISM}volume")), journal=clean(journal))


def _authors(item: ET.Element, path: Path, line: int, bibliography: Bibliography) -> list[Author]:
    authors = []
    for role in _AUTHOR_ROLES:
        for person in item.iterfind(f"{role}//{FOAF}Person"):
            family = text_of(person.find(FOAF + "surname"))
            given = text_of(person.find(FOAF + "givenName")) or \
                text_of(person.find(FOAF + "givenname"))
            authors += [Author(n) for n in _names(family, given, path, line, bibliography)]
    return authors


def _names(family: str, given: str, path: Path, line: int,
           bibliography: Bibliography) -> list[Name]:
    """One person's name, or the several a given name holds ("Magdalena J. Zaborowska, Sibelan
    Forrester, Elena" with the surname "Gapova")."""
    pieces = [p.strip() for p in given.split(",")]
    if len(pieces) > 2 and all(pieces):
        names = [parse_name(p) for p in pieces[:-1]] + [name_from_parts(family, pieces[-1])]
        bibliography.report.add("name-repaired", path, line, f"one creator holds {len(pieces)} "
                                f"names, read as {len(pieces)} authors: {given!r} {family!r}")
        return [n for n in names if n is not None]
    name = name_from_parts(family, given.strip(" ,"))
    return [name] if name is not None else []
