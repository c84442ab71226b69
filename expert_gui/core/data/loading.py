"""`load_collection`: a user's files -> a `Collection`, cached on disk so reopening is instant.

The cache folder is `cache_dir()/collections/<fingerprint>`, the fingerprint a hash of the input
files (path and a hash of the content; the people edits beside them too), the text settings and
`LOADER_VERSION`; any change to one of them loads afresh. A cache is checked in full when opened
and rebuilt when damaged. The last `CACHES_PER_PATH` caches of each path are kept. Raw text is
spilled to a file while loading, so it is held once.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

from expert_gui.core.data import cache
from expert_gui.core.data.collection import Collection, CollectionBuilder
from expert_gui.core.data.formats import FORMATS, detect_format, reader
from expert_gui.core.data.formats.people_edits import PeopleEdits, edits_path, read_edits
from expert_gui.core.data.formats.presets import TableColumns
from expert_gui.core.data.formats.reading import LoadProgress, Progress, Stop, file_state
from expert_gui.core.data.inputs import (
    CHANGED,
    content_hash,
    recording_reads,
    require_regular,
    resolve,
)
from expert_gui.core.data.report import LoadReport
from expert_gui.core.data.text import TextSettings, inline_stopwords
from expert_gui.core.errors import CollectionError, OutputFolderError, write_error
from expert_gui.core.paths import cache_dir, unwritable

__all__ = ["LOADER_VERSION", "FORMATS", "LoadProgress", "load_collection", "collection_cache",
           "collection_path"]

log = logging.getLogger(__name__)

# Bump when a reader or the builder changes what a load produces: old caches are then ignored.
LOADER_VERSION = 10
# The hash `file_state` gives a file's content (XXH3-128 in hex).
_CONTENT_HASH = re.compile("[0-9a-f]{32}")
# Caches kept per collection path (its versions, or other text settings); older ones are removed.
CACHES_PER_PATH = 3


def load_collection(
    path: str | Path,
    *,
    format: str | None = None,
    associations: str | Path | None = None,
    people: str | Path | None = None,
    settings: TextSettings = TextSettings(),
    columns: TableColumns | None = None,
    use_cache: bool = True,
    progress: Callable[[LoadProgress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Collection | None:
    """Read a collection in any supported format; None when `should_stop()` said stop.

    `format` overrides detection (one of `FORMATS`); `associations` and `people` override the
    files found beside the documents; `columns` says which columns of a table are what (the
    table format; by default they are detected from its header). Progress events are
    `LoadProgress(done, total, message)`.
    """
    path = Path(path).expanduser()
    if path.exists() and not path.is_dir():
        require_regular(path, CollectionError)  # named as given, before a link is resolved
    path = collection_path(_resolved(path), format)
    if path.parent == path:  # any file on the disk would be read as part of it
        raise CollectionError(path, None, "the root of the file system is not a collection; "
                                          "open the folder that holds the documents or exports")
    settings = inline_stopwords(settings)  # the cache key follows the list's content
    associations = _resolved(Path(associations).expanduser()) if associations else None
    people = _resolved(Path(people).expanduser()) if people else None
    for companion in (associations, people):
        if companion is not None:
            require_regular(companion, CollectionError)
    name = format or ("table" if columns is not None else detect_format(path))
    module = reader(name, path)
    chosen = {}
    if columns is not None:
        if name != "table":
            raise CollectionError(path, None, f"columns apply to a table, not to a {name} "
                                              "collection")
        chosen = {"columns": columns}
    sources = module.sources(path, associations, people, **chosen)
    edits = edits_path(path)
    if edits.is_file():  # the people edits are part of what was read (people_edits.py)
        sources.append(file_state(edits))
    fingerprint = _fingerprint(path, name, sources, settings)
    folder = collection_cache(fingerprint)
    why = unwritable(folder.parent)
    if use_cache and why:
        log.warning("%s: %s; the collection is read without a cache", folder.parent, why)
        use_cache = False
    if use_cache:
        cached = _open_cache(folder)
        if cached is not None:
            return cached

    steps = Progress(progress, should_stop)
    report = LoadReport(format=name, files=[s.split("\t")[0] for s in sources])
    if why:  # the text goes to the system's temporary folder
        spill_dir = Path(tempfile.gettempdir())
        spilled = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
    else:  # beside the caches, where a load killed leaves nothing a later one keeps
        spill_dir = folder.parent
        cache.remove_stale(spill_dir)
        spilled = cache.work_folder(spill_dir, fingerprint, "spill")
    try:
        with _spilling(spill_dir, report.files), spilled as spill:
            builder = CollectionBuilder(settings, name=path.name, report=report, spill_dir=spill)
            if edits.is_file():
                builder.people_edits = PeopleEdits(edits, read_edits(edits, report))
            with recording_reads() as reads:
                module.read(path, builder, associations=associations, people=people,
                            progress=steps, **chosen)
            read = _as_read(sources, reads, report)
            if read != sources:  # a file changed while it was read: named, never cached
                fingerprint, use_cache = _fingerprint(path, name, read, settings), False
            steps.event("building the vocabulary")
            collection = builder.build(fingerprint=fingerprint, source=str(path))
            if collection.n_documents == 0:
                first = report.problems[0] if report.problems else None
                why = "" if first is None else " (the first problem" + (
                    f", line {first.line}" if first.line is not None else "") + f": {first.message})"
                raise CollectionError(path, None,
                                      f"expected at least one document; found none{why}")
            if use_cache:
                steps.event("writing the cache")
                try:
                    collection.save(folder)
                except OutputFolderError as exc:  # the collection is still good, uncached
                    log.warning("%s; the collection is not cached", exc)
                else:
                    del collection
                    _prune(folder)
                    return Collection.load(folder)
            # Without a cache the spill file goes away: keep its bytes in memory, once.
            collection.text_bytes = np.array(collection.text_bytes)
            return collection
    except Stop:
        return None


def _resolved(path: Path) -> Path:
    """A path as given, absolute and its links followed; a link that loops is a
    CollectionError naming it."""
    try:
        return resolve(path)
    except OSError as exc:
        raise CollectionError(path, None, f"a link that cannot be followed "
                                          f"({exc.strerror or exc})") from None


def collection_path(path: Path, format: str | None = None) -> Path:
    """A file inside a collection folder (its documents.tsv, associations.tsv, ...) opens the
    folder's collection: one name, one fingerprint, and the models trained on it fit."""
    folder_format = FORMATS["folder"]
    if format in (None, folder_format.NAME) and path.is_file() \
            and folder_format.looks_like(path.parent):
        return path.parent
    return path


