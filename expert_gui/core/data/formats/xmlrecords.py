"""The records of an XML export (PubMed's `PubmedArticle`, EndNote's `record`, the items of a
Zotero RDF file), streamed with the standard library's expat, each as an ElementTree element with
the line and column where it starts (EndNote writes its whole library on one line, so the column
is what finds a record). With `namespaces`, names are ElementTree's "{uri}local" (RDF's prefixes
are the writer's choice; its namespaces are not).

Only the records are built, one at a time, each within the record cap (a record of more
characters is reported and passed over, never held). No DTD or external entity is fetched (an
entity whose text is outside the file is reported, its text left out); expat bounds entity
expansion. When the XML stops being well-formed, the records before that point are kept and the
rest of the file is reported as not read.

Expat scans a token (a tag with its attributes, a comment) again from its start at every chunk
that does not finish it: a 100 MB attribute fed 64 KiB at a time took minutes. So while a token
is unfinished the next chunk is as long as what it holds so far (`unfinished`: linear), and
markup longer than the record cap is refused.
"""

from __future__ import annotations

import codecs
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from expert_gui.core.data.formats import reading
from expert_gui.core.data.formats.reading import UNREADABLE, Progress
from expert_gui.core.data.inputs import open_regular
from expert_gui.core.data.report import LoadReport
from expert_gui.core.errors import CollectionError

_CHUNK = 1 << 16  # bytes fed to expat at a time, while no token is unfinished


class _PassedOver:
    """What builds a record over the record cap: nothing."""

    def start(self, name: str, attrs: dict[str, str]) -> None:
        pass

    def end(self, name: str) -> None:
        pass

    def data(self, text: str) -> None:
        pass


def xml_records(path: Path, roots: tuple[str, ...], tags: frozenset[str] | None,
                report: LoadReport, progress: Progress,
                namespaces: bool = False) -> Iterator[tuple[ET.Element, int, int]]:
    """(element, line, column) for each element named in `tags` (None: each child of the
    root), outside other such elements, of a file whose root element is one of `roots`."""
    parser = expat.ParserCreate(namespace_separator="}" if namespaces else None)
    parser.buffer_text = True
    done: list[tuple[ET.Element, int, int]] = []
    state = {"builder": None, "depth": 0, "where": (0, 0), "root": None, "size": 0}
    entities: dict[str, tuple[int, str]] = {}  # left out: name -> (first line, what it is)

    def grow(n: int) -> None:
        """Count `n` characters more of the record being built; past the cap, pass it over."""
        state["size"] += n
        if state["size"] > reading.MAX_RECORD and not isinstance(state["builder"], _PassedOver):
            state["builder"] = _PassedOver()

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
            state["size"] = 0
        state["depth"] += 1
        grow(len(name) + sum(len(k) + len(v) for k, v in attrs.items()))
        state["builder"].start(name, attrs)

    def end(name: str) -> None:
        builder = state["builder"]
        if builder is None:
            return
        builder.end(_clark(name) if namespaces else name)
        state["depth"] -= 1
        if state["depth"] == 0:
            state["builder"] = None
            if isinstance(builder, _PassedOver):
                report.add("record-too-long", path, state["where"][0],
                           f"a record of more than {reading.MAX_RECORD:,} characters (from "
                           f"column {state['where'][1]}), the most a record may hold; not read")
            else:
                done.append((builder.close(), *state["where"]))

    def data(text: str) -> None:
        if state["builder"] is not None:
            grow(len(text))
            state["builder"].data(text)

    def external(context, base, system_id, public_id) -> int:
        entities.setdefault(context or system_id, (
            parser.CurrentLineNumber, f"its text is in {system_id or public_id}, outside the "
                                      "file"))
        return 1  # read on without it

    def skipped(name: str, is_parameter: bool) -> None:
        entities.setdefault(name, (parser.CurrentLineNumber, "it is defined in a DTD outside "
                                                             "the file, not read"))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = data
    parser.ExternalEntityRefHandler = external
    parser.SkippedEntityHandler = skipped
    found = 0
    pending, fed = 0, 0  # bytes of an unfinished token; bytes fed so far
    with open_regular(path, CollectionError) as f:
        while True:
            if pending > reading.MAX_RECORD:
                report.add("record-too-long", path, parser.CurrentLineNumber,
                           f"markup (a tag, its attributes, a comment) of more than "
                           f"{reading.MAX_RECORD:,} bytes, the most a record may hold; the rest "
                           "of the file was not read")
                break
            try:
                chunk = f.read(max(_CHUNK, pending))
            except UNREADABLE as exc:
                raise CollectionError(path, None, f"cannot read: {exc}") from exc
            if fed == 0:  # a second byte-order mark stops expat
                chunk = _without_boms(chunk)
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
            fed += len(chunk)
            pending = unfinished(parser, fed)
    for name, (line, why) in entities.items():
        report.add("entity-left-out", path, line, f"the entity &{name}; is not read ({why}); "
                                                   "its text is left out")
    if state["root"] is None:
        raise CollectionError(path, 1, f"expected XML with the root element {' or '.join(roots)}")


def unfinished(parser: expat.XMLParserType, fed: int) -> int:
    """The bytes of the token expat has not finished, `fed` bytes in (those since its last
    event). It scans them again from their start with each chunk, so feeding at least as many
    next keeps the scans to a few times the token's length; past MAX_RECORD, a token no record
    may hold."""
    return fed - max(parser.CurrentByteIndex, 0)


def _without_boms(chunk: bytes) -> bytes:
    while chunk.startswith(codecs.BOM_UTF8 * 2):
        chunk = chunk[len(codecs.BOM_UTF8):]
    return chunk


def _clark(name: str) -> str:
    """expat's "uri}local" as ElementTree's "{uri}local"."""
    return "{" + name if "}" in name else name


def text_of(element: ET.Element | None) -> str:
    """All the text inside an element (markup such as <i> or EndNote's <style> left out)."""
    return "".join(element.itertext()).strip() if element is not None else ""
