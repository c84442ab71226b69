"""A BibTeX file: each entry is a document (title, abstract, keywords), its authors the people.

Parsed with bibtexparser (LaTeX decoded, names split into first/von/last/jr). A person's id is
every name part in the order first, von, last, jr, lower-cased and joined by '-', so
"Rijke, Maarten de" and "Maarten de Rijke" are both `maarten-de-rijke`. An entry's `year` is
its document's date.
"""

from __future__ import annotations

import functools
import logging
import re
from pathlib import Path

from expert_gui.core.data.collection import CollectionBuilder
from expert_gui.core.data.formats.reading import (
    Progress,
    file_state,
    own_authors_file,
    read_lines,
)
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.data.text import TOKEN_RE
from expert_gui.core.errors import CollectionError

NAME = "bibtex"
TEXT_FIELDS = ("title", "abstract", "keywords")
# Longest field value whose LaTeX is decoded (see _latex_decoder): 20 times a long abstract.
MAX_DECODED = 65_536
# What may make LaTeX decoding change a name part; a part without any is kept as it is.
_LATEX = re.compile(r"[\\{}$~%&`']|--")


def looks_like(path: Path) -> bool:
    if path.suffix.lower() == ".bib":
        return True
    try:
        with open_regular(path, CollectionError) as f:
            head = f.read(4096)
    except (CollectionError, OSError):
        return False
    return head.lstrip().startswith(b"@")


def sources(path: Path, associations: Path | None, people: Path | None) -> list[str]:
    own_authors_file(path, associations, people, "BibTeX", ".bib")
    return [file_state(path)]


def person(name) -> tuple[str, str]:
    """(id, display name) of a bibtexparser NameParts, its LaTeX decoded."""
    parts = [_name_part(p) for p in (*name.first, *name.von, *name.last)]
    jr = [_name_part(j) for j in name.jr]
    display = " ".join(parts) + ("".join(f", {j}" for j in jr))
    person_id = "-".join(TOKEN_RE.findall(" ".join([*parts, *jr]).lower()))
    return person_id, display


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    import bibtexparser
    from bibtexparser import middlewares

    own_authors_file(path, associations, people, "BibTeX", ".bib")
    progress.total = path.stat().st_size
    text = "".join(line for _, line in read_lines(path, builder.report, progress))
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    try:
        # Authors are split first (as BibTeX does, on the raw value) and `person` decodes each
        # name part: decoding a whole author list at once took superlinear time.
        library = bibtexparser.parse_string(text, append_middleware=[
            middlewares.SeparateCoAuthors(), middlewares.SplitNameParts(),
            middlewares.LatexDecodingMiddleware(decoder=_latex_decoder())])
    except Exception as exc:  # the parser's own errors have no common base class
        raise CollectionError(path, None, f"expected BibTeX entries: {exc}") from exc
    if not library.entries and (library.failed_blocks or text.strip()):
        first = library.failed_blocks[0].start_line + 1 if library.failed_blocks else 1
        raise CollectionError(path, first, "expected BibTeX entries (@article{key, ...})")
    for block in library.failed_blocks:
        kind = "duplicate-id" if type(block).__name__ == "DuplicateBlockKeyBlock" else \
            "malformed-record"
        error = _first_line(str(block.error)) or "expected a complete entry (@type{key, ...})"
        builder.report.add(kind, path, block.start_line + 1,
                           f"{_first_line(block.raw)}: {error}; skipped")
    for entry in library.entries:
        line = entry.start_line + 1
        fields = {k.lower(): f.value for k, f in entry.fields_dict.items()}
        for key in TEXT_FIELDS:
            if isinstance(fields.get(key), str) and len(fields[key]) > MAX_DECODED:
                builder.report.add("latex-kept", path, line,
                                   f"{entry.key}: the {key} is over {MAX_DECODED:,} characters; "
                                   "kept as written, without decoding its LaTeX")
        texts = [fields[k] for k in TEXT_FIELDS if isinstance(fields.get(k), str)]
        people_ids = []
        authors = fields.get("author", [])
        for name in authors if isinstance(authors, list) else []:
            person_id, display = person(name)
            if person_id and person_id != "others":
                builder.add_person(person_id, display, path, line)
                people_ids.append(person_id)
        year = fields.get("year")
        builder.add_document(entry.key, "\n".join(texts), path, line, people=people_ids,
                             date=year.strip() if isinstance(year, str) else "")


def person_from_text(name: str) -> tuple[str, str]:
    """(id, display name) of one name as BibTeX writes it ("Last, First", "First von Last"),
    for the readers whose people come as text: a table's authors column, RIS."""
    from bibtexparser.middlewares.names import parse_single_name_into_parts

    try:
        return person(parse_single_name_into_parts(name, strict=False))
    except ValueError:  # not a name bibtexparser can split: its words, in order
        return "-".join(TOKEN_RE.findall(name.lower())), name.strip()


@functools.cache
def _latex_decoder():
    """bibtexparser's LaTeX decoder (pylatexenc; math kept verbatim, \\url's argument as it is),
    for values of at most MAX_DECODED characters: pylatexenc takes about 3 microseconds a
    character and more on long values (a 10 MB abstract ran for minutes), and no abstract is
    that long, so a longer value is kept as written (and `read` reports it)."""
    from pylatexenc.latex2text import LatexNodes2Text, MacroTextSpec, get_default_latex_context_db

    class Bounded(LatexNodes2Text):
        def latex_to_text(self, latex, **kwargs):
            return latex if len(latex) > MAX_DECODED else super().latex_to_text(latex, **kwargs)

    context = get_default_latex_context_db()
    context.add_context_category("expert-gui-urls", prepend=True,
                                 macros=[MacroTextSpec("url", simplify_repl="%s")])
    return Bounded(latex_context=context, math_mode="verbatim")


@functools.lru_cache(maxsize=1 << 16)
def _name_part(part: str) -> str:
    """One decoded part of a name (names repeat, so each is decoded once)."""
    return _latex_decoder().latex_to_text(part).strip() if _LATEX.search(part) else part


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
