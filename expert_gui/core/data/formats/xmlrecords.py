"""The records of an XML export (PubMed's `PubmedArticle`, EndNote's `record`, the items of a
Zotero RDF file), streamed with the standard library's expat, each as an ElementTree element with
the line and column where it starts (EndNote writes its whole library on one line, so the column
is what finds a record). With `namespaces`, names are ElementTree's "{uri}local" (RDF's prefixes
are the writer's choice; its namespaces are not).

Only the records are built, one at a time. No DTD or external entity is fetched; expat bounds
entity expansion. When the XML stops being well-formed, the records before that point are kept
and the rest of the file is reported as not read.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from expert_gui.core.data.formats.reading import UNREADABLE, Progress
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

_CHUNK = 1 << 16


def xml_records(path: Path, roots: tuple[str, ...], tags: frozenset[str] | None,
                report: LoadReport, progress: Progress,
                namespaces: bool = False) -> Iterator[tuple[ET.Element, int, int]]:
    """(element, line, column) for each element named in `tags` (None: each child of the
    root), outside other such elements, of a file whose root element is one of `roots`."""
    parser = expat.ParserCreate(namespace_separator="}" if namespaces else None)
    parser.buffer_text = True
    done: list[tuple[ET.Element, int, int]] = []
    state = {"builder": None, "depth": 0, "where": (0, 0), "root": None}

    def start(name: str, attrs: dict[str, str]) -> None:
        if namespaces:
            name = _clark(name)
            attrs = {_clark(k): v for k, v in attrs.items()}
        builder = state["builder"]
        if builder is None:
            if state["root"] is None:
                state["root"] = name
                if name not in roots:
                    raise CollectionError(path, parser.CurrentLineNumber, "expected the root "
                                          f"element {' or '.join(roots)}, found <{name}>")
                if tags is None:
                    return
            if tags is not None and name not in tags:
                return
            builder = state["builder"] = ET.TreeBuilder()
            state["where"] = (parser.CurrentLineNumber, parser.CurrentColumnNumber + 1)
        state["depth"] += 1
        builder.start(name, attrs)

    def end(name: str) -> None:
        builder = state["builder"]
        if builder is None:
            return
        builder.end(_clark(name) if namespaces else name)
        state["depth"] -= 1
        if state["depth"] == 0:
            done.append((builder.close(), *state["where"]))
            state["builder"] = None

    def data(text: str) -> None:
        if state["builder"] is not None:
            state["builder"].data(text)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    found = 0
    with open_regular(path, CollectionError) as f:
        while True:
            try:
                chunk = f.read(_CHUNK)
            except UNREADABLE as exc:
                raise CollectionError(path, None, f"cannot read: {exc}") from exc
            try:
                parser.Parse(chunk, not chunk)
            except expat.ExpatError as exc:
                message = expat.errors.messages.get(exc.code, str(exc))
                if not found and not done:
                    raise CollectionError(path, exc.lineno, f"expected well-formed XML: "
                                          f"{message} (column {exc.offset + 1})") from None
                yield from done
                report.add("malformed-record", path, exc.lineno,
                           f"the XML stops being well-formed at column {exc.offset + 1} "
                           f"({message}); the rest of the file was not read")
                return
            yield from done
            found += len(done)
            done.clear()
            progress.advance(len(chunk), f"reading {path.name}")
            if not chunk:
                break
    if state["root"] is None:
        raise CollectionError(path, 1, f"expected XML with the root element {' or '.join(roots)}")


def _clark(name: str) -> str:
    """expat's "uri}local" as ElementTree's "{uri}local"."""
    return "{" + name if "}" in name else name


def text_of(element: ET.Element | None) -> str:
    """All the text inside an element (markup such as <i> or EndNote's <style> left out)."""
    return "".join(element.itertext()).strip() if element is not None else ""
