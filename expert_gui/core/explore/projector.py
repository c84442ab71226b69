"""Word and person embeddings in the TensorBoard Embedding Projector's format, for researchers.

The Projector (projector.tensorflow.org, "Load") takes two TSV files per set of points:
`vectors.tsv`, one point a line, its numbers tab-separated, no header; and `metadata.tsv`, one
line per point in the same order, with a header row naming its columns (a file of one column has
no header). Tabs and line breaks inside a label would break the format and become spaces.

`export_embeddings` writes `words/` (the rows of W_p, the padding token left out; metadata: word,
collection frequency) and `people/` (the rows of W_c; metadata: id, name, documents, and the
group of the people map when given), so each folder opens as it is in the Projector and in
anything else that reads TSV.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from expert_gui.core.data.collection import Collection
from expert_gui.core.data.text import PAD_ID
from expert_gui.core.errors import write_error
from expert_gui.core.explore.people_map import group_people, person_directions
from expert_gui.core.model.loglinear import LogLinearModel
from expert_gui.core.store.outputs import check_writable_folder, replacing

WHAT = ("words", "people")
_UNSAFE = re.compile(r"[\t\r\n]+")


def _label(value) -> str:
    return _UNSAFE.sub(" ", str(value))


def write_projector_tsv(folder: str | Path, vectors: np.ndarray, header: Sequence[str],
                        rows: Sequence[Sequence]) -> list[Path]:
    """`vectors.tsv` and `metadata.tsv` of one set of points in `folder` (created); each file
    replaces the one before only once complete."""
    folder = Path(folder)
    check_writable_folder(folder)
    if len(rows) != len(vectors):
        raise ValueError("one metadata row per vector is needed")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(folder, exc) from exc
    vectors_path, metadata_path = folder / "vectors.tsv", folder / "metadata.tsv"
    with replacing(vectors_path) as f:
        for row in np.asarray(vectors, dtype=np.float32):
            f.write("\t".join(f"{v:.6g}" for v in row.tolist()) + "\n")
    lines = [] if len(header) == 1 else ["\t".join(_label(h) for h in header)]
    lines += ["\t".join(_label(v) for v in row) for row in rows]
    metadata = "".join(line + "\n" for line in lines)
    with replacing(metadata_path, size=len(metadata.encode("utf-8"))) as f:
        f.write(metadata)
    return [vectors_path, metadata_path]


def check_export_folder(out_dir: str | Path, what: Sequence[str] = WHAT) -> None:
    """Raise OutputFolderError unless `export_embeddings` could write `what` under `out_dir`
    (a file in the way, a read-only folder); changes nothing, so it is asked before the work."""
    for name in what:
        check_writable_folder(Path(out_dir) / name)


def export_embeddings(model: LogLinearModel, out_dir: str | Path, *,
                      what: Sequence[str] = WHAT, collection: Collection | None = None,
                      groups: Sequence[int] | None = None) -> list[Path]:
    """Write the model's word and/or person embeddings under `out_dir`; the paths written.

    People's metadata gains their number of documents when the collection is given, and the
    group of the people map (`people_map.group_people`, computed when not given), numbered from
    1 as the app's map legend numbers them.
    """
    unknown = set(what) - set(WHAT)
    if unknown:
        raise ValueError(f"can export {', '.join(WHAT)}, not {', '.join(sorted(unknown))}")
    out_dir = Path(out_dir)
    check_export_folder(out_dir, what)
    written: list[Path] = []
    if "words" in what:
        ids = [i for i in range(len(model.vocab)) if i != PAD_ID]
        rows = [(model.vocab.words[i], int(model.vocab.counts[i])) for i in ids]
        written += write_projector_tsv(out_dir / "words", model.word_embeddings[ids],
                                       ("word", "count"), rows)
    if "people" in what:
        if groups is None:
            groups, _ = group_people(person_directions(model.candidate_weights))
        header = ["person_id", "name"]
        columns = [model.person_ids, model.person_names]
        if collection is not None:
            header.append("documents")
            columns.append(people_documents(model, collection))
        header.append("group")
        columns.append([int(g) + 1 for g in groups])  # numbered from 1, as the app's map
        written += write_projector_tsv(out_dir / "people", model.candidate_weights, header,
                                       list(zip(*columns, strict=True)))
    return written


def people_documents(model: LogLinearModel, collection: Collection) -> list[int]:
    """Each model person's number of documents in the collection (0 when not in it)."""
    per_person = np.bincount(collection.assoc_people, minlength=collection.n_people)
    index = collection.person_index
    return [int(per_person[index[p]]) if p in index else 0 for p in model.person_ids]
