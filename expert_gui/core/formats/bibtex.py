"""A BibTeX file: each entry is a document (title, abstract, keywords), its authors the people.

Parsed with bibtexparser (LaTeX decoded, names split into first/von/last/jr). A person's id is
every name part in the order first, von, last, jr, lower-cased and joined by '-', so
"Rijke, Maarten de" and "Maarten de Rijke" are both `maarten-de-rijke`.
"""

from __future__ import annotations

import logging
from pathlib import Path

from expert_gui.core.collection import CollectionBuilder
from expert_gui.core.errors import CollectionError
from expert_gui.core.formats.reading import Progress, file_state, read_lines
from expert_gui.core.inputs import open_regular
from expert_gui.core.text import TOKEN_RE

NAME = "bibtex"
TEXT_FIELDS = ("title", "abstract", "keywords")


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
    _no_companions(path, associations, people)
    return [file_state(path)]


def _no_companions(path: Path, associations: Path | None, people: Path | None) -> None:
    if path.is_dir():
        raise CollectionError(path, None, "expected a .bib file, not a folder")
    if associations is not None or people is not None:
        raise CollectionError(path, None, "a BibTeX file names its own authors; "
                                          "--associations and --people do not apply")


def person(name) -> tuple[str, str]:
    """(id, display name) of a bibtexparser NameParts."""
    parts = [*name.first, *name.von, *name.last]
    display = " ".join(parts) + ("".join(f", {j}" for j in name.jr))
    person_id = "-".join(TOKEN_RE.findall(" ".join([*parts, *name.jr]).lower()))
    return person_id, display


def read(path: Path, builder: CollectionBuilder, *, associations: Path | None,
         people: Path | None, progress: Progress) -> None:
    import bibtexparser
    from bibtexparser import middlewares

    _no_companions(path, associations, people)
    progress.total = path.stat().st_size
    text = "".join(line for _, line in read_lines(path, builder.report, progress))
    logging.getLogger("bibtexparser").setLevel(logging.ERROR)
    try:
        library = bibtexparser.parse_string(text, append_middleware=[
            middlewares.LatexDecodingMiddleware(), middlewares.SeparateCoAuthors(),
            middlewares.SplitNameParts()])
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
        texts = [fields[k] for k in TEXT_FIELDS if isinstance(fields.get(k), str)]
        people_ids = []
        authors = fields.get("author", [])
        for name in authors if isinstance(authors, list) else []:
            person_id, display = person(name)
            if person_id and person_id != "others":
                builder.add_person(person_id, display, path, line)
                people_ids.append(person_id)
        builder.add_document(entry.key, "\n".join(texts), path, line, people=people_ids)


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""