def collection_cache(fingerprint: str) -> Path:
    """The cache folder of one collection load (its parent is created when it can be)."""
    root = cache_dir() / "collections"
    with contextlib.suppress(OSError):  # `unwritable(root)` says why
        root.mkdir(parents=True, exist_ok=True)
    return root / fingerprint


@contextlib.contextmanager
def _spilling(folder: Path, files: list[str]) -> Iterator[None]:
    """While a load keeps its documents' text in a file under `folder`: a full disk there ends
    it with OutputFolderError, naming the space the text needs (about its files' size) and,
    the file gone, the space free."""
    try:
        yield
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        needed = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
        raise write_error(folder, exc, needed, "the collection's text is kept there while it "
                                               "loads; free some space, or point "
                                               "EXPERT_GUI_HOME elsewhere") from exc


def _fingerprint(path: Path, name: str, sources: list[str], settings: TextSettings) -> str:
    """The path's key (8 hex digits, shared by all its loads) + the key of this load's content."""
    key = {"loader": LOADER_VERSION, "format": name, "sources": sources,
           "settings": settings.to_dict()}
    content = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()
    # os.fsencode: the path's own bytes, which need not be UTF-8 (a Latin-1 folder name)
    return hashlib.sha256(os.fsencode(path)).hexdigest()[:8] + content[:16]


def _as_read(sources: list[str], reads: dict[str, str], report: LoadReport) -> list[str]:
    """The sources (`path<TAB>hash`, hashed before the load) with the hash of what the load
    read; a file the readers did not read whole and in order (a workbook, a git repository's
    .mailmap) is hashed again now. Each file that changed is reported."""
    read = []
    for source in sources:
        file, _, before = source.partition("\t")
        if not _CONTENT_HASH.fullmatch(before):  # not a file (a git commit, the columns chosen)
            read.append(source)
            continue
        after = reads.get(file)
        if after is None:
            try:
                after = content_hash(file, CollectionError)
            except CollectionError:
                after = CHANGED
        if after != before:
            report.add("changed-while-read", file, None,
                       "the file changed while it was read: this collection holds a mix of its "
                       "old and new content and is not cached; open it again once it is "
                       "written in full")
        read.append(f"{file}\t{after}")
    return read


def _prune(folder: Path) -> None:
    """Keep the `CACHES_PER_PATH` most recently used caches of one path; drop older ones."""
    siblings = [p for p in folder.parent.glob(folder.name[:8] + "*")
                if p.is_dir() and len(p.name) == len(folder.name)]
    siblings.sort(key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in siblings[CACHES_PER_PATH:]:
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)


def _open_cache(folder: Path) -> Collection | None:
    """The cached collection, or None when there is none or it cannot be read (then rebuilt)."""
    if not (folder / "collection.json").is_file():
        return None
    try:
        collection = Collection.load(folder)
    except CollectionError:  # damaged: read the files again
        return None
    with contextlib.suppress(OSError):
        os.utime(folder)  # recently used: pruned last
    return collection
