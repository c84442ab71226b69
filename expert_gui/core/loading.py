"""`load_collection`: a user's files -> a `Collection`, cached on disk so reopening is instant.

The cache folder is `cache_dir()/collections/<fingerprint>`, the fingerprint a hash of the input
files (path, size, modification time), the text settings and `LOADER_VERSION`; any change to
one of them loads afresh. Raw text is spilled to a file while loading, so it is held once.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from expert_gui.core.collection import Collection, CollectionBuilder, LoadReport
from expert_gui.core.errors import CollectionError
from expert_gui.core.formats import FORMATS, detect_format, reader
from expert_gui.core.formats.reading import LoadProgress, Progress, Stop, file_state
from expert_gui.core.paths import cache_dir
from expert_gui.core.text import TextSettings

__all__ = ["LOADER_VERSION", "FORMATS", "LoadProgress", "load_collection", "collection_cache"]

# Bump when a reader or the builder changes what a load produces: old caches are then ignored.
LOADER_VERSION = 1


def load_collection(
    path: str | Path,
    *,
    format: str | None = None,
    associations: str | Path | None = None,
    people: str | Path | None = None,
    settings: TextSettings = TextSettings(),
    use_cache: bool = True,
    progress: Callable[[LoadProgress], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Collection | None:
    """Read a collection in any supported format; None when `should_stop()` said stop.

    `format` overrides detection (one of `FORMATS`); `associations` and `people` override the
    files found beside the documents. Progress events are `LoadProgress(done, total, message)`.
    """
    path = Path(path).expanduser().resolve()
    associations = Path(associations).expanduser().resolve() if associations else None
    people = Path(people).expanduser().resolve() if people else None
    for companion in (associations, people):
        if companion is not None and not companion.is_file():
            raise CollectionError(companion, None, "no such file")
    name = format or detect_format(path)
    module = reader(name, path)
    sources = module.sources(path, associations, people)
    fingerprint = _fingerprint(name, sources, settings)
    folder = collection_cache(fingerprint)
    if use_cache:
        cached = _open_cache(folder)
        if cached is not None:
            return cached

    steps = Progress(progress, should_stop)
    report = LoadReport(format=name, files=[s.split("\t")[0] for s in sources])
    try:
        with tempfile.TemporaryDirectory(dir=folder.parent, ignore_cleanup_errors=True) as spill:
            builder = CollectionBuilder(settings, name=path.name, report=report, spill_dir=spill)
            module.read(path, builder, associations=associations, people=people,
                        progress=steps)
            steps.event("building the vocabulary")
            collection = builder.build(fingerprint=fingerprint, source=str(path))
            if collection.n_documents == 0:
                raise CollectionError(path, None, "expected at least one document; found none")
            if use_cache:
                steps.event("writing the cache")
                collection.save(folder)
                del collection
                return Collection.load(folder)
            # Without a cache the spill file goes away: keep its bytes in memory, once.
            collection.text_bytes = np.array(collection.text_bytes)
            return collection
    except Stop:
        return None


def collection_cache(fingerprint: str) -> Path:
    """The cache folder of one collection load."""
    root = cache_dir() / "collections"
    root.mkdir(parents=True, exist_ok=True)
    return root / fingerprint


def _fingerprint(name: str, sources: list[str], settings: TextSettings) -> str:
    key = {"loader": LOADER_VERSION, "format": name, "sources": sources,
           "settings": settings.to_dict()}
    if settings.stopwords not in ("english", "none"):
        stopwords = Path(settings.stopwords)
        key["stopwords"] = file_state(stopwords) if stopwords.is_file() else str(stopwords)
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:24]


def _open_cache(folder: Path) -> Collection | None:
    """The cached collection, or None when there is none or it cannot be read (then rebuilt)."""
    if not (folder / "collection.json").is_file():
        return None
    try:
        return Collection.load(folder)
    except (OSError, ValueError, KeyError, TypeError):
        return None
