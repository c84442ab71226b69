"""PubMed XML (`PubmedArticleSet`, "Save > XML"): each `PubmedArticle` or `PubmedBookArticle` is
a record. Read with the standard library (xmlrecords.py); pubmed_parser would bring lxml, numpy
and requests for what ElementTree does.

Text: `ArticleTitle` (or `BookTitle`), every `AbstractText` (after its label, as PubMed writes
it in MEDLINE), the `Keyword`s; people: the `Author`s of the first author list that is not of
editors (`LastName` and `ForeName`, or `CollectiveName`; an ORCID `Identifier`; each
`AffiliationInfo`'s `Affiliation`); id: the PMID; DOI from the article's own ids (never its
references'); date `PubDate`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.dates import loose_date
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import Name, name_from_parts
from expert_gui.core.data.formats.people import author_id
from expert_gui.core.data.formats.reading import Progress, file_state, own_authors_file
from expert_gui.core.data.formats.records import Author, Record, line_id, normal_doi, normal_pmid
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.data.formats.xmlrecords import text_of, xml_records

NAME = "pubmed-xml"
_RECORDS = frozenset({"PubmedArticle", "PubmedBookArticle"})
_ROOTS = ("PubmedArticleSet", "PubmedArticle", "PubmedBookArticle")


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "PubMed XML", "PubMed XML")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "PubMed XML")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    clean = bibliography.cleaner(path)
    for article, line, _ in xml_records(path, _ROOTS, _RECORDS, bibliography.report, progress):
        pmid = normal_pmid(article.findtext(".//PMID") or "")
        title = clean(text_of(article.find(".//ArticleTitle"))
                      or text_of(article.find(".//BookTitle")))
        abstract = " ".join(
            f"{t.get('Label')}: {text_of(t)}" if t.get("Label") else text_of(t)
            for t in article.iterfind(".//Abstract/AbstractText"))
        keywords = "; ".join(text_of(k) for k in article.iterfind(".//KeywordList/Keyword"))
        ids = [*article.iterfind(".//ELocationID[@EIdType='doi']"),
               *article.iterfind("./PubmedData/ArticleIdList/ArticleId[@IdType='doi']"),
               *article.iterfind("./PubmedBookData/ArticleIdList/ArticleId[@IdType='doi']")]
        bibliography.add(Record(
            file=str(path), line=line, id=pmid or line_id(path, line), title=title,
            text=[title, clean(abstract), clean(keywords)], authors=_authors(article),
            date=_date(article.find(".//PubDate")),
            doi=next((d for d in map(normal_doi, map(text_of, ids)) if d), ""), pmid=pmid,
            pages=text_of(article.find(".//Pagination/MedlinePgn")),
            volume=text_of(article.find(".//JournalIssue/Volume"))))


def _authors(article: ET.Element) -> list[Author]:
    lists = [a for a in article.iterfind(".//AuthorList") if a.get("Type") != "editors"]
    authors = []
    for person in lists[0].iterfind("Author") if lists else ():
        collective = text_of(person.find("CollectiveName"))
        name = Name(collective) if collective else name_from_parts(
            text_of(person.find("LastName")),
            text_of(person.find("ForeName")) or text_of(person.find("Initials")),
            text_of(person.find("Suffix")))
        ids = tuple(i for i in (author_id("orcid", text_of(x)) for x in
                                person.iterfind("Identifier[@Source='ORCID']")) if i)
        places = tuple(p for p in map(text_of, person.iterfind("AffiliationInfo/Affiliation"))
                       if p)
        if name is not None:
            authors.append(Author(name, ids, affiliations=places))
    return authors


def _date(date: ET.Element | None) -> str:
    if date is None:
        return ""
    medline = text_of(date.find("MedlineDate"))
    if medline:
        return loose_date(medline)
    return loose_date(" ".join(text_of(date.find(p)) for p in ("Year", "Month", "Day")))
