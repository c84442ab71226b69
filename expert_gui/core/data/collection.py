"""A collection: documents, people (candidate experts) and the links between them.

Documents are kept as token ids in one flat array with offsets (`tokens[doc_offsets[i]:
doc_offsets[i+1]]`), in the smallest unsigned type the vocabulary allows; their raw text lives in a
byte store beside it, so a large collection is never held as Python strings. `CollectionBuilder`
streams records in from any format reader and reports every problem with its file and line.

Over 600 lines, on purpose: `Collection` and `CollectionBuilder` share the flat-array layout and
its invariants; reports, dates, where records were read and the cache are apart (report.py,
dates.py, places.py, cache.py).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from expert_gui.core.data import cache
from expert_gui.core.data.affiliations import MAX_AFFILIATION_CHARS, MAX_AFFILIATIONS, gather
from expert_gui.core.data.dates import DAY, NO_DAY, format_date, parse_dated
from expert_gui.core.data.places import Places
from expert_gui.core.data.report import LoadReport
from expert_gui.core.data.text import TextSettings, Tokenizer, Vocabulary
from expert_gui.core.errors import CollectionError


@dataclass(frozen=True)
class CollectionStats:
    """The paper's Table 1 for one collection."""

    documents: int
    average_document_length: float
    people_with_documents: int
    associations: int
    documents_with_people: int
    associations_per_document_mean: float
    associations_per_document_sd: float
    associations_per_person_mean: float
    associations_per_person_sd: float

    def to_dict(self) -> dict:
        return asdict(self)


