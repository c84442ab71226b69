"""Text processing of the paper's section 4.4: the tokenizer and the vocabulary.

Lowercase; punctuation removed; stop words removed; numbers folded into one number token (see
`NUMBER_RULES` for what counts as a number); the vocabulary is the `vocab_size` most frequent words (2^16 in the paper, so that a
word fits an unsigned 16-bit integer) with id 0 reserved for the padding token that fills an
incomplete n-gram. Out-of-vocabulary tokens are removed.

Text in every script (`SEGMENTATIONS`): Unicode is folded (NFKC and case: "ｓｏｌａｒ", "ﬁ",
"x²" are "solar", "fi", "x2"), and Chinese, Japanese and Korean, which write no spaces between
words (and Korean none between a word and its particle), are cut into overlapping pairs of
characters, the practice of Lucene's CJK analyzer and of Anserini for these languages: "人工智能"
is 人工 工智 智能, so a query finds a term inside running text, and the query is cut the same way.
A model records its rule, so a model trained before keeps reading text as it was trained.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
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

# How text is cut into tokens, by rule.
# "cjk-bigrams" (the default): Unicode folded (NFKC, then case), words kept whole with their
#   combining marks (Devanagari's vowel signs, Thai's), and runs of Han, Kana and Hangul cut
#   into overlapping pairs of characters (a lone character is a token of its own).
# "runs": the rule before, still read so that models and caches made with it see their text as
#   they were trained: lower-cased runs of letters and digits, nothing folded; a clause of
#   Chinese or Japanese is one token, a Korean word keeps its particle.
SEGMENTATIONS = ("cjk-bigrams",)  # offered for new models
KNOWN_SEGMENTATIONS = ("cjk-bigrams", "runs")  # any a saved model or cache may name
EARLIER_SEGMENTATION = "runs"  # what settings saved without the key were read with
SEGMENTATION_LABELS = {
    "cjk-bigrams": "Unicode folded (NFKC, case), Chinese, Japanese and Korean as pairs of "
                   "characters",
    "runs": "lower-cased runs of letters and digits (the earlier rule: nothing folded, a "
            "Chinese or Japanese clause one word)",
}
# Runs of letters, digits and non-ASCII characters: what the "cjk-bigrams" rule looks at one by
# one. ASCII punctuation and spaces end a run, so a run of ASCII is one token as it stands and
# only runs holding other characters are folded and cut (CollectionBuilder relies on this).
_RUN_RE = re.compile(r"[0-9a-z\x80-\U0010ffff]+")
# Han (with its iteration marks and 〇), Hiragana, Katakana (with ー), Hangul syllables and jamo.
_CJK = ("\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3031-\u3035\u303b\u303c\u3041-\u309f"
        "\u30a1-\u30fa\u30fc-\u30ff\u3131-\u318e\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
        "\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\U00020000-\U0003134f")
_SCRIPT_RE = re.compile(f"([{_CJK}]+)|([^{_CJK}]+)")
_CJK_WORD = re.compile(f"[{_CJK}]+")
# Characters that join or soften a word without being part of it (soft hyphen, zero-width
# joiners, word joiner, byte-order mark) go; a zero-width space, which separates words in
# scripts without spaces, separates them here too.
_INVISIBLE = str.maketrans({"\u00ad": None, "\u200c": None, "\u200d": None, "\u2060": None,
                            "\ufeff": None, "\u200b": " "})


@dataclass(frozen=True)
class TextSettings:
    """How raw text becomes token ids. Saved with every model, so queries match training.

    vocab_size counts the padding token: 2^16 ids fit in uint16.
    stopwords: "english" (scikit-learn's list), "none", or the path of a file with one word a line.
    numbers: which tokens become the number token: "numbers" (the default: integers and hex
    literals, so names such as "mlx5" stay words) or "any-digit" (every token holding a digit).
    segmentation: how text is cut into tokens (`SEGMENTATIONS`); settings saved without it
    were made with the earlier rule, `EARLIER_SEGMENTATION`, and `from_dict` says so.
    Models and caches record their rules, so changing a default changes neither.
    """

    vocab_size: int = 2**16
    min_count: int = 1
    stopwords: str = "english"
    numbers: str = "numbers"
    extra_stopwords: tuple[str, ...] = field(default_factory=tuple)
    segmentation: str = "cjk-bigrams"

    def __post_init__(self):
        if self.vocab_size < 2:
            raise ValueError("vocab_size must be at least 2 (the padding token and one word)")
        if self.min_count < 1:
            raise ValueError("min_count must be at least 1")
        if self.numbers not in KNOWN_NUMBER_RULES:
            raise ValueError(f"numbers must be one of {NUMBER_RULES}, not {self.numbers!r}")
        if self.segmentation not in KNOWN_SEGMENTATIONS:
            raise ValueError(f"segmentation must be one of {KNOWN_SEGMENTATIONS}, not "
                             f"{self.segmentation!r}")

    def to_dict(self) -> dict:
        d = asdict(self)
        d["extra_stopwords"] = list(self.extra_stopwords)
        return d

    def describe(self) -> str:
        """One line for people: what the text processing keeps and folds."""
        stop = {"english": "English stop words removed", "none": "no stop words"}.get(
            self.stopwords, f"stop words from {self.stopwords}")
        return (f"number rule '{self.numbers}' ({NUMBER_RULE_LABELS[self.numbers]} folded), "
                f"{SEGMENTATION_LABELS[self.segmentation]}, {stop}, vocabulary up to "
                f"{self.vocab_size:,} words")

    @classmethod
    def from_dict(cls, d: dict) -> TextSettings:
        """Settings as saved; saved without a segmentation, they were made with the earlier
        rule and keep it."""
        d = dict(d)
        d["extra_stopwords"] = tuple(d.get("extra_stopwords", ()))
        d.setdefault("segmentation", EARLIER_SEGMENTATION)
        return cls(**d)


def text_rule_note(settings: TextSettings, words: Sequence[str] = ()) -> str | None:
    """The sentence that says a model's collection was read with the earlier text rule, or
    None. With `words` (the model's vocabulary), None too when every word is ASCII: such text
    reads the same under either rule."""
    if settings.segmentation != EARLIER_SEGMENTATION:
        return None
    if words and all(w.isascii() for w in words):
        return None
    return ("This model's collection was read with the earlier text rule: Chinese, Japanese "
            "and Korean text was not cut into words and Unicode was not folded, so such words "
            "are found only where they stood alone. Train a new model to search them.")


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
        self._bigrams = settings.segmentation == "cjk-bigrams"

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
        if not self._bigrams:
            return [w for w in map(norm, TOKEN_RE.findall(text.lower())) if w is not None]
        out = []
        for run in _RUN_RE.findall(text.lower()):
            for token in (run,) if run.isascii() else _split_run(run):
                word = norm(token)
                if word is not None:
                    out.append(word)
        return out

    def count_words(self, text: str) -> int:
        """How many words a text holds, as a query's length is counted (a short topic or a
        whole document): its words, a pair of Chinese, Japanese or Korean characters counting
        half (a run of n characters makes n - 1 pairs; a word of those languages is about two
        characters), rounded up."""
        words = self.words(text)
        pairs = sum(1 for w in words if len(w) == 2 and _CJK_WORD.fullmatch(w))
        return len(words) - pairs + (pairs + 1) // 2

    def split_run(self, run: str) -> list[str]:
        """The tokens (before stop words and numbers) of one lower-cased run of letters, digits
        and non-ASCII characters, as `words` cuts it: the CollectionBuilder cuts a collection's
        runs that hold non-ASCII characters with it, so documents are read as queries are."""
        return _split_run(run) if self._bigrams else TOKEN_RE.findall(run)


def _split_run(run: str) -> list[str]:
    """The "cjk-bigrams" rule on one run: its words (letters, digits and their marks; a symbol
    such as ™ ends a word before folding could make letters of it), each folded and cut again,
    Han, Kana and Hangul into overlapping pairs."""
    out: list[str] = []
    word_re = _word_re()
    for written in word_re.findall(run.translate(_INVISIBLE)):
        for token in word_re.findall(_folded(written)):
            out.extend(_cut(token))
    return out


def _folded(word: str) -> str:
    """NFKC and case folded (NFKC once more where case folding undid a composition)."""
    if word.isascii():
        return word.lower()
    folded = unicodedata.normalize("NFKC", word).casefold()
    return folded if folded.isascii() else unicodedata.normalize("NFKC", folded)


def _cut(token: str) -> list[str]:
    """A folded word as tokens: itself, or its Han, Kana and Hangul runs as overlapping pairs
    (a lone character as itself) between its other letters and digits ("vr技术": vr, 技术)."""
    if token.isascii():
        return [token]
    out = []
    for cjk, other in _SCRIPT_RE.findall(token):
        if other:
            out.append(other)
        elif len(cjk) == 1:
            out.append(cjk)
        else:
            out.extend(cjk[i:i + 2] for i in range(len(cjk) - 1))
    return out


def highlight_pattern(words: Iterable[str]) -> re.Pattern | None:
    """A pattern that finds the given words in a document's raw text, to show them: a word of
    Chinese, Japanese or Korean characters wherever it stands (it is a pair cut from running
    text), any other word whole; case ignored. None for no words. Longer words are tried first,
    so that "人工" and "工智" of "人工智能" mark as much of it as they cover."""
    words = sorted({w for w in words if w}, key=lambda w: (-len(w), w))
    if not words:
        return None
    alternatives = [re.escape(w) if _CJK_WORD.fullmatch(w) else rf"\b{re.escape(w)}\b"
                    for w in words]
    return re.compile("|".join(alternatives), re.IGNORECASE)


@functools.cache
def _word_re() -> re.Pattern:
    """A word: a letter or digit, then letters, digits and combining marks (a vowel sign of
    Devanagari or Thai belongs to its word). Built on first use from the Unicode database."""
    marks = [c for c in (*range(0x20000), *range(0xE0100, 0xE01F0))
             if unicodedata.category(chr(c)) in ("Mn", "Mc", "Me")]
    ranges, start = [], marks[0]
    for prev, c in zip(marks, marks[1:] + [sys.maxunicode + 2], strict=True):
        if c != prev + 1:
            ranges.append(f"\\U{start:08x}-\\U{prev:08x}")
            start = c
    return re.compile(f"[^\\W_](?:[^\\W_]|[{''.join(ranges)}])*")


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
    checks["segmentation"] = schema.one_of(KNOWN_SEGMENTATIONS)
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
