"""A BibTeX file: each entry is a record (title, abstract, keywords), its authors the people.

bibtexparser splits the file into entries (an entry may start where the last one ends,
`}@ARTICLE{`); the fields are read here: keys in any case (Web of Science writes `Author =`),
a field given twice joined (Scopus repeats `funding_details`), `author` or Rayyan's `authors`,
whose names Rayyan cuts at every "and" inside a word ("Fern and es"; joined again, reported).
An entry whose key an earlier entry has is kept (bibliography.py tells the same paper from
another one). LaTeX is decoded only where it is read (latex.py). Web of Science's
`ORCID-Numbers` and `ResearcherID-Numbers` identify its authors. An entry's `year` is its date.
Web of Science before about 2020 writes its values in double braces (`Year = {{2018}}`): a value
other than the authors' is read without the braces that enclose all of it (around a name, they
say it is an organisation's).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats import latex, reading
from expert_gui.core.data.formats.bibliography import Bibliography, read_export
from expert_gui.core.data.formats.names import PARTICLES, Name, parse_name
from expert_gui.core.data.formats.people import attach_named_ids, named_ids
from expert_gui.core.data.formats.reading import (
    Progress,
    file_state,
    own_authors_file,
    read_lines,
)
from expert_gui.core.data.formats.records import (
    Author,
    Record,
    is_placeholder,
    line_id,
    normal_doi,
    normal_pmid,
)
from expert_gui.core.data.formats.sniff import export_kind
from expert_gui.core.errors import CollectionError

NAME = "bibtex"
# Fields read (others are ignored, given twice or not): a repeated one of these is reported.
_READ = ("title", "abstract", "keywords", "author_keywords", "author", "authors", "year", "doi",
         "pmid", "pubmed_id", "pubmed-id", "pages", "volume", "orcid-numbers",
         "researcherid-numbers", "unique-id")
_JOINED_BY = {"keywords": "; ", "author_keywords": "; ", "author": " and ", "authors": " and "}
_NAMED_IDS = ("orcid-numbers", "researcherid-numbers")
_CONCATENATION = re.compile(r"\s*#\s*")


def looks_like(path: Path) -> bool:
    return not path.is_dir() and export_kind(path) == NAME


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "BibTeX", ".bib")
    return [file_state(path)]


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    read_export(read_records, path, builder, associations, people, progress, "BibTeX")


def read_records(path: Path, bibliography: Bibliography, progress: Progress) -> None:
    from bibtexparser import model
    from bibtexparser.splitter import Splitter

    report = bibliography.report
    text = "".join(line for _, line in read_lines(path, report, progress))
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    try:
        blocks = Splitter(text).split().blocks
    except Exception as exc:  # the splitter's own errors have no common base class
        raise CollectionError(path, None, f"expected BibTeX entries: {exc}") from exc
    strings = {b.key.lower(): _unwrap(b.value, {}) for b in blocks if isinstance(b, model.String)}
    read_any = False
    for block in blocks:
        entry = getattr(block, "ignore_error_block", None) if isinstance(
            block, model.ParsingFailedBlock) else block
        if isinstance(block, model.ParsingFailedBlock) and not isinstance(entry, model.Entry):
            error = _first_line(str(block.error)) or "expected a complete entry"
            report.add("malformed-record", path, block.start_line + 1,
                       f"{_first_line(block.raw)}: {error}; skipped")
            continue
        if not isinstance(entry, model.Entry):
            continue
        if not entry.fields:
            report.add("malformed-record", path, entry.start_line + 1,
                       f"{_first_line(entry.raw)}: expected fields after the key; skipped")
            continue
        read_any = True
        bibliography.add(_record(entry, path, bibliography, strings))
    if not read_any and text.strip():
        failed = [b for b in blocks if isinstance(b, model.ParsingFailedBlock)]
        raise CollectionError(path, failed[0].start_line + 1 if failed else 1,
                              "expected BibTeX entries (@article{key, ...})")


def _record(entry, path: Path, bibliography: Bibliography, strings: dict[str, str]) -> Record:
    report = bibliography.report
    line = entry.start_line + 1
    fields: dict[str, str] = {}
    repeated = []
    for f in entry.fields:
        if len(f.value) > reading.MAX_RECORD:  # a field's lines are capped one by one only
            report.add("record-too-long", path, line, f"{entry.key}: the {f.key} field holds "
                       f"more than {reading.MAX_RECORD:,} characters, the most a record may "
                       "hold; left out")
            continue
        key, value = f.key.lower(), _unwrap(f.value, strings)
        if key not in ("author", "authors"):
            value = _without_braces(value)
        if key in fields:
            if key in _READ and key not in repeated:
                repeated.append(key)
            fields[key] = f"{fields[key]}{_JOINED_BY.get(key, ' ')}{value}"
        else:
            fields[key] = value
    if repeated:
        report.add("repeated-field", path, line, f"{entry.key}: "
                   + ", ".join(repeated) + " given more than once; the values were joined")
    clean = bibliography.cleaner(path)

    def decoded(key: str) -> str:
        value = fields.get(key, "")
        text, done = latex.decode(value)
        if not done:
            report.add("latex-kept", path, line, f"{entry.key}: the {key} is over "
                       f"{latex.MAX_DECODED:,} characters; kept as written, without decoding "
                       "its LaTeX")
        return clean(" ".join(text.split()))  # white space, line breaks too, is one space

    title = decoded("title")
    keywords = decoded("author_keywords") or decoded("keywords")
    authors = _authors(fields, path, line, entry.key, report)
    year = fields.get("year", "").strip()
    return Record(
        file=str(path), line=line, id=entry.key.strip() or line_id(path, line),
        title=title, text=[title, decoded("abstract"), keywords], authors=authors,
        date="" if is_placeholder(year) else year, doi=normal_doi(fields.get("doi", "")),
        pmid=normal_pmid(fields.get("pmid") or fields.get("pubmed_id")
                         or fields.get("pubmed-id") or ""),
        pages=fields.get("pages", ""), volume=fields.get("volume", ""))


def _authors(fields: dict[str, str], path: Path, line: int, key: str, report) -> list[Author]:
    from bibtexparser.middlewares.names import split_multiple_persons_names

    raw = fields.get("author") or fields.get("authors") or ""
    names = split_multiple_persons_names(raw) if raw.strip() else []
    if "author" not in fields and names:
        names, healed = _join_cut_names(names)
        if healed:
            report.add("name-repaired", path, line, f"{key}: names cut at 'and' joined again: "
                       + ", ".join(healed))
    authors = []
    for written in names:
        name = _name(written)
        if name is not None:
            authors.append(Author(name))
    pairs = [p for field in _NAMED_IDS if fields.get(field) for p in named_ids(fields[field])]
    unmatched = attach_named_ids(authors, pairs) if pairs else []  # one matcher per record
    if unmatched:
        report.add("id-unmatched", path, line, f"{key}: ids of people who are not among the "
                   "authors, not used: " + "; ".join(unmatched))
    return authors


def _name(written: str) -> Name | None:
    """One BibTeX name, its LaTeX decoded; a name wholly in braces is an organisation's."""
    written = written.strip()
    if written.startswith("{") and written.endswith("}") and _balanced(written[1:-1]):
        whole = latex.decode(written[1:-1])[0].strip()
        return Name(whole) if whole and not is_placeholder(whole) else None
    return parse_name(latex.decode(written)[0])