class Collection:
    """Documents as token ids, people, and document-person associations (CSR, doc -> people)."""

    def __init__(
        self,
        *,
        name: str,
        doc_ids: list[str],
        person_ids: list[str],
        person_names: list[str],
        assoc_indptr: np.ndarray,
        assoc_people: np.ndarray,
        tokens: np.ndarray,
        doc_offsets: np.ndarray,
        vocab: Vocabulary,
        settings: TextSettings,
        text_bytes: np.ndarray,
        text_offsets: np.ndarray,
        report: LoadReport,
        fingerprint: str = "",
        source: str = "",
        doc_dates: np.ndarray | None = None,
        doc_date_units: np.ndarray | None = None,
        person_affiliations: list[tuple[str, ...]] | None = None,
        person_spellings: dict[str, list[str]] | None = None,
    ):
        if person_affiliations is not None and len(person_affiliations) != len(person_ids):
            raise ValueError(f"{len(person_affiliations)} people's affiliations for "
                             f"{len(person_ids)} people")
        self.name = name
        self.doc_ids = doc_ids
        self.person_ids = person_ids
        self.person_names = person_names
        self.assoc_indptr = assoc_indptr
        self.assoc_people = assoc_people
        self.tokens = tokens
        self.doc_offsets = doc_offsets
        self.vocab = vocab
        self.settings = settings
        self.text_bytes = text_bytes
        self.text_offsets = text_offsets
        self.report = report
        self.fingerprint = fingerprint
        self.source = source
        self.doc_dates = doc_dates
        # How precise each date was given (dates.DAY, MONTH, YEAR; None: all to the day).
        self.doc_date_units = doc_date_units
        # Each person's affiliations as the sources wrote them (affiliations.py), aligned with
        # `person_ids`; None when the collection records none for anyone.
        self.person_affiliations = person_affiliations if person_affiliations and \
            any(person_affiliations) else None
        # How the documents write each person written more than one way (by person id).
        self.person_spellings = person_spellings or {}
        self._doc_index: dict[str, int] | None = None
        self._person_index: dict[str, int] | None = None
        self._person_docs: tuple[np.ndarray, np.ndarray] | None = None

    # -- sizes and look-ups -------------------------------------------------------------------
    @property
    def n_documents(self) -> int:
        return len(self.doc_ids)

    @property
    def n_people(self) -> int:
        return len(self.person_ids)

    @property
    def doc_index(self) -> dict[str, int]:
        if self._doc_index is None:
            self._doc_index = {d: i for i, d in enumerate(self.doc_ids)}
        return self._doc_index

    @property
    def person_index(self) -> dict[str, int]:
        if self._person_index is None:
            self._person_index = {p: i for i, p in enumerate(self.person_ids)}
        return self._person_index

    @property
    def doc_lengths(self) -> np.ndarray:
        return np.diff(self.doc_offsets)

    def doc_tokens(self, i: int) -> np.ndarray:
        return self.tokens[self.doc_offsets[i] : self.doc_offsets[i + 1]]

    def text(self, i: int) -> str:
        """The raw text of document i, as it was read."""
        raw = self.text_bytes[self.text_offsets[i] : self.text_offsets[i + 1]]
        return bytes(raw).decode("utf-8")

    def title(self, i: int, width: int = 120) -> str:
        """What lists name document i by: the first line of its text (a title, a commit's
        subject), shortened to `width` characters; its id when the text is empty."""
        raw = self.text_bytes[self.text_offsets[i] : min(self.text_offsets[i + 1],
                                                         self.text_offsets[i] + 4 * width)]
        text = bytes(raw).decode("utf-8", errors="ignore").strip()
        line = text.split("\n", 1)[0].strip() if text else ""
        if not line:
            return self.doc_ids[i]
        return line if len(line) <= width else line[:width - 1].rstrip() + "…"

    def date_text(self, i: int) -> str:
        """Document i's date as precise as it was given ('2022', '2022-03', '2022-03-04');
        '' when undated."""
        if self.doc_dates is None:
            return ""
        unit = DAY if self.doc_date_units is None else int(self.doc_date_units[i])
        return format_date(self.doc_dates[i], unit)

    @property
    def has_dates(self) -> bool:
        """Whether any document has a date (`doc_dates` is then datetime64[D], NaT if unknown)."""
        return self.doc_dates is not None

    def affiliations_of(self, person: int) -> tuple[str, ...]:
        """A person's affiliations as the sources wrote them; empty when none is known."""
        return () if self.person_affiliations is None else self.person_affiliations[person]

    def people_of(self, i: int) -> np.ndarray:
        """Person indices associated with document i (sorted, unique)."""
        return self.assoc_people[self.assoc_indptr[i] : self.assoc_indptr[i + 1]]

    def documents_of(self, person: int) -> np.ndarray:
        """Document indices associated with a person (sorted)."""
        if self._person_docs is None:
            n_links = np.diff(self.assoc_indptr)
            docs = np.repeat(np.arange(self.n_documents, dtype=np.int64), n_links)
            order = np.argsort(self.assoc_people, kind="stable")
            indptr = np.zeros(self.n_people + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.assoc_people, minlength=self.n_people), out=indptr[1:])
            self._person_docs = (indptr, docs[order])
        indptr, docs = self._person_docs
        return docs[indptr[person] : indptr[person + 1]]

    def association_matrix(self):
        """Documents x people as a scipy CSR matrix of ones."""
        from scipy.sparse import csr_matrix

        data = np.ones(len(self.assoc_people), dtype=np.float64)
        return csr_matrix(
            (data, self.assoc_people, self.assoc_indptr), shape=(self.n_documents, self.n_people)
        )

    def stats(self) -> CollectionStats:
        """Table 1 of the paper. Lengths are in tokens after text processing."""
        per_doc = np.diff(self.assoc_indptr)
        with_people = per_doc[per_doc > 0]
        per_person = np.bincount(self.assoc_people, minlength=self.n_people)
        per_person = per_person[per_person > 0]
        lengths = self.doc_lengths
        return CollectionStats(
            documents=self.n_documents,
            average_document_length=float(lengths.mean()) if len(lengths) else 0.0,
            people_with_documents=int(len(per_person)),
            associations=int(len(self.assoc_people)),
            documents_with_people=int(len(with_people)),
            associations_per_document_mean=_mean(with_people),
            associations_per_document_sd=_sd(with_people),
            associations_per_person_mean=_mean(per_person),
            associations_per_person_sd=_sd(per_person),
        )

    # -- persistence (the on-disk cache, data/cache.py) -------------------------------------------
    def save(self, folder: str | Path) -> None:
        """Write the collection to a cache folder: .npy arrays and one JSON file, no pickle."""
        arrays = {name: np.asarray(getattr(self, name)) for name in cache.ARRAYS}
        arrays["vocab_counts"] = self.vocab.counts
        if self.doc_dates is not None:
            arrays["doc_dates"] = np.asarray(self.doc_dates)
            arrays["doc_date_units"] = np.asarray(
                self.doc_date_units if self.doc_date_units is not None else
                np.full(self.n_documents, DAY, dtype=np.uint8))
        meta = {
            "name": self.name,
            "source": self.source,
            "fingerprint": self.fingerprint,
            "doc_ids": self.doc_ids,
            "person_ids": self.person_ids,
            "person_names": self.person_names,
            "vocab": self.vocab.words,
            "settings": self.settings.to_dict(),
            "report": self.report.to_dict(),
            "dates": self.doc_dates is not None,
            **({"person_spellings": self.person_spellings} if self.person_spellings else {}),
        }
        if self.person_affiliations is not None:
            index: dict[str, int] = {}  # each affiliation written once, people by its index
            people = [[index.setdefault(place, len(index)) for place in places]
                      for places in self.person_affiliations]
            meta["person_affiliations"] = {"places": list(index), "people": people}
        cache.write(folder, arrays, meta)

    @classmethod
    def load(cls, folder: str | Path) -> Collection:
        """Read a folder written by `save`, checked first (`cache.read`); arrays are
        memory-mapped, so this is near instant."""
        arrays, meta = cache.read(folder)
        try:
            vocab = Vocabulary(meta["vocab"], arrays.pop("vocab_counts"))
        except ValueError as exc:
            raise CollectionError(folder, None, f"not a valid collection cache: {exc}") from None
        return cls(
            name=meta["name"],
            doc_ids=meta["doc_ids"],
            person_ids=meta["person_ids"],
            person_names=meta["person_names"],
            vocab=vocab,
            settings=TextSettings.from_dict(meta["settings"]),
            report=LoadReport.from_dict(meta["report"]),
            fingerprint=meta["fingerprint"],
            source=meta["source"],
            doc_dates=arrays.pop("doc_dates", None),
            doc_date_units=arrays.pop("doc_date_units", None),
            person_affiliations=_affiliations(meta.get("person_affiliations")),
            person_spellings=meta.get("person_spellings"),
            **arrays,
        )

    @classmethod
    def from_records(
        cls,
        documents: Iterable[tuple[str, str] | tuple[str, str, str]],
        associations: Iterable[tuple[str, str]],
        people: dict[str, str] | None = None,
        settings: TextSettings = TextSettings(),
        name: str = "collection",
        affiliations: Mapping[str, Sequence[str]] | None = None,
    ) -> Collection:
        """Build a collection in memory from (doc_id, text[, date]) and (doc_id, person_id),
        with display names and affiliations by person id."""
        b = CollectionBuilder(settings, name=name)
        for doc_id, text, *date in documents:
            b.add_document(doc_id, text, "<memory>", None, date=date[0] if date else "")
        for doc_id, person_id in associations:
            b.add_association(doc_id, person_id, "<memory>", None)
        people, affiliations = people or {}, affiliations or {}
        for person_id in dict.fromkeys([*people, *affiliations]):
            b.add_person(person_id, people.get(person_id, ""), "<memory>", None,
                         affiliations=affiliations.get(person_id, ()))
        return b.build()


