"""Which columns of a table of publications say what (`TableColumns`), the exports whose
layouts are known (presets, recognised by their headers), and a row read as a `Record`.

Presets: Zotero; Scopus with `Author full names` ("Name (author id)", 2022 on) and Scopus with
only `Authors` ("Tobler W., Yoo E.-H." or "Rocle, N., Rey-Valette, H.", comma-separated, with
`Author(s) ID` in the same order); Web of Science tab-delimited (two-letter tags: `AF` before
`AU`) and its "Excel" export saved as CSV; Lens.org (`Author/s`); Publish or Perish
("Q Yang, W Tobler"); IEEE Xplore (`Document Title`); PubMed's CSV (`Authors` "Lai Z, Shi SY")
and its legacy CSV (authors in `Description`); Embase.com ("Zhang S., Zhao Y."); Ovid (names a
line each in `AU`, ORCIDs in `AO`, after a copyright line); SpringerLink (names run together,
"Justice Opara-MartinsReza Sahandi", split by names.split_run_together); the ACM Digital Library
(names joined by " and ", HTML entities). A preset's text columns that a file lacks are left out
(Scopus exports may come without `Abstract` or `Author Keywords`).

Whatever the table, columns named for a DOI, PMID, first page or volume help find the same
paper in another export (a journal's name, first and last pages tell two papers of one title
apart), Scopus's `Author(s) ID` gives its authors' ids, and Web of Science's `OI`/`RI` (ORCIDs,
ResearcherIDs) and Ovid's `AO` those of the authors they name, and the columns of
affiliation_columns.py their affiliations. Names are read with their HTML entities decoded
("Sch&#246;lkopf").
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace

from expert_gui.core.data.formats.affiliation_columns import AffiliationColumns
from expert_gui.core.data.formats.delimited import DATE_COLUMNS, DOC_ID_COLUMNS, TEXT_COLUMNS
from expert_gui.core.data.formats.names import (
    parse_name,
    split_and,
    split_names,
    split_run_together,
)
from expert_gui.core.data.formats.people import attach_named_ids, author_id, named_ids
from expert_gui.core.data.formats.records import (
    Author,
    Record,
    TextCleaner,
    decode_entities,
    is_placeholder,
    normal_doi,
    normal_pmid,
)
from expert_gui.core.data.report import LoadReport

PEOPLE_COLUMNS = ("people", "authors", "author", "creators", "persons", "experts", "person_ids")
# How a people column writes its people, and how the app says so.
PEOPLE_STYLES = {"names": "names, split on ; or | (or a line each)",
                 "comma": "names, split on commas (Tobler W., Yoo E.-H.)",
                 "scopus": "Scopus: name (author id)", "ids": "ids, split on ; or |",
                 "and": "names joined by \"and\" (ACM, BibTeX)",
                 "run-together": "names run together (SpringerLink: Ann SmithBo Li)"}
# Header names (in lower case) of the columns that tell papers and authors apart.
TITLE_COLUMNS = ("title", "ti", "document title", "article title", "item title")
DOI_COLUMNS = ("doi", "di", "item doi", "do")
PMID_COLUMNS = ("pmid", "pubmed id", "pubmed_id", "pm", "entrezuid", "medline pmid")
PAGE_COLUMNS = ("page start", "start page", "startpage", "bp", "pages", "first page", "pg")
LAST_PAGE_COLUMNS = ("page end", "end page", "endpage", "ep", "last page")
VOLUME_COLUMNS = ("volume", "vl", "journal volume", "vo")
JOURNAL_COLUMNS = ("source title", "publication title", "journal", "so", "booktitle",
                   "secondary title", "journal title")
SCOPUS_ID_COLUMNS = ("author(s) id",)
# Guesses listed per list of names run together, and the characters of it each one shows: a
# field of thousands of names (or of text read as names) would otherwise fill the report with
# copies of itself; the rest are counted.
MAX_GUESSES_LISTED = 10
_CELL_SHOWN = 300
NAMED_ID_COLUMNS = ("oi", "ri", "orcids", "researcher ids", "ao")
_SCOPUS_NAME = re.compile(r"^(.*?)\s*\((\d+)\)\s*$")


@dataclass(frozen=True)
class TableColumns:
    """Which header cells say what: the text (joined in this order), the people (and a column
    to read when that one is empty), the id (None: ids made from the row's line), the date
    (None: undated), how the people are written, and the preset it is, if any."""

    text: tuple[str, ...]
    people: str
    id: str | None = None
    people_style: str = "names"
    preset: str = ""
    date: str | None = None
    people_fallback: str | None = None

    def __post_init__(self):
        if not self.text:
            raise ValueError("a table needs at least one text column")
        if self.people_style not in PEOPLE_STYLES:
            raise ValueError(f"people_style must be one of {tuple(PEOPLE_STYLES)}")

    def to_dict(self) -> dict:
        return asdict(self)


PRESETS = {
    "zotero": TableColumns(text=("Title", "Abstract Note", "Manual Tags"), people="Author",
                           id="Key", preset="zotero", date="Publication Year"),
    "scopus": TableColumns(text=("Title", "Abstract", "Author Keywords"),
                           people="Author full names", id="EID", people_style="scopus",
                           preset="scopus", date="Year"),
    "scopus-authors": TableColumns(text=("Title", "Abstract", "Author Keywords"),
                                   people="Authors", id="EID", people_style="comma",
                                   preset="scopus-authors", date="Year"),
    "wos": TableColumns(text=("TI", "AB", "DE"), people="AF", people_fallback="AU", id="UT",
                        preset="wos", date="PY"),
    "wos-excel": TableColumns(text=("Article Title", "Abstract", "Author Keywords"),
                              people="Author Full Names", people_fallback="Authors",
                              id="UT (Unique WOS ID)", preset="wos-excel",
                              date="Publication Year"),
    "lens": TableColumns(text=("Title", "Abstract", "Keywords"), people="Author/s",
                         id="Lens ID", preset="lens", date="Publication Year"),
    "publish-or-perish": TableColumns(text=("Title", "Abstract"), people="Authors",
                                      people_style="comma", preset="publish-or-perish",
                                      date="Year"),
    "ieee": TableColumns(text=("Document Title", "Abstract", "Author Keywords"),
                         people="Authors", preset="ieee", date="Publication Year"),
    "pubmed": TableColumns(text=("Title",), people="Authors", people_style="comma", id="PMID",
                           preset="pubmed", date="Publication Year"),
    "pubmed-legacy": TableColumns(text=("Title",), people="Description", people_style="comma",
                                  id="EntrezUID", preset="pubmed-legacy"),
    "embase": TableColumns(text=("Title", "Abstract", "Author Keywords"), people="Author Names",
                           people_style="comma", id="PUI", preset="embase",
                           date="Publication Year"),
    "ovid": TableColumns(text=("TI", "AB", "KW"), people="AU", id="UI",
                         preset="ovid", date="YR"),
    "springer": TableColumns(text=("Item Title",), people="Authors", people_style="run-together",
                             id="Item DOI", preset="springer", date="Publication Year"),
    "acm": TableColumns(text=("title", "keywords"), people="author", people_style="and",
                        id="id", preset="acm", date="year"),
}
# Header cells that only each export has: a header holding all of them is that export.
_PRESET_MARKS = {
    "zotero": ("Key", "Item Type", "Abstract Note", "Author"),
    "scopus": ("Author full names", "Author(s) ID", "EID"),
    "scopus-authors": ("Authors", "Title", "Source title", "EID"),
    "wos": ("PT", "AU", "TI", "UT"),
    "wos-excel": ("Article Title", "UT (Unique WOS ID)"),
    "lens": ("Lens ID", "Author/s", "Title"),
    "publish-or-perish": ("Cites", "Authors", "Title", "Year", "Source", "Publisher",
                          "ArticleURL", "GSRank"),
    "ieee": ("Document Title", "Authors", "Author Affiliations"),
    "pubmed": ("PMID", "Title", "Authors", "Citation"),
    "pubmed-legacy": ("Title", "URL", "Description", "Details", "ShortDetails"),
    "embase": ("Title", "Author Names"),
    "ovid": ("VN", "DB", "UI", "TI", "AU"),
    "springer": ("Item Title", "Item DOI", "Authors", "Content Type"),
    "acm": ("type", "id", "author", "advisor", "article_no", "num_pages", "acronym"),
}


def detect_columns(header: list[str], need_people: bool = True) -> TableColumns | None:
    """A preset when the header is that export's (without the text columns it lacks), else the
    id, text and people columns by name (case-insensitive); None without a text column, or
    without a people column when one is needed."""
    cells = [h.strip() for h in header]
    for name, marks in _PRESET_MARKS.items():
        if all(m in cells for m in marks):
            fitted = fit(PRESETS[name], cells)
            if fitted is not None:
                return fitted
    text = tuple(c for c in cells if c.lower() in TEXT_COLUMNS)
    people, ident, date = (named(cells, names)
                           for names in (PEOPLE_COLUMNS, DOC_ID_COLUMNS, DATE_COLUMNS))
    if not text or (people is None and need_people):
        return None
    return TableColumns(text=text, people=people or "", id=ident, date=date)


def fit(preset: TableColumns, cells: list[str]) -> TableColumns | None:
    """A preset as a header has it: without the text columns it lacks, its date column or a
    `year` column, its id column if there; None without its title or people columns."""
    text = tuple(c for c in preset.text if c in cells)
    if not text or text[0] != preset.text[0] or preset.people not in cells:
        return None
    date = preset.date if preset.date in cells else named(cells, DATE_COLUMNS)
    return replace(preset, text=text, date=date,
                   id=preset.id if preset.id in cells else None,
                   people_fallback=preset.people_fallback
                   if preset.people_fallback in cells else None)


def named(cells: list[str], names: tuple[str, ...]) -> str | None:
    """The header cell of the first of `names` (in lower case) that the header has."""
    lower = [c.strip().lower() for c in cells]
    for name in names:
        if name in lower:
            return cells[lower.index(name)]
    return None


class RowReader:
    """Rows of one table -> `Record`s, for a header and its columns."""

    def __init__(self, header: list[str], columns: TableColumns, path: str, clean: TextCleaner,
                 report: LoadReport):
        cells = [h.strip() for h in header]
        index = {c: i for i, c in reversed(list(enumerate(cells)))}
        self.columns = columns
        self.width = len(cells)
        self.text = [index[c] for c in columns.text]
        title = next((c for c in columns.text if c.lower() in TITLE_COLUMNS), None)
        self.title = index[title] if title else None

        def at(names: tuple[str, ...]) -> int | None:
            cell = named(cells, names)
            return None if cell is None else index[cell]

        self.people = index[columns.people] if columns.people else None
        self.fallback = index.get(columns.people_fallback or "")
        self.id = index[columns.id] if columns.id else None
        self.date = index[columns.date] if columns.date else None
        self.doi, self.pmid, self.pages, self.last_page, self.volume, self.journal, \
            self.scopus_ids = (at(n) for n in (DOI_COLUMNS, PMID_COLUMNS, PAGE_COLUMNS,
                                               LAST_PAGE_COLUMNS, VOLUME_COLUMNS,
                                               JOURNAL_COLUMNS, SCOPUS_ID_COLUMNS))
        self.named_ids = [index[c] for c in cells if c.lower() in NAMED_ID_COLUMNS]
        self.affiliations = AffiliationColumns(cells, path, report)
        self.path, self.clean, self.report = path, clean, report
        self.stem = path.replace("\\", "/").rsplit("/", 1)[-1].split(".")[0]
        self.run_together = [0, 0, 0, 0]  # lists, names, cuts, guesses (people run together)

    def record(self, line: int, row: list[str]) -> Record:
        row = row + [""] * (self.width - len(row))
        c = self.columns
        doc_id = row[self.id].strip() if self.id is not None else ""
        if not doc_id:
            doc_id = f"{self.stem}:{line}"
            if self.id is not None:
                self.report.add("generated-id", self.path, line,
                                f"no {c.id!r}; the document is called {doc_id!r}")
        text = [self.clean(row[k]) for k in self.text]
        date = row[self.date].strip() if self.date is not None else ""

        def cell(k: int | None) -> str:
            return row[k] if k is not None else ""

        pages = cell(self.pages)
        if self.last_page is not None and cell(self.last_page).strip():
            pages = f"{pages}-{cell(self.last_page).strip()}"
        return Record(
            file=self.path, line=line, id=doc_id,
            title=self.clean(row[self.title]) if self.title is not None else "",
            text=text, authors=self._authors(row, line), date="" if is_placeholder(date) else date,
            doi=normal_doi(cell(self.doi)), pmid=normal_pmid(cell(self.pmid)),
            pages=pages, volume=cell(self.volume), journal=self.clean(cell(self.journal)))

    def finish(self) -> None:
        """Report how names run together were split (SpringerLink's), once for the file."""
        lists, names, cuts, guesses = self.run_together
        if cuts:
            self.report.add("name-repaired", self.path, None,
                            f"{lists:,} author lists written run together (no separator) split "
                            f"into {names:,} names at {cuts:,} places where a lower-case letter "
                            f"meets a capital; {guesses:,} of these cuts and joins are guesses "
                            f"(listed with their lines), so {1 - guesses / cuts:.1%} are certain")

    def _authors(self, row: list[str], line: int) -> list[Author]:
        if self.people is None:
            return []
        cell = row[self.people]
        if not cell.strip() and self.fallback is not None:
            cell = row[self.fallback]
        if "&" in cell:
            cell = decode_entities(cell)
        style = self.columns.people_style
        if style == "run-together":
            written = self._run_together(cell, line)
        elif style == "and":
            written = split_and(cell)
        else:
            written = split_names(cell, "comma" if style == "comma" else "names")
        if style == "ids":
            authors = [Author(None, fixed=w) for w in written]
        elif style == "scopus":
            authors = [Author(parse_name(name), (ident,) if ident else ())
                       for name, ident in map(_scopus_name, written)]
        else:
            authors = self._named(written, row, line)
        self.affiliations.give(authors, row, line)
        return [a for a in authors if a.name is not None or a.fixed]

    def _named(self, written: list[str], row: list[str], line: int) -> list[Author]:
        """An author for each name written (no name: a placeholder), with the ids of Scopus's
        `Author(s) ID` and of the columns that name their authors (`OI`, `RI`, `AO`)."""
        names = [parse_name(w) for w in written]
        ids = [] if self.scopus_ids is None else \
            [x.strip() for x in row[self.scopus_ids].split(";") if x.strip()]
        if ids and len(ids) != len(names):
            self.report.add("id-unmatched", self.path, line,
                            f"{len(ids)} author ids for {len(names)} names; the ids are not "
                            "used")
            ids = []
        authors = [Author(n, (author_id("scopus", i),) if i.isdigit() else ())
                   for n, i in zip(names, ids or [""] * len(names), strict=True)]
        pairs = [p for k in self.named_ids if row[k].strip() for p in named_ids(row[k])]
        unmatched = attach_named_ids(authors, pairs) if pairs else []  # one matcher per row
        if unmatched:
            self.report.add("id-unmatched", self.path, line, "ids of people who are not among "
                            "the authors, not used: " + "; ".join(unmatched))
        return authors

    def _run_together(self, cell: str, line: int) -> list[str]:
        run = split_run_together(cell)
        counts = self.run_together
        counts[0] += bool(cell.strip())
        counts[1] += len(run.names)
        counts[2] += run.splits
        counts[3] += len(run.guesses)
        shown = cell if len(cell) <= _CELL_SHOWN else cell[:_CELL_SHOWN] + "…"
        for guess in run.guesses[:MAX_GUESSES_LISTED]:
            self.report.add("name-repaired", self.path, line, f"a guess in {shown!r}: {guess}")
        if len(run.guesses) > MAX_GUESSES_LISTED:
            self.report.add("name-repaired", self.path, line,
                            f"{len(run.guesses) - MAX_GUESSES_LISTED:,} more guesses in "
                            f"{shown!r}, not listed")
        return run.names


def _scopus_name(written: str) -> tuple[str, str]:
    """("Van Gysel, Christophe", "scopus:56013556400") from "Van Gysel, Christophe
    (56013556400)"; no id when there is none."""
    m = _SCOPUS_NAME.match(written)
    return (m.group(1), author_id("scopus", m.group(2))) if m else (written, "")
