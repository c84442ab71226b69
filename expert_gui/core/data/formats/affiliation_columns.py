"""Which author each affiliation of a table's row belongs to, from the first of these columns
the header has: addresses that name their authors (Web of Science's `C1` "[Brodie, Jedediah F.;
Hastings, Alan] Univ Montana, ...", Embase's `Author Addresses` "(Zhang S.; Zhao Y.) Hospital,
...", Ovid's `IN` "(Shan, Wang) Department of ..."), Scopus's `Authors with affiliations` (each
author's name, then their affiliation), or an `affiliations` column (IEEE's `Author
Affiliations`, a table's own) with one per author in the authors' order, or one for all, split
on `;`. The header chooses, not each row: a Scopus table's `Affiliations` lists the record's
institutions once each, which are no one author's.
"""

from __future__ import annotations

from expert_gui.core.data.formats.delimited import AFFILIATION_COLUMNS
from expert_gui.core.data.formats.names import Name, is_initials, parse_name
from expert_gui.core.data.formats.people import attach_affiliations, named_affiliations
from expert_gui.core.data.formats.records import Author, is_placeholder
from expert_gui.core.data.report import LoadReport

# Header names (in lower case) of each kind, in the order they are preferred.
ADDRESS_COLUMNS = ("c1", "addresses", "author addresses", "in")
NAMED_AFFILIATION_COLUMNS = ("authors with affiliations",)
AFFILIATIONS_IN_ORDER = (*AFFILIATION_COLUMNS, "author affiliations")


class AffiliationColumns:
    """The column of a header that gives its rows' authors their affiliations, and how."""

    def __init__(self, cells: list[str], path: str, report: LoadReport):
        lower = [c.strip().lower() for c in cells]
        self.column, self.kind = None, ""
        for kind, names in (("addresses", ADDRESS_COLUMNS),
                            ("named", NAMED_AFFILIATION_COLUMNS),
                            ("in order", AFFILIATIONS_IN_ORDER)):
            found = next((lower.index(n) for n in names if n in lower), None)
            if found is not None:
                self.column, self.kind = found, kind
                break
        # Ovid's `IN` names its authors by their family names alone
        self.families_only = self.column is not None and lower[self.column] == "in"
        self.path, self.report = path, report

    def give(self, authors: list[Author], row: list[str], line: int) -> None:
        """Give the authors of a row (one for each name written, in order) their affiliations."""
        cell = row[self.column] if self.column is not None else ""
        if not cell.strip():
            return
        if self.kind == "addresses":
            attach_affiliations(authors, named_affiliations(cell, self.families_only))
        elif self.kind == "named":
            attach_affiliations(authors, _scopus_affiliations(cell))
        else:
            self._in_order(authors, cell, line)

    def _in_order(self, authors: list[Author], cell: str, line: int) -> None:
        places = [p.strip() for p in cell.split(";")]
        while places and not places[-1]:
            places.pop()
        if len(places) == 1:
            places *= len(authors)
        if len(places) != len(authors):
            self.report.add("affiliation-unmatched", self.path, line,
                            f"{len(places)} affiliations for {len(authors)} authors; expected "
                            "one per author, or one for all: not used")
            return
        for author, place in zip(authors, places, strict=True):
            if place and not is_placeholder(place) and place not in author.affiliations:
                author.affiliations = (*author.affiliations, place)


def _scopus_affiliations(cell: str) -> list[tuple[Name, str]]:
    """Each (author, affiliation) of Scopus's `Authors with affiliations`, an entry an author
    split on ';', the name before the affiliation: "Terra M., Faculty of ..." (initials after
    the family name) or "Tobler, W., Geography Department, ..." (initials after a comma)."""
    out = []
    for entry in cell.split(";"):
        parts = entry.split(",")
        words = parts[0].split()
        initials_next = len(parts) > 1 and all(map(is_initials, parts[1].split() or [""]))
        cut = 2 if initials_next and not (len(words) > 1 and is_initials(words[-1])) else 1
        name, place = parse_name(",".join(parts[:cut])), ",".join(parts[cut:]).strip()
        if name is not None and place:
            out.append((name, place))
    return out