class CollectionBuilder:
    """Streams records from a format reader into a Collection.

    Documents are tokenized as they arrive into provisional word ids; the vocabulary cut and the
    re-mapping to final ids happen once at the end. Raw text goes to a byte buffer (a file when
    `spill_dir` is given), so only the batch being tokenized is held as strings.

    Tokenizing is batched and gives exactly `Tokenizer.words` per document, faster: a few hundred
    documents are lower-cased, joined with a separator word that lower-cased text cannot contain
    and encoded as UTF-8; one `bytes.translate` turns every ASCII byte that is not a letter or
    digit into a space and `split` cuts the runs; one `map` through a memo gives each run its
    provisional id (stop words -1); numpy splits the ids back into documents. A run holding
    non-ASCII bytes is cut by the tokenizer's `split_run`, once, in the memo.
    """

    _BATCH_DOCS = 512
    _BATCH_CHARS = 1 << 20
    # Upper-case letters never survive str.lower(), so this word can only come from the joins.
    _SEPARATOR = "DOCUMENTBOUNDARY"

    def __init__(self, settings: TextSettings = TextSettings(), *, name: str = "collection",
                 report: LoadReport | None = None, spill_dir: str | Path | None = None):
        self.settings = settings
        self.name = name
        self.report = report or LoadReport()
        self.tokenizer = Tokenizer(settings)
        self._words: list[str] = []
        self._ids = _ProvisionalIds(self.tokenizer, self._words, self._SEPARATOR.encode())
        # One entry per batch: its provisional ids (stop words dropped), and each document's count.
        self._token_chunks: list[np.ndarray] = []
        self._chunk_doc_lengths: list[np.ndarray] = []
        self._pending: list[str] = []
        self._pending_chars = 0
        self._doc_ids: list[str] = []
        self._doc_index: dict[str, int] = {}
        self._doc_places = Places()
        # Associations, compactly: the document's index when it is already known (else -1 - k,
        # k indexing `_unresolved`), the person's index in `_linked_ids`, and where it was read.
        self._assoc_docs = array("q")
        self._unresolved: list[str] = []
        self._assoc_people = array("q")
        self._person_index: dict[str, int] = {}
        self._linked_ids: list[str] = []
        self._assoc_places = Places()
        self._people: dict[str, str] = {}
        self._people_where: dict[str, tuple[str, int | None]] = {}
        self._affiliations: dict[str, list[str]] = {}
        self._shared_places: dict[str, str] = {}
        self.people_edits = None  # the collection's PeopleEdits (formats/people_edits.py)
        self.spellings: dict[str, list[str]] = {}  # person id -> spellings, from the reader
        self._cut: set[str] = set()  # people whose affiliations were cut, reported once each
        self._text_offsets = array("q", [0])
        self._text_size = 0
        self._days = array("q")  # each document's date as days since 1970 (NO_DAY: none)
        self._units = array("B")  # and how precise it was given (dates.DAY, MONTH, YEAR)
        self._any_date = False
        if spill_dir is not None:
            fd, self._text_path = tempfile.mkstemp(suffix=".texts", dir=spill_dir)
            self._text_out = os.fdopen(fd, "wb")
        else:
            self._text_path = None
            self._text_out = None
            self._text_chunks: list[bytes] = []

    @property
    def n_documents(self) -> int:
        return len(self._doc_ids)

    def add_document(self, doc_id: str, text: str, file: str | Path, line: int | None,
                     people: Iterable[str] = (), date: str = "") -> None:
        """One document; `people` are associations given inline (e.g. a JSONL "people" field),
        `date` its date as text (see `parse_dated`; empty: undated)."""
        if doc_id in self._doc_index:
            first_file, first_line = self._doc_places[self._doc_index[doc_id]]
            where = f"{first_file}:{first_line}" if first_line is not None else first_file
            self.report.add("duplicate-id", file, line,
                            f"document id {doc_id!r} already seen at {where}; this one is ignored")
            return
        self._doc_index[doc_id] = len(self._doc_ids)
        self._doc_ids.append(doc_id)
        self._doc_places.append(file, line)
        day, unit = self._day(date, doc_id, file, line)
        self._days.append(day)
        self._units.append(unit)
        self._pending.append(text)
        self._pending_chars += len(text)
        if len(self._pending) >= self._BATCH_DOCS or self._pending_chars >= self._BATCH_CHARS:
            self._tokenize_pending()
        for person in people:
            self.add_association(doc_id, person, file, line)

    def _day(self, date: str, doc_id: str, file: str | Path,
             line: int | None) -> tuple[int, int]:
        if not date or not date.strip():
            return NO_DAY, DAY
        parsed = parse_dated(date)
        if parsed is None:
            self.report.add("invalid-date", file, line,
                            f"document {doc_id!r}: expected a date like 2021-03-04, 2021-03 or "
                            f"2021, found {date.strip()[:40]!r}; the document is kept, undated")
            return NO_DAY, DAY
        self._any_date = True
        return int(parsed[0].astype(np.int64)), parsed[1]

    def _tokenize_pending(self) -> None:
        """Store and tokenize the pending documents in one pass; report those left without words."""
        if not self._pending:
            return
        n = len(self._pending)
        raws = [t.encode("utf-8", errors="replace") for t in self._pending]
        raw = b"".join(raws)
        if self._text_out is not None:
            try:
                self._text_out.write(raw)
            except OSError:  # a full disk: the file is closed, so deleting it frees the space
                with contextlib.suppress(OSError):
                    self._text_out.close()
                raise
        else:
            self._text_chunks.append(raw)
        self._text_offsets.extend((self._text_size + np.cumsum(list(map(len, raws)))).tolist())
        self._text_size += len(raw)
        joined = f" {self._SEPARATOR} ".join([t.lower() for t in self._pending])
        runs = joined.encode("utf-8", "surrogatepass").translate(_RUN_BYTES).split()
        ids = np.frombuffer(array("q", map(self._ids.__getitem__, runs)), dtype=np.int64)
        if self._ids.expansions:
            ids = self._ids.expand(ids)
        if len(self._ids) > _MEMO_LIMIT:
            self._ids.forget()
        doc_of = np.cumsum(ids == _SEPARATOR_ID)
        keep = ids >= 0
        per_doc = np.bincount(doc_of[keep], minlength=n)
        self._token_chunks.append(ids[keep].astype(np.uint32))
        self._chunk_doc_lengths.append(per_doc)
        first = len(self._doc_ids) - n
        for k in np.flatnonzero(per_doc == 0).tolist():
            file, line = self._doc_places[first + k]
            self.report.add("empty-document", file, line,
                            f"document {self._doc_ids[first + k]!r} has no words left after "
                            "text processing")
        self._pending = []
        self._pending_chars = 0

    def add_association(self, doc_id: str, person_id: str, file: str | Path,
                        line: int | None) -> None:
        d = self._doc_index.get(doc_id)
        if d is None:
            d = -1 - len(self._unresolved)
            self._unresolved.append(doc_id)
        self._assoc_docs.append(d)
        p = self._person_index.get(person_id)
        if p is None:
            p = self._person_index[person_id] = len(self._linked_ids)
            self._linked_ids.append(person_id)
        self._assoc_people.append(p)
        self._assoc_places.append(file, line)

    def add_person(self, person_id: str, display_name: str, file: str | Path,
                   line: int | None, *, affiliations: Iterable[str] = ()) -> None:
        """A person's display name, and affiliations added to those given before."""
        self._people[person_id] = display_name or person_id
        self._people_where[person_id] = (str(file), line)
        if not affiliations:
            return
        kept = self._affiliations.setdefault(person_id, [])
        if gather(kept, affiliations, self._shared_places) and person_id not in self._cut:
            self._cut.add(person_id)
            self.report.add("affiliations-cut", file, line,
                            f"person {person_id!r}: affiliations past the first "
                            f"{MAX_AFFILIATIONS}, or past {MAX_AFFILIATION_CHARS} characters, "
                            "left out")

    def _final_tokens(self) -> tuple[Vocabulary, np.ndarray, np.ndarray]:
        """Cut the vocabulary and map each batch to final ids, one batch at a time, so that the
        peak memory is the provisional ids plus the final ones, not several copies of them."""
        counts = np.zeros(len(self._words), dtype=np.int64)
        for chunk in self._token_chunks:
            ids, n = np.unique(chunk, return_counts=True)
            counts[ids] += n
        vocab, remap = Vocabulary.from_counts(self._words, counts, self.settings)
        remap = remap.astype(np.int32)
        out, lengths = [], []
        while self._token_chunks:
            chunk, per_doc = self._token_chunks.pop(0), self._chunk_doc_lengths.pop(0)
            final = remap[chunk]
            keep = final >= 0
            doc_of = np.repeat(np.arange(len(per_doc)), per_doc)
            lengths.append(np.bincount(doc_of[keep], minlength=len(per_doc)))
            out.append(final[keep].astype(vocab.dtype))
        doc_offsets = np.zeros(len(self._doc_ids) + 1, dtype=np.int64)
        if lengths:
            np.cumsum(np.concatenate(lengths), out=doc_offsets[1:])
        tokens = np.concatenate(out) if out else np.zeros(0, dtype=vocab.dtype)
        return vocab, tokens, doc_offsets

    def build(self, *, fingerprint: str = "", source: str = "") -> Collection:
        """Resolve associations, cut the vocabulary, and return the collection."""
        docs = np.frombuffer(self._assoc_docs, dtype=np.int64).copy()
        for k in np.flatnonzero(docs < 0).tolist():
            doc_id = self._unresolved[-1 - int(docs[k])]
            d = self._doc_index.get(doc_id)
            docs[k] = -1 if d is None else d
            if d is None:
                file, line = self._assoc_places[k]
                person_id = self._linked_ids[self._assoc_people[k]]
                self.report.add("unknown-document", file, line,
                                f"association of {person_id!r} to unknown document {doc_id!r}")
        rows = np.flatnonzero(docs >= 0)
        people = np.frombuffer(self._assoc_people, dtype=np.int64)[rows]
        linked = np.unique(people)
        has_document = np.zeros(len(self._linked_ids), dtype=bool)
        has_document[linked] = True
        for person_id, (file, line) in self._people_where.items():
            p = self._person_index.get(person_id)
            if p is None or not has_document[p]:
                self.report.add("unknown-person", file, line,
                                f"person {person_id!r} has no document; not a candidate")
        # Candidates are the people with at least one document, sorted by id for stable indices.
        ids = self._edited([self._linked_ids[p] for p in linked.tolist()])
        ordered = sorted(set(ids))
        position = {pid: k for k, pid in enumerate(ordered)}
        old_to_new = np.full(len(self._linked_ids), -1, dtype=np.int64)
        old_to_new[linked] = [position[pid] for pid in ids]
        n_docs = len(self._doc_ids)
        doc_col, person_col = docs[rows], old_to_new[people]
        # One link per (document, person): later repeats are reported, in reading order (two
        # people merged by hand on one document are no repeat).
        _, first = np.unique(doc_col * max(len(ordered), 1) + person_col, return_index=True)
        _, once = (np.unique(doc_col * len(self._linked_ids) + people, return_index=True)
                   if len(ordered) < len(ids) else (None, first))
        repeated = np.ones(len(doc_col), dtype=bool)
        repeated[once] = False
        for k in np.flatnonzero(repeated).tolist():
            file, line = self._assoc_places[int(rows[k])]
            self.report.add("duplicate-association", file, line,
                            f"{self._doc_ids[doc_col[k]]!r} - {ordered[person_col[k]]!r} "
                            "given twice")
        first.sort()
        order = np.lexsort((person_col[first], doc_col[first]))
        doc_col, person_col = doc_col[first][order], person_col[first][order]
        indptr = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(doc_col, minlength=n_docs), out=indptr[1:])
        for d in np.flatnonzero(np.diff(indptr) == 0):
            file, line = self._doc_places[d]
            self.report.add("no-people", file, line,
                            f"document {self._doc_ids[d]!r} has no person; it is not trained on")

        self._tokenize_pending()
        vocab, tokens, doc_offsets = self._final_tokens()

        text_offsets = np.frombuffer(self._text_offsets, dtype=np.int64).copy()
        if self._text_out is not None:
            self._text_out.close()
            text_bytes = (np.memmap(self._text_path, dtype=np.uint8, mode="r")
                          if self._text_size else np.zeros(0, np.uint8))
        else:
            text_bytes = np.frombuffer(b"".join(self._text_chunks), dtype=np.uint8)
            self._text_chunks = []

        places = [tuple(self._affiliations.get(pid, ())) for pid in ordered]
        with_places = sum(map(bool, places))
        self.report.counts.update({
            "documents": n_docs,
            "people": len(ordered),
            **({"people with affiliations": with_places} if with_places else {}),
            "associations": int(len(doc_col)),
            "vocabulary": len(vocab),
            "tokens": int(len(tokens)),
        })
        return Collection(
            name=self.name,
            doc_ids=self._doc_ids,
            person_ids=ordered,
            person_names=[self._people.get(pid, pid) for pid in ordered],
            assoc_indptr=indptr,
            assoc_people=person_col.astype(np.int32),
            tokens=tokens,
            doc_offsets=doc_offsets,
            vocab=vocab,
            settings=self.settings,
            text_bytes=text_bytes,
            text_offsets=text_offsets,
            report=self.report,
            fingerprint=fingerprint,
            source=source,
            doc_dates=(np.frombuffer(self._days, dtype=np.int64).astype("datetime64[D]")
                       if self._any_date else None),
            doc_date_units=(np.frombuffer(self._units, dtype=np.uint8).copy()
                            if self._any_date else None),
            person_affiliations=places,
            person_spellings={p: self.spellings[p] for p in ordered if p in self.spellings},
        )

    def _edited(self, ids: list[str]) -> list[str]:
        """The linked people after the people edits the reader left (a reader that knows how
        each document writes its authors applies them itself): merges, with affiliations."""
        if self.people_edits is None:
            return ids
        new = self.people_edits.apply(ids, self._people, self.report)
        for old, pid in zip(ids, new, strict=True):
            if old != pid and old in self._affiliations:
                gather(self._affiliations.setdefault(pid, []), self._affiliations[old],
                       self._shared_places)
        return new


