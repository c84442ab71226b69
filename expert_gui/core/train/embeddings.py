"""Pretrained word vectors as the initial W_p (section 4.4 used word2vec's Google News vectors).

Reads word2vec binary, word2vec text (a "count dim" header line) and GloVe text (no header),
told apart from the file's first bytes. Words are matched to the vocabulary case-insensitively
(the vocabulary is lower case); when a file holds several spellings of a word, the lower-case
one wins, else the first seen. Only the vectors of vocabulary words are kept, so a 3.6 GB file
costs |V| x e floats of memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from expert_gui.core.data.inputs import open_regular
from expert_gui.core.data.text import PAD_ID, Vocabulary
from expert_gui.core.errors import EmbeddingsFileError

FORMATS = ("word2vec-binary", "word2vec-text", "glove")


@dataclass
class WordVectors:
    """Vectors aligned with a vocabulary: row i is word i's vector where found[i]."""

    path: str
    format: str
    vectors: np.ndarray  # |V| x dim float32 (zeros where not found)
    found: np.ndarray  # |V| bool
    file_words: int

    @property
    def dim(self) -> int:
        return self.vectors.shape[1]

    def coverage(self) -> dict:
        """How much of the vocabulary the file covers (padding excluded)."""
        words = len(self.found) - 1
        hits = int(self.found.sum())
        return {"path": self.path, "format": self.format, "dim": self.dim,
                "file_words": self.file_words, "vocabulary": words, "found": hits,
                "fraction": hits / words if words else 0.0}

    def summary(self) -> str:
        c = self.coverage()
        return (f"{c['found']:,} of {c['vocabulary']:,} words ({c['fraction']:.1%}) found in "
                f"{c['path']} ({c['format']}, {c['file_words']:,} words, {c['dim']} dimensions)")


def detect_format(path: str | Path) -> str:
    """word2vec (binary or text) when the first line is "count dim", else GloVe."""
    path = Path(path)
    with _open(path) as f:
        first = f.readline(1 << 20)
        header = first.split()
        if len(header) == 2 and all(x.isdigit() for x in header):
            line = f.readline(1 << 20)
            try:
                fields = line.decode("utf-8").split()
                [float(x) for x in fields[1:]]
                return "word2vec-text" if len(fields) == int(header[1]) + 1 else "word2vec-binary"
            except (UnicodeDecodeError, ValueError):
                return "word2vec-binary"
    return "glove"


def load_word_vectors(path: str | Path, vocab: Vocabulary) -> WordVectors:
    """The vectors of a file for the words of a vocabulary."""
    path = Path(path)
    fmt = detect_format(path)
    reader = _read_binary if fmt == "word2vec-binary" else _read_text
    index = vocab.index
    vectors: np.ndarray | None = None
    found = np.zeros(len(vocab), dtype=bool)
    exact = np.zeros(len(vocab), dtype=bool)  # the row came from the lower-case spelling
    n = 0
    for word, line, vector in reader(path, fmt):
        n += 1
        if vectors is None:
            vectors = np.zeros((len(vocab), len(vector)), dtype=np.float32)
        elif len(vector) != vectors.shape[1]:
            raise EmbeddingsFileError(path, line, f"{len(vector)} numbers where the first vector "
                                      f"had {vectors.shape[1]}")
        lower = word.lower()
        i = index.get(lower)
        if i is None or i == PAD_ID or exact[i] or (found[i] and lower != word):
            continue
        vectors[i] = vector
        found[i] = True
        exact[i] = lower == word
    if vectors is None:
        raise EmbeddingsFileError(path, None, "no word vectors in the file")
    return WordVectors(str(path), fmt, vectors, found, n)


def _open(path: Path):
    return open_regular(path, EmbeddingsFileError)


def _read_text(path: Path, fmt: str):
    """(word, line number, vector) of a word2vec text or GloVe file."""
    with _open(path) as f:
        dim = None
        for line_no, raw in enumerate(f, start=1):
            if line_no == 1 and fmt == "word2vec-text":
                dim = int(raw.split()[1])
                continue
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise EmbeddingsFileError(path, line_no, "not valid UTF-8") from exc
            fields = text.rstrip("\r\n").rstrip(" ").split(" ")
            if fields == [""]:
                continue
            try:
                vector = np.asarray(fields[1:], dtype=np.float32)
            except ValueError as exc:
                raise EmbeddingsFileError(path, line_no, f"expected a word and numbers: {exc}") \
                    from exc
            if len(vector) == 0 or (dim is not None and len(vector) != dim):
                raise EmbeddingsFileError(path, line_no, f"expected {dim or 'some'} numbers after "
                                          f"the word, found {len(vector)}")
            yield fields[0], line_no, vector


def _read_binary(path: Path, fmt: str):
    """(word, record number, vector) of a word2vec binary file: "word " then dim float32s."""
    with _open(path) as f:
        header = f.readline().split()
        count, dim = int(header[0]), int(header[1])
        size = 4 * dim
        for record in range(1, count + 1):
            word = bytearray()
            while True:
                ch = f.read(1)
                if not ch:
                    raise EmbeddingsFileError(path, None, f"the file ends in record {record} of "
                                              f"{count} (truncated?)")
                if ch == b" ":
                    break
                if ch != b"\n":
                    word += ch
            data = f.read(size)
            if len(data) < size:
                raise EmbeddingsFileError(path, None, f"the file ends in record {record} of "
                                          f"{count} (truncated?)")
            yield word.decode("utf-8", errors="replace"), record, np.frombuffer(data, "<f4")
