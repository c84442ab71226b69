"""Text processing of the paper's section 4.4: the tokenizer and the vocabulary.

Lowercase; punctuation removed; stop words removed; numbers folded into one number token (see
`NUMBER_RULES` for what counts as a number); the vocabulary is the `vocab_size` most frequent words (2^16 in the paper, so that a
word fits an unsigned 16-bit integer) with id 0 reserved for the padding token that fills an
incomplete n-gram. Out-of-vocabulary tokens are removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from expert_gui.core import schema
from expert_gui.core.data.inputs import read_regular
from expert_gui.core.errors import InputFileError

PAD_TOKEN = "<pad>"
PAD_ID = 0
NUMBER_TOKEN = "<num>"

# A token is a maximal run of letters and digits: everything else (punctuation, underscores,
# white space) separates tokens and is dropped.
TOKEN_RE = re.compile(r"[^\W_]+")

# Which tokens are numbers, by rule. Tokens are lower-cased runs of letters and digits, so "3.14",
# "1.2.3", "2026-06-29" and "10.0.0.1" arrive as runs of digits and fold under every rule.
# "numbers" (the default) folds integers and C hex literals ("0x8100"): values, not names.
#   Words that hold a digit stay words: mlx5, i40e, e1000, ipv6, x86, 5g, covid, gpt4. Bare hex
#   strings stay too, since "e810" or "acc100" cannot be told from a hash by their letters.
# "any-digit" folds every token that holds a digit (the rule before; the paper says "numbers").
# "numeric" folds runs of digits only: the rule of an earlier version, still read so that models
#   trained with it see their text as they were trained; not offered for new ones.
_NUMBER_PATTERNS = {
    "numbers": re.compile(r"\d+|0x[0-9a-f]+").fullmatch,
    "any-digit": re.compile(r"\d").search,
    "numeric": re.compile(r"\d+").fullmatch,
}
NUMBER_RULES = ("numbers", "any-digit")  # offered for new models
KNOWN_NUMBER_RULES = tuple(_NUMBER_PATTERNS)  # any a saved model or cache may name
NUMBER_RULE_LABELS = {
    "numbers": "integers and 0x hex literals",
    "any-digit": "every token holding a digit",
    "numeric": "runs of digits",
}


@dataclass(frozen=True)
class TextSettings:
    """How raw text becomes token ids. Saved with every model, so queries match training.

    vocab_size counts the padding token: 2^16 ids fit in uint16.
    stopwords: "english" (scikit-learn's list), "none", or the path of a file with one word a line.
    numbers: which tokens become the number token: "numbers" (the default: integers and hex
    literals, so names such as "mlx5" stay words) or "any-digit" (every token holding a digit).
    Models and caches record their rule, so changing the default changes neither.
    """

    vocab_size: int = 2**16
    min_count: int = 1
    stopwords: str = "english"
    numbers: str = "numbers"
    extra_stopwords: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self):
        if self.vocab_size < 2:
            raise ValueError("vocab_size must be at least 2 (the padding token and one word)")
        if self.min_count < 1:
            raise ValueError("min_count must be at least 1")
        if self.numbers not in KNOWN_NUMBER_RULES:
            raise ValueError(f"numbers must be one of {NUMBER_RULES}, not {self.numbers!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["extra_stopwords"] = list(self.extra_stopwords)
        return d

    def describe(self) -> str:
        """One line for people: what the text processing keeps and folds."""
        stop = {"english": "English stop words removed", "none": "no stop words"}.get(
            self.stopwords, f"stop words from {self.stopwords}")
        return (f"number rule '{self.numbers}' ({NUMBER_RULE_LABELS[self.numbers]} folded), "
                f"lower-cased, {stop}, vocabulary up to {self.vocab_size:,} words")

    @classmethod
    def from_dict(cls, d: dict) -> TextSettings:
        d = dict(d)
        d["extra_stopwords"] = tuple(d.get("extra_stopwords", ()))
        return cls(**d)


def load_stopwords(settings: TextSettings) -> frozenset[str]:
    """The stop-word set the settings name (a user's list is one word a line, '#' comments)."""
    if settings.stopwords == "english":
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

        words = set(ENGLISH_STOP_WORDS)
    elif settings.stopwords == "none":
        words = set()
    else:
        path = Path(settings.stopwords)
        try:
            raw = read_regular(path).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputFileError(path, None, f"cannot read the stop-word list: {exc}") from exc
        words = {ln.strip().lower() for ln in raw.splitlines()}
        words = {w for w in words if w and not w.startswith("#")}
    words.update(w.lower() for w in settings.extra_stopwords)
    return frozenset(words)


def inline_stopwords(settings: TextSettings) -> TextSettings:
    """The same settings with a stop-word file's words in place of its path, so that what is
    saved (a cache, a model) carries the list itself and is never read from a path it names."""
    if settings.stopwords in ("english", "none"):
        return settings
    return replace(settings, stopwords="none",
                   extra_stopwords=tuple(sorted(load_stopwords(settings))))


class Tokenizer:
    """Turns text into the words the model sees (before the vocabulary cut).

    The per-token decision (stop word? number?) is memoised per distinct token, so a corpus costs
    one regular-expression pass and one dictionary look-up per token.
    """

    def __init__(self, settings: TextSettings = TextSettings()):
        self.settings = settings
        self.stopwords = load_stopwords(settings)
        self._is_number = _NUMBER_PATTERNS[settings.numbers]
        self._memo: dict[str, str | None] = {}

    def normalise(self, token: str) -> str | None:
        """The word a lower-cased token stands for, or None for a stop word."""
        word = self._memo.get(token, "")
        if word != "":
            return word
        if token in self.stopwords:
            word = None
        elif self._is_number(token):
            word = NUMBER_TOKEN
        else:
            word = token
        self._memo[token] = word
        return word

    def forget(self) -> None:
        """Empty the memo (a long stream of distinct tokens would grow it without bound)."""
        self._memo.clear()

    def words(self, text: str) -> list[str]:
        norm = self.normalise
        return [w for w in map(norm, TOKEN_RE.findall(text.lower())) if w is not None]


@dataclass
class Vocabulary:
    """Words by id; id 0 is the padding token. `counts[i]` is word i's collection frequency."""

    words: list[str]
    counts: np.ndarray

    def __post_init__(self):
        if not self.words or self.words[0] != PAD_TOKEN:
            raise ValueError("a vocabulary starts with the padding token")
        self.index = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    @property
    def dtype(self) -> np.dtype:
        """The smallest unsigned integer type that holds every id."""
        return np.dtype(np.uint16) if len(self.words) <= 2**16 else np.dtype(np.uint32)

    def encode(self, words: Iterable[str]) -> tuple[np.ndarray, list[str]]:
        """Ids of the known words, and the unknown words in their order of appearance."""
        ids, unknown = [], []
        for w in words:
            i = self.index.get(w)
            if i is None or i == PAD_ID:
                unknown.append(w)
            else:
                ids.append(i)
        return np.asarray(ids, dtype=np.int64), unknown

    @classmethod
    def from_counts(cls, words: Sequence[str], counts: np.ndarray, settings: TextSettings):
        """Keep the `vocab_size - 1` most frequent words with at least `min_count` occurrences.

        Ties are broken by the word itself, so the vocabulary does not depend on reading order.
        Returns the vocabulary and, for every input word, its new id (or -1 when cut).
        """
        counts = np.asarray(counts, dtype=np.int64)
        keep = np.flatnonzero(counts >= settings.min_count)
        order = sorted(keep.tolist(), key=lambda i: (-counts[i], words[i]))
        order = order[: settings.vocab_size - 1]
        remap = np.full(len(words), -1, dtype=np.int64)
        remap[order] = np.arange(1, len(order) + 1)
        vocab = cls(
            [PAD_TOKEN] + [words[i] for i in order],
            np.concatenate([[0], counts[order]]).astype(np.int64),
        )
        return vocab, remap


def check_text_settings(value, where: str) -> None:
    """A TextSettings dict with every field of its type; stop words never a path."""
    kinds = {f.name: tuple if f.default_factory is not MISSING else type(f.default)
             for f in fields(TextSettings)}
    by_kind = {int: schema.integer(1), str: schema.string, tuple: schema.list_of(schema.string)}
    checks = {name: by_kind.get(kind, schema.json_value) for name, kind in kinds.items()}
    checks["numbers"] = schema.one_of(KNOWN_NUMBER_RULES)
    schema.obj(required={}, optional_keys=checks)(value, where)
    stopwords = value.get("stopwords", TextSettings().stopwords)
    if stopwords not in ("english", "none"):
        raise schema.SchemaError(
            schema.join(where, "stopwords"),
            f"names a file ({schema.short(stopwords)}); a model carries its stop words and never "
            "reads a path it names: retrain it with this version")
    try:
        TextSettings.from_dict(value)
    except (TypeError, ValueError) as exc:
        raise schema.SchemaError(where, str(exc)) from None