def _join_cut_names(names: list[str]) -> tuple[list[str], list[str]]:
    """Rayyan writes "Fern and es, Marisa" for "Fernandes, Marisa", so splitting on "and" cuts
    it: a piece that starts in lower case (not with a particle) or with a comma goes back onto
    the piece before it."""
    out: list[str] = []
    healed = []
    for piece in names:
        first = piece.split(" ", 1)[0].rstrip(",")
        if out and ((piece[:1].islower() and first.lower() not in PARTICLES)
                    or piece.startswith(",")):
            out[-1] = f"{out[-1]}and{piece}"
            healed.append(out[-1])
        else:
            out.append(piece)
    return out, healed


def _unwrap(value: str, strings: dict[str, str]) -> str:
    """A field's value without its enclosing braces or quotes; @string names and `#` joins
    resolved."""
    value = value.strip()
    if "#" in value and not value.startswith("{"):
        parts = _CONCATENATION.split(value)
        if len(parts) > 1 and all(_is_atom(p) for p in parts):
            return "".join(_unwrap(p, strings) for p in parts)
    if len(value) >= 2 and ((value[0] == "{" and value[-1] == "}")
                            or (value[0] == '"' and value[-1] == '"')):
        return value[1:-1]
    return strings.get(value.lower(), value)


def _without_braces(value: str) -> str:
    """A value less the braces that enclose all of it ("{2018}", "{{Deep Learning}}")."""
    value = value.strip()
    while len(value) >= 2 and value[0] == "{" and value[-1] == "}" and _balanced(value[1:-1]):
        value = value[1:-1].strip()
    return value


def _is_atom(part: str) -> bool:
    return bool(part) and (part[0] in "{\"" or part.replace("_", "").isalnum())


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += (c == "{") - (c == "}")
        if depth < 0:
            return False
    return depth == 0


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