# Bytes that may belong to a token: ASCII letters and digits, and every byte of a multi-byte
# UTF-8 character (those runs are cut by `Tokenizer.split_run`). The rest become spaces.
_RUN_BYTES = bytes(
    c if (chr(c).isascii() and chr(c).isalnum()) or c >= 0x80 else 0x20 for c in range(256)
)
_STOP_ID = -1
_SEPARATOR_ID = -2
_FIRST_EXPANSION_ID = -3
# Distinct runs remembered before the memo starts afresh: hashes and numbers in a large
# collection would otherwise grow it without bound.
_MEMO_LIMIT = 1 << 20


class _ProvisionalIds(dict):
    """A run of token bytes -> provisional word id, filled on demand.

    Stop words map to -1. A run that is not exactly one word (non-ASCII punctuation inside it)
    maps to an expansion id <= -3 that `expand` replaces by the run's words.
    """

    def __init__(self, tokenizer: Tokenizer, words: list[str], separator: bytes):
        super().__init__()
        self._tokenizer = tokenizer
        self._words = words
        self._word_ids: dict[str, int] = {}
        self._separator = separator
        self[separator] = _SEPARATOR_ID
        self.expansions: list[np.ndarray] = []

    def _word_id(self, token: str) -> int:
        word = self._tokenizer.normalise(token)
        if word is None:
            return _STOP_ID
        i = self._word_ids.get(word)
        if i is None:
            i = self._word_ids[word] = len(self._words)
            self._words.append(word)
        return i

    def __missing__(self, run: bytes) -> int:
        if run.isascii():
            i = self._word_id(run.decode("ascii"))
        else:
            tokens = self._tokenizer.split_run(run.decode("utf-8", "surrogatepass"))
            if len(tokens) == 1:
                i = self._word_id(tokens[0])
            else:
                i = _FIRST_EXPANSION_ID - len(self.expansions)
                self.expansions.append(
                    np.array([self._word_id(t) for t in tokens], dtype=np.int64))
        self[run] = i
        return i

    def forget(self) -> None:
        """Drop the remembered runs (ids of words stay as they are)."""
        self.clear()
        self[self._separator] = _SEPARATOR_ID
        self.expansions.clear()
        self._tokenizer.forget()

    def expand(self, ids: np.ndarray) -> np.ndarray:
        """Replace every expansion id by the words of its run."""
        where = np.flatnonzero(ids <= _FIRST_EXPANSION_ID)
        if not len(where):
            return ids
        pieces, start = [], 0
        for pos in where.tolist():
            pieces += [ids[start:pos], self.expansions[_FIRST_EXPANSION_ID - int(ids[pos])]]
            start = pos + 1
        pieces.append(ids[start:])
        return np.concatenate(pieces)


def _affiliations(table: dict | None) -> list[tuple[str, ...]] | None:
    """People's affiliations from the cache's table of them (None: the cache has none)."""
    if table is None:
        return None
    places = table["places"]
    return [tuple(places[i] for i in row) for row in table["people"]]


def _mean(x: np.ndarray) -> float:
    return float(np.mean(x)) if len(x) else 0.0


def _sd(x: np.ndarray) -> float:
    return float(np.std(x)) if len(x) else 0.0
